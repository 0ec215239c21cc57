package engine

import (
	"reflect"
	"slices"
	"testing"
)

// TestSearchKnowsEveryField: forkInto must copy every slice a world's
// state holds, and StateHash must weigh every field that decides the
// future. Both list fields by hand, so a field added to the world or an
// actor fails here until search_state.go has been told of it (and this
// list with it).
func TestSearchKnowsEveryField(t *testing.T) {
	known := map[reflect.Type][]string{
		reflect.TypeFor[World]():       {"p", "seed", "mode", "now", "seq", "q", "msgs", "freeMsgs", "rnd", "log", "cmds", "budget", "coord", "store", "workers", "jitter", "links", "beliefs", "freezes", "splitSeen", "faults", "lines", "sides"},
		reflect.TypeFor[coordinator](): {"ttl", "lockDelay", "election", "service", "tick", "clk", "rclk", "renewToken", "candidate", "independent", "keys", "pausedAt", "up", "leader", "electing", "electionID", "busyUntil", "nextToken", "tokens", "idgen", "revoked", "leases", "lastEnd", "spans"},
		reflect.TypeFor[lease]():       {"index", "holder", "key", "freeID", "lastChange", "open", "tokens", "token", "expires", "local", "freeAt", "version", "tenure", "waiters"},
		reflect.TypeFor[storage]():     {"highest", "version", "ledger", "keys", "copies", "writes", "cut", "diverged"},
		reflect.TypeFor[storeCopy]():   {"has", "held"},
		reflect.TypeFor[copyWrite]():   {"from", "token", "key", "copy", "accept"},
		reflect.TypeFor[keyState]():    {"used", "highest", "lastToken", "lastAccept", "firstSend", "doubled", "lastValue", "parts"},
		reflect.TypeFor[parts]():       {"from", "token", "accept", "whole", "wtoken", "waccept", "mixed"},
		reflect.TypeFor[worker]():      {"spec", "id", "lease", "freezeOn", "waiting", "crashed", "frozen", "done", "holds", "acquiring", "jeopardy", "refused", "sub", "worked", "loops", "anyGen", "pubGap", "every", "cancel", "auth", "inc", "thawID", "req", "progReq", "pc", "belief", "freeze", "acquiredEv", "freezeFor", "deferred", "reqSent", "acqSent", "seenVersion", "seenAt", "token", "believedEnd", "version", "renewal", "clk", "timers", "brain"},
		reflect.TypeFor[renewal]():     {"loops", "gen", "uncertain", "gaveUp", "attempts", "delay", "pending"},
		reflect.TypeFor[renewLoop]():   {"inflight", "req", "sent", "gen"},
		reflect.TypeFor[message]():     {"kind", "from", "to", "wait", "takeover", "effect", "reason", "token", "real", "ttl", "version", "req", "ev", "sent", "gen", "lease", "key", "value", "form"},
		reflect.TypeFor[item]():        {"at", "seq", "id", "kind", "node", "slot", "lease"},
		reflect.TypeFor[link]():        {"cut", "hasDelay", "delay", "hasLoss", "lossPPM", "part"},
		reflect.TypeFor[timer]():       {"local", "id", "on"},
		reflect.TypeFor[clock]():       {"base", "anchor", "rate"},
		reflect.TypeFor[waiter]():      {"node", "req"},
		reflect.TypeFor[masterKey]():   {"holder", "expires", "value"},
		reflect.TypeFor[rng]():         {"s"},
	}
	for typ, names := range known {
		var fields []string
		for f := range typ.Fields() {
			fields = append(fields, f.Name)
		}
		for _, f := range fields {
			if !slices.Contains(names, f) {
				t.Errorf("%s.%s is new to the search: in engine/search_state.go, copy it in forkInto if it holds a slice or map, and weigh it in StateHash if it decides what the world does next; then list it here", typ.Name(), f)
			}
		}
		for _, n := range names {
			if !slices.Contains(fields, n) {
				t.Errorf("%s.%s is gone: drop it from search_state.go and from this list", typ.Name(), n)
			}
		}
	}
}
