package engine

import (
	"fmt"
	"sort"
	"strings"
)

// A preset stands for a real system: what its client does about the lease
// (renewal, retries, from when it counts, when it stops) and what its
// server does with this worker's lease (a later expiry than the client is
// told, lock-delay, a refresh on leader change). Values that depend on the
// lease duration are resolved when the world is built; options written on
// the worker's own line are applied after the preset, so they win.
// Sources are in the project's shared REFERENCE.md; docs/authoring.md
// lists exactly what each preset sets.
var presets = map[string]func(ws *WorkerSpec, ttl Time){
	// etcd clientv3 (client/v3/lease.go): the next keepalive TTL/3 after
	// each response, re-sent every 500 ms while none comes; the client's
	// deadline counts from when the answer arrived. The server
	// (server/lease/lessor.go) gives every lease its full TTL again plus the
	// election timeout when a new leader takes over, and revokes nothing
	// while there is none.
	"etcd": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Every: ttl / 3, Retry: 500 * Millisecond, Attempt: 500 * Millisecond}
		ws.Belief = FromReceive
		ws.StopAtExpiry = true
		ws.ElectionRefresh = true
	},
	// client-go leader election (tools/leaderelection/leaderelection.go),
	// defaults LeaseDuration 15 s (the scenario's ttl), RenewDeadline 10 s,
	// RetryPeriod 2 s, JitterFactor 1.2. After a renewal the leader waits a
	// RetryPeriod, then tries every RetryPeriod for RenewDeadline: it gives
	// up 12 s after its last success. Candidates retry acquiring every
	// RetryPeriod plus up to 1.2 of it (2–4.4 s). Expiry is judged by the
	// candidates' clocks only with the scenario option expiry=candidate.
	"kubernetes": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Every: 2 * Second, Retry: 2 * Second, Attempt: 2 * Second, GiveUp: 12 * Second}
		ws.Belief = FromSend
		ws.StopAtExpiry = true
		ws.AcquireJitter = 1200
	},
	// ZooKeeper: the client pings after a third of the session timeout idle
	// and, when a ping goes unanswered, reconnects at once (here: retries
	// after a thirtieth, each try bounded by a sixth). It has no deadline of
	// its own: it keeps trying, and learns that its session expired only
	// when it reaches a server again (Curator's SUSPENDED is the uncertain
	// status meanwhile, LOST the definitive answer).
	"zookeeper": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Every: ttl / 3, Retry: ttl / 30, Attempt: ttl / 6, PastDeadline: true}
		ws.Belief = FromSend
		ws.StopAtExpiry = false
	},
	// Consul sessions: renewed at TTL/2, retrying with backoff. The server
	// arms its timer at twice the TTL (a TTL is a lower bound), and after
	// an invalidation the lock is held back for the session's lock-delay
	// (15 s by default).
	"consul": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Every: ttl / 2, Retry: Second, Backoff: 2000, RetryMax: ttl / 4, Attempt: ttl / 4}
		ws.Belief = FromSend
		ws.StopAtExpiry = true
		ws.ServerGrace = ttl
		ws.LockDelay = 15 * Second
	},
	// Chubby (OSDI '06): the client keeps a conservative local lease (12 s
	// by default), asks for the next extension well before it runs out,
	// and when it does run out the session is in jeopardy for a 45 s grace
	// period: the client keeps trying and does not trust its lock. A new
	// master honours the sessions it finds: it gives each a fresh lease
	// (and a new epoch), so a failover within the grace period loses
	// nothing.
	"chubby": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Margin: ttl / 2, Retry: ttl / 12, Attempt: ttl / 6}
		ws.Belief = FromSend
		ws.StopAtExpiry = true
		ws.Grace = 45 * Second
		ws.ElectionRefresh = true
	},
	// Redlock: no renewal; the lock is valid for TTL − elapsed − drift,
	// drift being 1% of the TTL, so the client counts TTL − TTL/100 from
	// when it sent the request. Its value is random, not a rising token:
	// writes carry nothing a storage could fence with.
	"redlock": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{GiveUp: ttl - ttl/100}
		ws.Belief = FromSend
		ws.StopAtExpiry = true
		ws.NoToken = true
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

// resolvePreset applies the worker's preset, if any, for a lease of ttl,
// then the options written on the worker, which win over it.
func (ws *WorkerSpec) resolvePreset(ttl Time) error {
	f, ok := presets[ws.Preset]
	if !ok {
		return nil
	}
	if ttl == 0 {
		ttl = 10 * Second
	}
	f(ws, ttl)
	for _, kv := range ws.set {
		k, v, _ := strings.Cut(kv, "=")
		// A period and a margin exclude each other: the one written wins.
		switch k {
		case "renew":
			ws.Renew.Margin = 0
		case "renew-margin":
			ws.Renew.Every = 0
		}
		if err := ws.set1(k, v); err != nil {
			return fmt.Errorf("worker %s: %w", ws.Name, err)
		}
	}
	return nil
}
