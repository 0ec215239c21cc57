package engine

import (
	"slices"
	"testing"
)

// renewPolicyScenario is the renew-policy lab's world (the design
// challenge of the second lesson) with policy on its holder H.
func renewPolicyScenario(t testing.TB, policy string) Scenario {
	return scenarioOf(t, []string{"ttl=10s", "delay=50ms", "storage=none"},
		"H "+policy+": acquire; work 1s; write data; repeat",
		"S start=1s renew-margin=6s renew-attempt=2500ms renew-retry=500ms renew-give-up=9s stop-at-expiry=on: acquire retry=2s; work 1s; check; write data; repeat")
}

// startingPolicy is the renew-policy lab's starting policy.
const startingPolicy = "renew-margin=2s renew-attempt=1s renew-retry=1s renew-backoff=1 renew-give-up=10s belief=send stop-at-expiry=on retry-past-deadline=off"

func pausesAndPartitions(k int, horizon Time) SearchBounds {
	return SearchBounds{Target: "H", Faults: k, Horizon: horizon, Kinds: []SearchKind{
		{Name: "pause", Sizes: []Time{1 * Second, 2 * Second}},
		{Name: "partition", Sizes: []Time{2 * Second, 4 * Second}},
	}}
}

// Pruning a state explored before changes no verdict: the search with it
// finds the same shortest schedule as the search that runs every branch
// to its end, having decided fewer schedules.
func TestSearchPruningKeepsTheVerdict(t *testing.T) {
	var got [2]SearchResult
	for i, noPrune := range []bool{false, true} {
		s := Search{Scenario: renewPolicyScenario(t, startingPolicy), Bounds: pausesAndPartitions(2, 15*Second), noPrune: noPrune}
		res, err := s.Run()
		if err != nil {
			t.Fatal(err)
		}
		got[i] = res
	}
	pruned, all := got[0], got[1]
	t.Logf("pruned: %d schedules, %d states, %d cut; every branch: %d schedules", pruned.Schedules, pruned.States, pruned.Pruned, all.Schedules)
	if all.Shortest == nil || pruned.Shortest == nil {
		t.Fatalf("no breaking schedule: pruned %v, every branch %v", pruned.Shortest, all.Shortest)
	}
	if !slices.Equal(pruned.Shortest.Faults, all.Shortest.Faults) || pruned.Shortest.Harm != all.Shortest.Harm {
		t.Errorf("pruned search found %v (%s at %s), the whole one %v (%s at %s)", pruned.Shortest.Faults, pruned.Shortest.Harm.Reason(), pruned.Shortest.Harm.T,
			all.Shortest.Faults, all.Shortest.Harm.Reason(), all.Shortest.Harm.T)
	}
	if pruned.Pruned == 0 || pruned.Schedules >= all.Schedules {
		t.Errorf("pruning cut nothing: %d cut, %d schedules against %d", pruned.Pruned, pruned.Schedules, all.Schedules)
	}
}

