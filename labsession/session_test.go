package labsession

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"leaselab/content"
	"leaselab/engine"
	"leaselab/labs"
)

// busyLab's workers renew every half second, so its world passes the
// event cap before the virtual-time cap.
const busyLab = `id: busy
scenario:
  ttl: 2s
  workers:
    W1 renew=500ms: acquire; work 5s; write data; release; repeat
    W2 renew=500ms: acquire; work 5s; write data; release; repeat
    W3 renew=500ms: acquire; work 5s; write data; release; repeat
horizon: 40s
`

func loadBusy(t testing.TB) *labs.Lab {
	t.Helper()
	l, err := labs.LoadLabFile("busy/lab.yaml", []byte(busyLab))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// courseLab is the embedded course's lab id. The course is loaded once
// for the package's tests: a load runs every question, goal and measured
// exercise in the engine (a fifth of a CPU-second), a dozen tests ask for
// a lab, and a course is only read once loaded (a session copies what it
// changes).
func courseLab(t testing.TB, id string) *labs.Lab {
	t.Helper()
	c, err := embeddedCourse()
	if err != nil {
		t.Fatal(err)
	}
	l := c.Lab(id)
	if l == nil {
		t.Fatalf("no lab %s", id)
	}
	return l
}

var embeddedCourse = sync.OnceValues(func() (*labs.Course, error) { return labs.Load(content.FS) })

// state is what a student sees of a session: its query and its world.
type state struct {
	query  string
	now    engine.Time
	events []engine.Event
}

func stateOf(s *Session) state {
	return state{s.Query(), s.World().Now(), slices.Clone(s.World().Events())}
}

func (a state) equal(b state) bool {
	return a.query == b.query && a.now == b.now && slices.Equal(a.events, b.events)
}

// rebuilt opens the session s's query describes, as a reconnect does.
func rebuilt(t *testing.T, s *Session) *Session {
	t.Helper()
	q, err := url.ParseQuery(s.Query())
	if err != nil {
		t.Fatal(err)
	}
	r, refused, err := FromQuery(s.Lab(), q)
	if err != nil || refused != nil {
		t.Fatalf("rebuilding from %.200s: %v, %v", s.Query(), err, refused)
	}
	return r
}

func mustDo(t *testing.T, s *Session, cmds ...string) {
	t.Helper()
	for _, c := range cmds {
		if err := s.Do(c); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
}

// TestRefusedCommandChangesNothing: a command over the event cap, whether
// it moves time or not, is refused and leaves world and query as they were,
// and the query still rebuilds what the student sees.
func TestRefusedCommandChangesNothing(t *testing.T) {
	s, err := New(loadBusy(t), 3)
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, s, "fencing on", "until 30s", "freeze W1 for=5s")
	before := stateOf(s)
	err = s.Do("until 10m")
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("until 10m on a busy lab: %v, want the event cap", err)
	}
	if !stateOf(s).equal(before) {
		t.Fatalf("refused (%v), but the session changed", err)
	}
	// Creep up to the cap, then past it with commands that do not move time.
	for s.Do("advance 5s") == nil {
	}
	for i := 0; ; i++ {
		if i > 2*MaxEvents {
			t.Fatalf("partition and heal never reached the event cap (%d events)", len(s.World().Events()))
		}
		cmd := []string{"partition W2", "heal"}[i%2]
		before := stateOf(s)
		if err := s.Do(cmd); err != nil {
			if !errors.As(err, &le) {
				t.Fatalf("%s at %d events: %v, want the event cap", cmd, len(before.events), err)
			}
			if !stateOf(s).equal(before) {
				t.Fatalf("%s refused (%v), but the session changed", cmd, err)
			}
			break
		}
	}
	if n := len(s.World().Events()); n > MaxEvents {
		t.Fatalf("the session holds %d events; the cap is %d", n, MaxEvents)
	}
	if !stateOf(rebuilt(t, s)).equal(stateOf(s)) {
		t.Fatal("the query does not rebuild the session's world")
	}
}

