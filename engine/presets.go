package engine

import (
	"fmt"
	"sort"
	"strings"
)

// A preset sets a worker's renewal policy as a real client does it. Values
// that depend on the lease duration are resolved when the world is built.
// Sources are in the project's shared REFERENCE.md.
var presets = map[string]func(ws *WorkerSpec, ttl Time){
	// etcd clientv3: the next keepalive TTL/3 after each response, re-sent
	// every 500 ms while none comes; the client's deadline counts from when
	// the answer arrived.
	"etcd": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Every: ttl / 3, Retry: 500 * Millisecond, Attempt: 500 * Millisecond}
		ws.Belief = FromReceive
		ws.StopAtExpiry = true
	},
	// client-go leader election: renew every RetryPeriod (2 s); give up
	// leadership when no renewal succeeded for RenewDeadline (10 s), before
	// the 15 s lease ends.
	"kubernetes": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Every: 2 * Second, Retry: 2 * Second, Attempt: 2 * Second, GiveUp: 10 * Second}
		ws.Belief = FromSend
		ws.StopAtExpiry = true
	},
	// ZooKeeper: the client pings after a third of the session timeout idle
	// and, when a ping goes unanswered, reconnects at once (here: retries
	// after a thirtieth, each try bounded by a sixth); on a lost connection Curator reports SUSPENDED
	// (uncertain) and the holder must stop at the deadline.
	"zookeeper": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Every: ttl / 3, Retry: ttl / 30, Attempt: ttl / 6}
		ws.Belief = FromSend
		ws.StopAtExpiry = true
	},
	// Consul: sessions are renewed at TTL/2, retrying with backoff.
	// Lock-delay (15 s by default) is the coordinator's: set lock-delay=15s.
	"consul": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Every: ttl / 2, Retry: Second, Backoff: 2000, RetryMax: ttl / 4, Attempt: ttl / 4}
		ws.Belief = FromSend
		ws.StopAtExpiry = true
	},
	// Chubby: the client keeps a conservative local lease (12 s by default)
	// and asks for the next extension well before it runs out.
	"chubby": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Margin: ttl / 2, Retry: ttl / 12, Attempt: ttl / 6}
		ws.Belief = FromSend
		ws.StopAtExpiry = true
	},
}

// Presets lists the preset names.
func Presets() []string {
	var names []string
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func checkPreset(name string) error {
	if _, ok := presets[name]; !ok {
		return fmt.Errorf("unknown preset %q (want one of %s)", name, strings.Join(Presets(), ", "))
	}
	return nil
}

// resolvePreset applies the worker's preset, if any, for a lease of ttl.
func (ws *WorkerSpec) resolvePreset(ttl Time) {
	if f, ok := presets[ws.Preset]; ok {
		if ttl == 0 {
			ttl = 10 * Second
		}
		f(ws, ttl)
	}
}