// The starting policy survives every single pause or partition of the
// grid; two of them (a partition, and a pause as it heals) make H's write
// land after its lease ended. The schedule replays, in a new world, to
// the same harm at the same time.
func TestSearchShortestReplays(t *testing.T) {
	one := Search{Scenario: renewPolicyScenario(t, startingPolicy), Bounds: pausesAndPartitions(1, 15*Second)}
	res, err := one.Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Shortest != nil || res.Broken != 0 {
		t.Fatalf("one fault broke it: %v", res.Shortest.Faults)
	}
	two := Search{Scenario: renewPolicyScenario(t, startingPolicy), Bounds: pausesAndPartitions(2, 15*Second)}
	two, err = two.Ready()
	if err != nil {
		t.Fatal(err)
	}
	res, _ = two.Run()
	br := res.Shortest
	if br == nil || len(br.Faults) != 2 {
		t.Fatalf("two faults: want a breaking schedule of two faults, got %+v", br)
	}
	w, err := New(two.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	harm, err := two.Replay(w, br)
	if err != nil {
		t.Fatal(err)
	}
	if harm.T != br.Harm.T || harm.Reason() != br.Harm.Reason() || harm.Peer() != br.Harm.Peer() {
		t.Errorf("replayed harm %s at %s, the search saw %s at %s", harm.Reason(), harm.T, br.Harm.Reason(), br.Harm.T)
	}
	t.Logf("%v: %s", br.Faults, w.Names().Describe(harm))
}

// Without fencing two faults let an older token's write overwrite a newer
// one's; with fencing no schedule of two faults does: the claim of the
// first lesson, proved within the bounds.
func TestSearchProvesFencing(t *testing.T) {
	for _, mode := range []StorageMode{StorageNone, StorageFencing} {
		sc := renewPolicyScenario(t, startingPolicy)
		sc.Storage = mode
		b := SearchBounds{Target: "H", Faults: 2, Horizon: 30 * Second, Harm: []Reason{ViolationLostUpdate}, Kinds: []SearchKind{
			{Name: "pause", Sizes: []Time{12 * Second}},
			{Name: "partition", Sizes: []Time{4 * Second}},
		}}
		res, err := Search{Scenario: sc, Bounds: b}.Run()
		if err != nil {
			t.Fatal(err)
		}
		if res.TooLarge || res.Schedules < 1000 {
			t.Fatalf("%s: %+v", mode, res.SearchPart)
		}
		if broken := res.Shortest != nil; broken != (mode == StorageNone) {
			t.Errorf("storage %s: broken %v (%+v)", mode, broken, res.Shortest)
		} else if broken {
			t.Logf("storage %s: %v; %d schedules", mode, res.Shortest.Faults, res.Schedules)
		} else {
			t.Logf("storage %s: none within bounds; %d schedules", mode, res.Schedules)
		}
	}
}

// Parts depend only on the search and their range: run in any order they
// merge into the same verdict.
func TestSearchPartsInAnyOrder(t *testing.T) {
	s, err := Search{Scenario: renewPolicyScenario(t, startingPolicy), Bounds: pausesAndPartitions(2, 12*Second)}.Ready()
	if err != nil {
		t.Fatal(err)
	}
	n := s.Parts()
	forward, backward := make([]SearchPart, n), make([]SearchPart, n)
	for i := range n {
		forward[i] = s.Part(i)
	}
	for i := n - 1; i >= 0; i-- {
		backward[i] = s.Part(i)
	}
	a, b := s.Merge(forward), s.Merge(backward)
	if a.SearchPart.Shortest == nil || b.Shortest == nil {
		t.Fatal("no breaking schedule")
	}
	sa, sb := *a.Shortest, *b.Shortest
	a.Shortest, b.Shortest = nil, nil
	if a != b || !slices.Equal(sa.Faults, sb.Faults) || !slices.Equal(sa.Commands, sb.Commands) {
		t.Errorf("forward %+v %v, backward %+v %v", a, sa.Faults, b, sb.Faults)
	}
}

// A search that would keep more states than its cap stops and says its
// bounds are too large.
func TestSearchCapOfStates(t *testing.T) {
	b := pausesAndPartitions(2, 15*Second)
	b.MaxStates = 50
	res, err := Search{Scenario: renewPolicyScenario(t, startingPolicy), Bounds: b}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if !res.TooLarge {
		t.Errorf("a cap of 50 states was not reached: %+v", res.SearchPart)
	}
}

// StateHash sees what decides the future and nothing else: the same
// commands give the same hash, a pause changes it, and a fault that
// changed nothing the world will do (a partition healed before any
// message crossed it) leaves it as the unfaulted world's.
func TestStateHash(t *testing.T) {
	sc := scenarioOf(t, []string{"ttl=10s"}, "W: acquire; work 5s; write f; release")
	run := func(cmds ...string) *World {
		w, err := New(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cmds {
			if err := w.Do(c); err != nil {
				t.Fatal(c, err)
			}
		}
		return w
	}
	base := run("until 3s").StateHash()
	if h := run("until 3s").StateHash(); h != base {
		t.Errorf("the same run hashed %x and %x", base, h)
	}
	if h := run("until 2s", "freeze W for=500ms", "until 3s").StateHash(); h != base {
		t.Error("a pause that let nothing fall due changed the hash")
	}
	if h, b := run("until 4s", "freeze W for=2s", "until 7s").StateHash(), run("until 7s").StateHash(); h == b {
		t.Error("a pause over the end of the work left the hash as it was")
	}
	if h := run("until 1s", "partition W coord", "until 2s", "heal W coord", "until 3s").StateHash(); h != base {
		t.Error("a partition no message crossed changed the hash")
	}
	if h := run("until 2s").StateHash(); h == base {
		t.Error("two moments of one run hashed the same")
	}
}

func TestSearchRefusesBadBounds(t *testing.T) {
	sc := renewPolicyScenario(t, startingPolicy)
	for _, b := range []SearchBounds{
		{Target: "H", Faults: 4, Horizon: Minute, Kinds: []SearchKind{{Name: "pause", Sizes: []Time{Second}}}},
		{Target: "X", Faults: 1, Horizon: Minute, Kinds: []SearchKind{{Name: "pause", Sizes: []Time{Second}}}},
		{Target: "H", Faults: 1, Horizon: Minute, Kinds: []SearchKind{{Name: "melt", Sizes: []Time{Second}}}},
		{Target: "H", Faults: 1, Horizon: Minute, Kinds: []SearchKind{{Name: "pause"}}},
		{Target: "H", Faults: 1, Horizon: Minute},
	} {
		if _, err := (Search{Scenario: sc, Bounds: b}).Ready(); err == nil {
			t.Errorf("%+v accepted", b)
		}
	}
}