// TestReplayDoesNotGrow: replay runs the run again in place of itself, so
// a hundred replays leave as many commands as one, and the query rebuilds
// the world each time.
func TestReplayDoesNotGrow(t *testing.T) {
	s, err := New(courseLab(t, "w1-w2"), 1)
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, s, "until 4s", "freeze W1 for=25s", "until 30s", "fencing on")
	if err := s.Replay(); err != nil {
		t.Fatal(err)
	}
	one := stateOf(s)
	for range 100 {
		if err := s.Replay(); err != nil {
			t.Fatal(err)
		}
	}
	if !stateOf(s).equal(one) {
		t.Fatalf("100 replays changed the session:\n%s\n%s", one.query, s.Query())
	}
	if want := "seed=1&do=fencing+on&do=reset&do=until+4s&do=freeze+W1+for%3D25s&do=until+30s"; s.Query() != want {
		t.Fatalf("query after replay = %s, want %s", s.Query(), want)
	}
	if !stateOf(rebuilt(t, s)).equal(one) {
		t.Fatal("the query does not rebuild the replayed world")
	}
	// The replayed run met the storage as set now: the stale write is
	// rejected.
	rejected := false
	for _, e := range s.World().Events() {
		rejected = rejected || e.Kind == engine.KindReject
	}
	if !rejected {
		t.Fatal("after fencing on and a replay, W1's stale write was not rejected")
	}
}

// TestCommandCap: the 2,001st command is refused, and what the session
// holds a link rebuilds in full.
func TestCommandCap(t *testing.T) {
	s, err := New(courseLab(t, "w1-w2"), 1)
	if err != nil {
		t.Fatal(err)
	}
	var err2 error
	for i := 0; err2 == nil; i++ {
		if i > MaxCommands+1 {
			t.Fatal("the command cap never came")
		}
		err2 = s.Do([]string{"crash W2", "restart W2"}[i%2])
	}
	var le *LimitError
	if !errors.As(err2, &le) || len(s.Commands()) != MaxCommands {
		t.Fatalf("refused with %v at %d commands; want the cap at %d", err2, len(s.Commands()), MaxCommands)
	}
	// At the cap, a replay still fits: it replaces the run.
	if err := s.Replay(); err != nil {
		t.Fatalf("replay at the command cap: %v", err)
	}
	if n := len(s.Commands()); n > MaxCommands+maxHead {
		t.Fatalf("after replay at the cap the session holds %d commands", n)
	}
	// Advances merge into the last advance only.
	if err := s.Do("advance 1s"); !errors.As(err, &le) {
		t.Fatalf("a new advance at the cap: %v", err)
	}
	if !stateOf(rebuilt(t, s)).equal(stateOf(s)) {
		t.Fatal("the query does not rebuild a session at the command cap")
	}
	// A reset starts afresh.
	mustDo(t, s, "reset", "advance 1s", "advance 2s")
	if got := s.Strings(); !slices.Equal(got, []string{"reset", "advance 3s"}) {
		t.Fatalf("after reset: %q", got)
	}
}

// TestQueryOpensWithinTheCaps: a link cannot make the server do more work
// than a session holds: resets in a row each start a run, but the work of
// opening is capped, and a bad command is left out and named briefly.
func TestQueryOpensWithinTheCaps(t *testing.T) {
	lab := loadBusy(t)
	q := url.Values{"seed": {"2"}}
	for range 50 {
		q.Add("do", "until 9m")
		q.Add("do", "reset")
	}
	s, refused, err := FromQuery(lab, q)
	if err != nil {
		t.Fatal(err)
	}
	var le *LimitError
	if !errors.As(refused, &le) {
		t.Fatalf("50 runs of 9 minutes: refused = %v, want the work cap", refused)
	}
	if len(s.Commands()) > 3 {
		t.Fatalf("after resets the session holds %q", s.Strings())
	}
	huge := strings.Repeat("x", 1<<20)
	_, refused, err = FromQuery(lab, url.Values{"do": {"advance 1s", huge}})
	if err != nil || refused == nil {
		t.Fatalf("a 1 MB command: %v, %v", err, refused)
	}
	if len(refused.Error()) > 300 {
		t.Fatalf("the error for a 1 MB command is %d bytes long", len(refused.Error()))
	}
}

// TestLabControls: a command the lab does not offer is refused, live and
// from a link, and changes nothing.
func TestLabControls(t *testing.T) {
	s, err := New(courseLab(t, "w1-w2"), 1)
	if err != nil {
		t.Fatal(err)
	}
	before := stateOf(s)
	c, err := Parse("replica 1 down")
	if err != nil {
		t.Fatal(err)
	}
	if s.Lab().Allows(c) {
		t.Fatal("w1-w2 offers replica now: pick a command it does not offer")
	}
	if err := s.Apply(c); err == nil || !stateOf(s).equal(before) {
		t.Fatalf("replica 1 down on w1-w2: %v", err)
	}
}

