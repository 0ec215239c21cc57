package web

import "sync"

// clientSessions counts the live sessions each client address holds. The
// listener caps connections by the peer's address, which behind a trusted
// proxy is the proxy's and not capped; this caps each student the proxy
// forwards instead, at the same number.
type clientSessions struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

func newClientSessions(max int) *clientSessions {
	return &clientSessions{max: max, n: map[string]int{}}
}

// take counts a session of client, or reports false when client holds
// max already.
func (c *clientSessions) take(client string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[client] >= c.max {
		return false
	}
	c.n[client]++
	return true
}

// give returns a place taken for client.
func (c *clientSessions) give(client string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[client]--; c.n[client] <= 0 {
		delete(c.n, client)
	}
}
