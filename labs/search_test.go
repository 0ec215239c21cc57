package labs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"leaselab/engine"
)

func courseLab(t *testing.T, id string) *Lab {
	t.Helper()
	c := SharedCourse(t)
	l := c.Lab(id)
	if l == nil {
		t.Fatalf("no lab %s", id)
	}
	return l
}

// The verdict and every count are the same on one goroutine and on two:
// parts are fixed by the search, not by the cores.
func TestSearchSameOnAnyNumberOfCores(t *testing.T) {
	c := SharedCourse(t)
	for _, tc := range []struct {
		lab    string
		faults int
	}{{"renew-policy", 1}, {"break-margin", 2}, {"break-check", 2}} {
		var got []*SearchVerdict
		for _, n := range []int{1, 2} {
			v, err := c.Lab(tc.lab).RunSearch(SearchOptions{Faults: tc.faults, Workers: n})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		a, b := got[0].SearchResult, got[1].SearchResult
		if a.Schedules == 0 || a.Schedules != b.Schedules || a.States != b.States || a.Pruned != b.Pruned || a.Broken != b.Broken || a.Parts != b.Parts {
			t.Errorf("%s: one core %+v, two %+v", tc.lab, a.SearchPart, b.SearchPart)
		}
		if (a.Shortest == nil) != (b.Shortest == nil) || (a.Shortest != nil && !slices.Equal(a.Shortest.Commands, b.Shortest.Commands)) {
			t.Errorf("%s: the shortest differs between one core and two", tc.lab)
		}
		if got[0].Query != got[1].Query {
			t.Errorf("%s: permalinks differ: %q, %q", tc.lab, got[0].Query, got[1].Query)
		}
	}
}

// renew-policy's safe policy (the one the renewal lessons quote) passes
// the design challenge's 200 random schedules; the search breaks it with
// two faults the sample never puts together: an outage, and a pause of H
// as it ends. A sample that passes is not a proof.
func TestSearchBreaksWhatTheSamplePasses(t *testing.T) {
	l := courseLab(t, "renew-policy")
	safe := map[string]string{"renew-margin": "6s", "renew-attempt": "2500ms", "renew-retry": "500ms", "renew-give-up": "9s", "stop-at-expiry": "on"}
	verdict, err := l.Challenge().Judge(safe)
	if err != nil {
		t.Fatal(err)
	}
	if !verdict.Result.Pass {
		t.Fatalf("the sample fails the safe policy: %+v", verdict.Result)
	}
	var set []string
	for k, v := range safe {
		set = append(set, k+"="+v)
	}
	slices.Sort(set)
	s, _, _, err := l.searchFor(SearchOptions{Set: set})
	if err != nil {
		t.Fatal(err)
	}
	// The lab's bounds cut to the two kinds that matter, so that the test
	// takes a second.
	s.Bounds.Faults, s.Bounds.Horizon = 2, 15*engine.Second
	s.Bounds.Kinds = []engine.SearchKind{{Name: "outage", Sizes: []engine.Time{12 * engine.Second}}, {Name: "pause", Sizes: []engine.Time{2 * engine.Second}}}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	br := res.Shortest
	if br == nil {
		t.Fatalf("the search proved the safe policy within %+v", res.SearchPart)
	}
	kinds := []engine.FaultKind{br.Faults[0].Kind, br.Faults[len(br.Faults)-1].Kind}
	if len(br.Faults) != 2 || !slices.Equal(kinds, []engine.FaultKind{engine.FaultOutage, engine.FaultPause}) {
		t.Errorf("shortest %v, want an outage then a pause", br.Faults)
	}
	t.Logf("%s breaks it: %s at %s", FaultList("en", br.Faults), br.Harm.Reason(), br.Harm.T)

	var ve *ValueError
	if _, err := l.Challenge().Prove(map[string]string{"ttl": "5s"}, SearchOptions{Workers: 1}); !errors.As(err, &ve) || ve.Param != "ttl" {
		t.Errorf("prove with a scenario option: %v", err)
	}
}

// A "break it" goal counts the student's faults and holds the design
// still: one pause that lets a stale write in reaches it; the same harm
// reached with two faults, or after switching the storage, does not.
func TestBreakGoal(t *testing.T) {
	l := courseLab(t, "break-fencing")
	g := l.Goal("one-pause")
	if g.BreakFaults() != 1 {
		t.Fatalf("break: %d", g.BreakFaults())
	}
	for _, tc := range []struct {
		cmds []string
		ok   bool
		why  string
	}{
		{[]string{"until 3s", "freeze W1 for=25s", "until 40s"}, true, ""},
		{[]string{"until 2s", "freeze W1 for=5s", "until 8s", "partition W2", "until 9s", "heal", "until 40s"}, false, ""},
		{[]string{"until 1s", "crash W2", "until 3s", "freeze W1 for=25s", "until 40s"}, false, "you used 2 faults; this goal allows at most 1"},
		{[]string{"fencing off", "until 3s", "freeze W1 for=25s", "until 40s"}, false, "the design must stay as handed to you"},
	} {
		w, err := l.NewWorld(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tc.cmds {
			if err := w.Do(c); err != nil {
				t.Fatalf("%s: %v", c, err)
			}
		}
		v, err := l.CheckGoal(g.ID, w, "en")
		if err != nil {
			t.Fatal(err)
		}
		if v.Correct != tc.ok {
			t.Errorf("%v: reached %v, want %v (%v)", tc.cmds, v.Correct, tc.ok, v.Missing)
		}
		if tc.why != "" && (len(v.Missing) != 1 || !strings.HasPrefix(v.Missing[0], tc.why)) {
			t.Errorf("%v: missing %q, want %q", tc.cmds, v.Missing, tc.why)
		}
	}
	sv, err := g.Shortest(SearchOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sv.Shortest == nil || len(sv.Shortest.Faults) != 1 {
		t.Fatalf("the engine's shortest: %+v", sv.Shortest)
	}
	if got := CompareBreak("en", 3, sv.Shortest); !strings.HasPrefix(got, "You used 3 faults; 1 is enough: pause ") {
		t.Errorf("compare: %q", got)
	}
	if got := CompareBreak("id", 1, sv.Shortest); !strings.HasPrefix(got, "Kamu memakai 1 gangguan, sama sedikitnya") {
		t.Errorf("compare: %q", got)
	}
}

// check holds a lab to its claim: fencing against lost updates is proved
// within two pauses; the same claim without fencing is refused, at the
// search: line, with the schedule that breaks it.
func TestSearchClaim(t *testing.T) {
	src := `id: claim
scenario:
  ttl: 15s
  storage: STORAGE
  workers:
    W1: acquire; work 5s; write file; release
    W2 start=1s: acquire; work 5s; write file; release
horizon: 40s
search:
  target: W1
  faults: 2
  kinds:
    pause: [5s, 25s]
  harm: [lost-update, stale-write]
  claim: safe
goals:
  - id: g
    holds: W2 writes
`
	for _, mode := range []string{"fencing", "none"} {
		l, err := LoadLabFile("lab.yaml", []byte(strings.Replace(src, "STORAGE", mode, 1)))
		if err != nil {
			t.Fatal(err)
		}
		r := &report{}
		verifySearch(r, l, 0)
		if mode == "fencing" && len(r.ps) > 0 {
			t.Errorf("fencing: %v", r.ps)
		}
		if mode == "none" && (len(r.ps) != 1 || r.ps[0].Line != 10 || !strings.Contains(r.ps[0].Msg, "search claims safe, but pause ")) {
			t.Errorf("without fencing: %v", r.ps)
		}
	}
}

// Bad bounds are refused where they are written.
func TestSearchBoundsErrors(t *testing.T) {
	base := "id: x\nscenario:\n  workers:\n    W1: acquire; write f\nhorizon: 20s\ngoals:\n  - id: g\n    holds: W1 writes\nsearch:\n  target: W1\n"
	for _, tc := range []struct{ add, want string }{
		{"  kinds:\n    melt: [1s]\n", "lab.yaml:12:5: unknown key \"melt\""},
		{"  faults: 4\n  kinds:\n    pause: [1s]\n", "lab.yaml:11:11: search faults \"4\""},
		{"  kinds:\n    pause: [soon]\n", "lab.yaml:12:13: search kinds pause \"soon\""},
		{"  kinds:\n    drift: [1]\n", "lab.yaml:12:13: search kinds drift \"1\""},
		{"  claim: maybe\n  kinds:\n    pause: [1s]\n", "lab.yaml:11:10: search claim \"maybe\""},
		{"  harm: [sadness]\n  kinds:\n    pause: [1s]\n", "lab.yaml:11:10: search harm \"sadness\""},
	} {
		_, err := LoadLabFile("lab.yaml", []byte(base+tc.add))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s", tc.add, err, tc.want)
		}
	}
}

// A search tells its progress after every part, and the sums it tells
// end at the verdict's; cancelled after its first part, it stops between
// parts and says why, instead of running the rest.
func TestSearchProgressAndCancel(t *testing.T) {
	l := courseLab(t, "renew-policy")
	var last SearchProgress
	calls := 0
	v, err := l.RunSearch(SearchOptions{Faults: 1, Workers: 2, Progress: func(p SearchProgress) {
		if p.Done != last.Done+1 || p.Schedules < last.Schedules {
			t.Errorf("progress went from %+v to %+v", last, p)
		}
		last = p
		calls++
	}})
	if err != nil {
		t.Fatal(err)
	}
	if last.Done != v.Parts || calls != v.Parts || last.Schedules == 0 || last.Schedules > v.Schedules {
		t.Errorf("progress ended at %+v after %d calls; the verdict has %d parts", last, calls, v.Parts)
	}
	if v.Parts < 3 {
		t.Fatalf("only %d parts: too few to see a search stop between them", v.Parts)
	}

	ctx, cancel := context.WithCancel(context.Background())
	ran := 0
	_, err = l.RunSearch(SearchOptions{Faults: 1, Workers: 1, Context: ctx, Part: func(run func()) {
		ran++
		run()
		cancel()
	}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled search returned %v, want context.Canceled", err)
	}
	if ran != 1 {
		t.Errorf("a search cancelled after its first part ran %d parts", ran)
	}
}