// TestOpenMatchesTheQuery: a session opened from typed commands is the one
// its query rebuilds, and Open names the command it refuses.
func TestOpenMatchesTheQuery(t *testing.T) {
	lab := courseLab(t, "w1-w2")
	var cmds []engine.Command
	for _, src := range []string{"fencing on", "until 4s", "freeze W1 for=25s", "advance 10s", "advance 16s"} {
		c, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	s, err := Open(lab, 5, cmds)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Strings(); !slices.Equal(got, []string{"fencing on", "until 4s", "freeze W1 for=25s", "advance 26s"}) {
		t.Errorf("commands %q", got)
	}
	if !stateOf(rebuilt(t, s)).equal(stateOf(s)) {
		t.Error("the query does not rebuild the opened session")
	}
	bad, _ := Parse("thaw W2")
	if _, err := Open(lab, 5, append(cmds, bad)); err == nil || !strings.Contains(err.Error(), "command 6") {
		t.Errorf("Open with a command the world refuses: %v", err)
	}
}

// Query writes the commands before the last one only when they change,
// and is always what writing the whole list writes.
func TestQueryKeepsUpWithTheCommands(t *testing.T) {
	whole := func(s *Session) string {
		var parts []string
		if s.Seed() != 0 {
			parts = append(parts, "seed="+strconv.FormatUint(s.Seed(), 10))
		}
		for _, c := range s.Commands() {
			parts = append(parts, "do="+url.QueryEscape(c.String()))
		}
		return strings.Join(parts, "&")
	}
	lab := courseLab(t, "w1-w2")
	for _, seed := range []uint64{0, 7} {
		s, err := New(lab, seed)
		if err != nil {
			t.Fatal(err)
		}
		// A session whose query is first written after a command.
		first, err := New(lab, seed)
		if err != nil {
			t.Fatal(err)
		}
		if err := first.Do("advance 2s"); err != nil {
			t.Fatal(err)
		}
		if got, want := first.Query(), whole(first); got != want {
			t.Fatalf("seed %d, first written after a command: %q, want %q", seed, got, want)
		}
		steps := []string{"", "advance 1s", "advance 1s", "fencing on", "advance 500ms", "freeze W1 for=5s", "advance 2s", "reset", "advance 1s", "advance 3s", "replay", "thaw W1"}
		for _, src := range steps {
			if src != "" {
				_ = s.Do(src) // refused ones (thaw W1 when not frozen) change nothing
			}
			if got, want := s.Query(), whole(s); got != want {
				t.Fatalf("seed %d after %q: Query %q, want %q", seed, src, got, want)
			}
		}
	}
}

// TestReleasedSessionRebuildsTheSameWorld releases a session's world and
// reads it again, and applies a command to a released session: both meet
// the world they would have met had it been kept, event for event.
func TestReleasedSessionRebuildsTheSameWorld(t *testing.T) {
	lab := courseLab(t, "renew-policy")
	kept, err := New(lab, 3)
	if err != nil {
		t.Fatal(err)
	}
	released, _ := New(lab, 3)
	for _, src := range []string{"advance 20s", "freeze H", "advance 5s", "thaw H", "advance 3s", "reset", "until 2m"} {
		if err := kept.Do(src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		released.Release()
		if released.Held() {
			t.Fatal("a released session still holds its world")
		}
		if err := released.Do(src); err != nil {
			t.Fatalf("released, %s: %v", src, err)
		}
		released.Release()
		if got, want := len(released.World().Events()), len(kept.World().Events()); got != want {
			t.Fatalf("after %s: rebuilt world has %d events, kept one %d", src, got, want)
		}
		for i, e := range kept.World().Events() {
			if released.World().Events()[i] != e {
				t.Fatalf("after %s: event %d differs: %v, kept %v", src, i, released.World().Events()[i], e)
			}
		}
		if released.Query() != kept.Query() {
			t.Fatalf("after %s: query %q, kept %q", src, released.Query(), kept.Query())
		}
	}
	if f := kept.Footprint(); f < 10*len(kept.World().Events()) {
		t.Fatalf("footprint %d B for %d events", f, len(kept.World().Events()))
	}
	released.Release()
	if f, g := released.Footprint(), kept.Footprint(); f*10 > g {
		t.Fatalf("a released session holds %d B, a kept one %d B", f, g)
	}
}
