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
		ws.LeaderChange = LeaderExtend
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
	// ZooKeeper 3.9.3 or later (ClientCnxn): the session timeout is the
	// scenario's ttl. The client pings after half its read timeout of idle
	// sending (a third of the timeout); when it has heard nothing for its
	// read timeout, 2/3 of the session timeout, it is Disconnected
	// (Curator: SUSPENDED) and stops trusting its lock; it reconnects,
	// each attempt bounded by the connect timeout (the session timeout over
	// the three servers), pausing up to a second between attempts; and it
	// expires its own session 4/3 of the timeout after it last heard
	// anything (ZOOKEEPER-4508). The leader gives every session a fresh
	// timeout when it takes over (SessionTrackerImpl). With grace=TTL in
	// place of 2/3 of it, the worker is a client before 3.9.3 under Curator
	// 3.0 or later, which posts LOST a session timeout after SUSPENDED.
	"zookeeper": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Every: ttl / 3, Retry: Second, Attempt: ttl / 3, GiveUp: ttl * 2 / 3}
		ws.Belief = FromReceive
		ws.StopAtExpiry = true
		ws.Grace = ttl * 2 / 3
		ws.LeaderChange = LeaderRestart
	},
	// Consul: the api client's RenewPeriodic renews at TTL/2 and, after an
	// error, every second (no backoff) until a TTL has passed since its
	// last success. Its lock monitor gives the lock up at the first failed
	// query (MonitorRetries 0). The server arms its timer at twice the TTL
	// (session_ttl.go), a new leader re-arms every session's full 2 × TTL
	// (initializeSessionTimers), and after an invalidation the lock is held
	// back for the session's lock-delay (15 s by default).
	"consul": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Every: ttl / 2, Retry: Second, Attempt: Second}
		ws.Belief = FromSend
		ws.StopAtExpiry = true
		ws.LoseOnError = true
		ws.ServerGrace = ttl
		ws.LockDelay = 15 * Second
		ws.LeaderChange = LeaderRestart
	},
	// Chubby (OSDI '06): the client keeps a conservative local lease (12 s
	// by default), asks for the next extension well before it runs out,
	// and when it does run out the session is in jeopardy for a 45 s grace
	// period: the client keeps trying and does not trust its lock. A new
	// master finds the session timers stopped since the old one failed and
	// lets them run on (§2.9), never moving a lease backwards (§2.8), so a
	// failover within the grace period loses nothing.
	"chubby": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{Margin: ttl / 2, Retry: ttl / 12, Attempt: ttl / 6}
		ws.Belief = FromSend
		ws.StopAtExpiry = true
		ws.Grace = 45 * Second
		ws.LeaderChange = LeaderStopped
	},
	// Redlock: no renewal; the lock is valid for TTL − elapsed − drift,
	// drift being 1% of the TTL plus 2 ms (the reference clients,
	// redlock-rb and redlock-py), so the client counts TTL − TTL/100 − 2 ms
	// from when it sent the request. Its value is random, not a rising token:
	// writes carry nothing a storage could fence with.
	"redlock": func(ws *WorkerSpec, ttl Time) {
		ws.Renew = RenewPolicy{GiveUp: ttl - ttl/100 - 2*Millisecond}
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
