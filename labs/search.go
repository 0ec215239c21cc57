package labs

import (
	"context"
	"fmt"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"leaselab/catalog"
	"leaselab/engine"
)

// A lab's search: the bounds within which the engine tries every fault
// schedule (lab.yaml search:), the claim check holds the lab to, and the
// "break it" goals that ask the student for a schedule within them.

// SearchSpec is a lab's search bounds and its author's claim.
type SearchSpec struct {
	Bounds engine.SearchBounds
	// Claim is what check proves: "safe" (no schedule within the bounds
	// breaks the lab's design) or "breaks" (one does); "" claims nothing.
	Claim string

	at pos
}

var searchKeys = []string{"target", "faults", "horizon", "kinds", "harm", "spike-hold", "replica", "max-states", "claim"}

// Search returns the lab's search bounds, or nil when it has none.
func (l *Lab) Search() *SearchSpec { return l.search }

func parseSearch(r *report, l *Lab, y ynode) *SearchSpec {
	kvs, ok := y.mapping(r, "search")
	if !ok {
		return nil
	}
	knownKeys(r, kvs, "search", searchKeys...)
	p := &searchParse{r: r, l: l, good: true,
		sp: &SearchSpec{at: y.pos(), Bounds: engine.SearchBounds{Faults: 1, Horizon: l.horizon}}}
	for _, e := range kvs {
		p.entry(e)
	}
	sp, b := p.sp, &p.sp.Bounds
	if len(b.Kinds) == 0 && p.good {
		p.bad(sp.at, "search needs kinds: the faults to try and their sizes, such as pause: [1s, 2s]")
	}
	if b.Target == "" && p.good {
		for _, k := range b.Kinds {
			if k.Name != engine.FaultReplica {
				p.bad(sp.at, "search needs target: the worker its faults hit")
				break
			}
		}
	}
	if !p.good {
		return nil
	}
	if _, err := (engine.Search{Scenario: l.scenario, Bounds: *b}).Ready(); err != nil && l.prepErr == nil {
		r.errorf(sp.at, "%v", err)
		return nil
	}
	return sp
}

// searchParse is a search: block being read; good stays true while no
// error has been reported.
type searchParse struct {
	r    *report
	l    *Lab
	sp   *SearchSpec
	good bool
}

func (p *searchParse) bad(at pos, format string, args ...any) {
	p.r.errorf(at, format, args...)
	p.good = false
}

// duration reads e's value as a duration from lo to hi.
func (p *searchParse) duration(e kv, lo, hi engine.Time) engine.Time {
	s, _ := e.val.str(p.r, e.key)
	d, err := engine.ParseTime(s)
	if err != nil || d < lo || d > hi {
		p.bad(e.val.pos(), "search %s %q: want a duration from %s to %s", e.key, s, lo, hi)
	}
	return d
}

// entry reads one key of the block into the bounds or the claim.
func (p *searchParse) entry(e kv) {
	r, b := p.r, &p.sp.Bounds
	switch e.key {
	case "target":
		s, _ := e.val.str(r, "target")
		if !slices.Contains(workerNames(p.l.scenario), s) {
			p.bad(e.val.pos(), "search target %q is not a worker of the scenario (%s)", s, strings.Join(workerNames(p.l.scenario), ", "))
		}
		b.Target = s
	case "faults":
		s, _ := e.val.str(r, "faults")
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 3 {
			p.bad(e.val.pos(), "search faults %q: want 1, 2 or 3 (the most faults a schedule has)", s)
		}
		b.Faults = n
	case "horizon":
		b.Horizon = p.duration(e, engine.Second, 10*engine.Minute)
	case "spike-hold":
		b.SpikeHold = p.duration(e, 100*engine.Millisecond, engine.Minute)
	case "replica", "max-states":
		s, _ := e.val.str(r, e.key)
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || (e.key == "max-states" && n > 1<<24) {
			p.bad(e.val.pos(), "search %s %q: want a whole number from 1%s", e.key, s, map[bool]string{true: " to 16777216", false: ""}[e.key == "max-states"])
		}
		if e.key == "replica" {
			b.Replica = n
		} else {
			b.MaxStates = n
		}
	case "claim":
		s, _ := e.val.str(r, "claim")
		if s != "safe" && s != "breaks" {
			p.bad(e.val.pos(), "search claim %q: want safe (no schedule within the bounds breaks it) or breaks (one does)", s)
		}
		p.sp.Claim = s
	case "harm":
		items, _ := e.val.seq(r, "search harm")
		for _, it := range items {
			s, _ := it.str(r, "a harm")
			reason, ok := engine.ParseReason(s)
			if !ok || !reason.IsViolation() {
				p.bad(it.pos(), "search harm %q: want a violation (stale-write, double-effect, acted-after-expiry, split-brain, lost-update)", s)
				continue
			}
			b.Harm = append(b.Harm, reason)
		}
	case "kinds":
		kinds, ok := parseSearchKinds(r, e.val)
		p.good = p.good && ok
		b.Kinds = kinds
	}
}

// parseSearchKinds reads kinds: a mapping of each kind to its sizes.
func parseSearchKinds(r *report, y ynode) ([]engine.SearchKind, bool) {
	kvs, ok := y.mapping(r, "search kinds")
	if !ok {
		return nil, false
	}
	knownKeys(r, kvs, "search kinds", engine.SearchKindStrings()...)
	var out []engine.SearchKind
	good := true
	for _, e := range kvs {
		kind := engine.FaultKind(e.key)
		if !slices.Contains(engine.SearchKindNames, kind) {
			good = false
			continue
		}
		k := engine.SearchKind{Name: kind}
		items, ok := e.val.seq(r, "search kinds "+e.key)
		if !ok || len(items) == 0 {
			r.errorf(e.val.pos(), "search kinds %s: list its sizes, such as [1s, 2s]", e.key)
			good = false
			continue
		}
		for _, it := range items {
			s, _ := it.str(r, "a size")
			switch kind {
			case engine.FaultDrift:
				rate, err := parseDrift(s)
				if err != nil {
					r.errorf(it.pos(), "search kinds drift %q: %v", s, err)
					good = false
				}
				k.Rates = append(k.Rates, rate)
			default:
				d, err := engine.ParseTime(s)
				if err != nil || (kind != engine.FaultJump && d <= 0) || d > engine.Hour || d < -engine.Hour {
					r.errorf(it.pos(), "search kinds %s %q: want a duration such as 2s%s", e.key, s, map[bool]string{true: " (a jump may be negative: -3s)", false: ""}[kind == engine.FaultJump])
					good = false
				}
				k.Sizes = append(k.Sizes, d)
			}
		}
		out = append(out, k)
	}
	return out, good
}

// parseDrift reads a drift as a signed share of the clock's rate: "+1%"
// runs 1% fast, "-0.5%" half a percent slow.
func parseDrift(s string) (int64, error) {
	v, ok := strings.CutSuffix(s, "%")
	f, err := strconv.ParseFloat(v, 64)
	if !ok || err != nil || f == 0 || f <= -50 || f > 50 {
		return 0, fmt.Errorf("want a signed share of the clock rate such as +1%% or -0.5%%")
	}
	if f < 0 {
		return 1_000_000 - int64(-f*10_000+0.5), nil
	}
	return 1_000_000 + int64(f*10_000+0.5), nil
}

// SearchOptions change a lab's search: how many faults, and settings that
// change the design searched (scenario options, or a challenge's policy
// options, NAME=VALUE).
type SearchOptions struct {
	Faults  int      // 0: the lab's
	Set     []string // NAME=VALUE
	Workers int      // goroutines; 0: every core
	// Context stops the search between parts when it is done (a page
	// that went away, a cancel button): RunSearch then returns its error.
	// nil: the search runs to its end.
	Context context.Context
	// Progress, when set, is told after each part (from the goroutine
	// that ran it, one call at a time) how far the search is.
	Progress func(SearchProgress)
	// Part, when set, runs each part in place of calling it directly:
	// a server wraps it to take a turn in a shared pool and to charge the
	// work to whoever asked. It must call run exactly once.
	Part func(run func())
}

// SearchProgress is how far a running search is: parts done of all, and
// the schedules decided so far.
type SearchProgress struct {
	Done      int `json:"done"`
	Parts     int `json:"parts"`
	Schedules int `json:"schedules"`
}

// SearchVerdict is the engine's verdict on a lab's design within bounds.
type SearchVerdict struct {
	engine.SearchResult
	Bounds engine.SearchBounds
	// Design says what --set changed ("storage=fencing renew-margin=3s"),
	// "" for the lab's own.
	Design string
	// Query rebuilds the shortest breaking schedule in the lab's live
	// world (seed and do= parameters, without "?"): the lab's page at
	// /{lang}/labs/ID/at?Query. Empty when none breaks it, or when the
	// design was changed in a way commands cannot say.
	Query string
	// World is the shortest breaking schedule replayed in a new world of
	// the design, with the lab's setup; nil when none breaks it.
	World *engine.World
}

// RunSearch runs the lab's search on every core (or opt.Workers), one part
// of the search per goroutine at a time. Parts are independent and merge
// in order, so the verdict and its counts are the same on any machine with
// any number of cores.
func (l *Lab) RunSearch(opt SearchOptions) (*SearchVerdict, error) {
	s, design, prefix, err := l.readySearch(opt)
	if err != nil {
		return nil, err
	}
	res, err := runParts(&s, opt)
	if err != nil {
		return nil, err
	}
	return l.verdict(&s, design, prefix, res)
}

// VerdictOf is the verdict of a search of the lab run elsewhere (a
// server's search in a process of its own, leaselab search --format
// stream): res holds its counts and, when it broke the design, the
// shortest schedule's faults and commands. The schedule is replayed here
// in a new world of the design, so the harm and the world are this
// process's own, and a schedule that does not break it is an error.
func (l *Lab) VerdictOf(opt SearchOptions, res engine.SearchResult) (*SearchVerdict, error) {
	s, design, prefix, err := l.readySearch(opt)
	if err != nil {
		return nil, err
	}
	return l.verdict(&s, design, prefix, res)
}

// SearchCheck says whether opt asks for a search of the lab that can
// run: the same errors RunSearch would give, without running it.
func (l *Lab) SearchCheck(opt SearchOptions) error {
	if l.search == nil {
		return fmt.Errorf("lab %s has no search: bounds (lab.yaml search:)", l.ID)
	}
	_, _, _, err := l.searchFor(opt)
	return err
}

// readySearch is the lab's search with opt's changes, ready to run.
func (l *Lab) readySearch(opt SearchOptions) (s engine.Search, design string, prefix []engine.Command, err error) {
	if l.search == nil {
		return s, "", nil, fmt.Errorf("lab %s has no search: bounds (lab.yaml search:)", l.ID)
	}
	s, design, prefix, err = l.searchFor(opt)
	if err != nil {
		return s, "", nil, err
	}
	s, err = s.Ready()
	return s, design, prefix, err
}

// verdict replays res's shortest breaking schedule, if any, in a new
// world of the search's design.
func (l *Lab) verdict(s *engine.Search, design string, prefix []engine.Command, res engine.SearchResult) (*SearchVerdict, error) {
	v := &SearchVerdict{SearchResult: res, Bounds: s.Bounds, Design: design}
	if res.Shortest != nil {
		br := *res.Shortest // the caller's stays as it was
		v.Shortest = &br
		sc := s.Scenario
		if l.traced != nil {
			sc = l.traced(sc)
		}
		w, err := engine.Prepare(sc)
		if err != nil {
			return nil, err
		}
		v.World = w.New(s.Scenario.Seed)
		for _, c := range s.Setup {
			if err := v.World.Apply(c); err != nil {
				return nil, err
			}
		}
		harm, err := s.Replay(v.World, &br)
		if err != nil {
			return nil, err
		}
		br.Harm = harm
		if prefix != nil {
			v.Query = searchQuery(s.Scenario.Seed, append(slices.Clone(prefix), br.Commands...))
		}
	}
	return v, nil
}

// runParts runs a ready search's parts on opt.Workers goroutines (0:
// every core) and merges them in order. It stops between parts when
// opt.Context is done.
func runParts(s *engine.Search, opt SearchOptions) (engine.SearchResult, error) {
	parts := make([]engine.SearchPart, s.Parts())
	n := opt.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	n = max(1, min(n, len(parts)))
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex // orders Progress calls and their sums
	done, schedules := 0, 0
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(parts) {
					return
				}
				run := func() {
					if ctx.Err() == nil {
						parts[i] = s.Part(i)
					}
				}
				if opt.Part != nil {
					opt.Part(run)
				} else {
					run()
				}
				if opt.Progress != nil {
					mu.Lock()
					done++
					schedules += parts[i].Schedules
					opt.Progress(SearchProgress{Done: done, Parts: len(parts), Schedules: schedules})
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return engine.SearchResult{}, err
	}
	return s.Merge(parts), nil
}

// searchFor builds the engine search of the lab's design with opt's
// changes. prefix is the commands a live session applies first to stand
// for the changes (fencing on), nil when commands cannot say them.
func (l *Lab) searchFor(opt SearchOptions) (s engine.Search, design string, prefix []engine.Command, err error) {
	if l.prepErr != nil {
		return s, "", nil, l.prepErr
	}
	sc := l.Scenario()
	var policy map[string]string
	prefix = []engine.Command{}
	var said []string
	for _, kv := range opt.Set {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return s, "", nil, fmt.Errorf("--set %q: want NAME=VALUE", kv)
		}
		said = append(said, kv)
		if c := l.challenge; c != nil && (name == "preset" || slices.ContainsFunc(c.Params, func(p Param) bool { return p.Name == name })) {
			if policy == nil {
				policy = map[string]string{}
			}
			policy[name] = val
			continue
		}
		if wname, opt, ok := strings.Cut(name, "."); ok {
			// W.option=value: one worker's option (H.renew-margin=5s).
			i := slices.IndexFunc(sc.Workers, func(w engine.WorkerSpec) bool { return w.Name == wname })
			if i < 0 {
				return s, "", nil, fmt.Errorf("--set %s: no worker %q (workers: %s)", kv, wname, strings.Join(workerNames(sc), ", "))
			}
			if err := sc.Workers[i].Set(opt, val); err != nil {
				return s, "", nil, fmt.Errorf("--set %s: %w", kv, err)
			}
			prefix = nil
			continue
		}
		if err := sc.Set(name, val); err != nil {
			return s, "", nil, fmt.Errorf("--set %s: %w", kv, err)
		}
		if name == "storage" || name == "fencing" {
			if c, err := engine.ParseCommand(name + " " + val); err == nil {
				prefix = append(prefix, c)
				continue
			}
		}
		prefix = nil // the live page cannot say this change
	}
	if c := l.challenge; c != nil {
		// A challenge lab's design is its holder's policy: the starting one,
		// or the student's.
		spec, _, err := c.withPolicy(policy)
		if err != nil {
			return s, "", nil, err
		}
		holder := spec.Scenario.Workers[slices.IndexFunc(spec.Scenario.Workers, func(w engine.WorkerSpec) bool { return w.Name == c.Holder })]
		for i := range sc.Workers {
			if sc.Workers[i].Name == c.Holder {
				sc.Workers[i] = holder
			}
		}
		if len(policy) > 0 {
			prefix = nil
		}
	} else if len(policy) > 0 {
		return s, "", nil, fmt.Errorf("lab %s has no policy to set", l.ID)
	}
	b := l.search.Bounds
	if opt.Faults != 0 {
		if opt.Faults < 1 || opt.Faults > 3 {
			return s, "", nil, fmt.Errorf("--faults %d: want 1, 2 or 3", opt.Faults)
		}
		b.Faults = opt.Faults
	}
	s = engine.Search{Scenario: sc, Bounds: b}
	for _, c := range l.setup {
		s.Setup = append(s.Setup, c.cmd)
	}
	return s, strings.Join(said, " "), prefix, nil
}

// searchQuery writes a seed and commands as a live page's parameters.
func searchQuery(seed uint64, cmds []engine.Command) string {
	var b strings.Builder
	if seed != 0 {
		b.WriteString("seed=" + strconv.FormatUint(seed, 10))
	}
	for _, c := range cmds {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString("do=" + url.QueryEscape(c.String()))
	}
	return b.String()
}

// verifyBreakGoals refuses a "break it" goal in a lab without search
// bounds: the engine could not show its shortest.
func verifyBreakGoals(r *report, l *Lab) {
	for _, g := range l.Goals {
		if g.breakFaults > 0 && l.search == nil {
			r.errorf(g.at, "goal %s: break: needs the lab's search: bounds (the kinds of fault a student may use)", g.ID)
		}
	}
}

// ProveSearches holds every lab to its search claim and makes sure each
// "break it" goal can be reached within its number of faults, searching on
// workers goroutines (0: every core); and it proves each program lab's
// reference and breaks its starting program. Loading a course does not: a
// search may take seconds, which a server starting should not spend;
// leaselab check does.
func (c *Course) ProveSearches(workers int) Problems {
	r := &report{}
	for _, l := range c.Labs {
		verifySearch(r, l, workers)
		verifyProgram(r, l)
	}
	return r.ps
}

func verifySearch(r *report, l *Lab, workers int) {
	sp := l.search
	if sp == nil {
		return
	}
	if sp.Claim != "" {
		v, err := l.RunSearch(SearchOptions{Workers: workers})
		switch {
		case err != nil:
			r.errorf(sp.at, "search: %v", err)
		case v.TooLarge:
			r.errorf(sp.at, "search: bounds too large (more than %d states in one part); give fewer kinds, sizes or faults", v.Bounds.MaxStates)
		case sp.Claim == "safe" && v.Shortest != nil:
			r.errorf(sp.at, "search claims safe, but %s breaks it (%s at %s)", faults(v.Shortest.Faults), v.Shortest.Harm.Reason(), v.Shortest.Harm.T)
		case sp.Claim == "breaks" && v.Shortest == nil:
			r.errorf(sp.at, "search claims breaks, but no schedule of at most %d faults does (%d decided)", v.Bounds.Faults, v.Schedules)
		}
	}
	for _, g := range l.Goals {
		if g.breakFaults == 0 {
			continue
		}
		v, err := l.RunSearch(SearchOptions{Faults: g.breakFaults, Workers: workers})
		if err != nil {
			r.errorf(g.at, "goal %s: search: %v", g.ID, err)
			continue
		}
		if v.Shortest == nil {
			r.errorf(g.at, "goal %s: no schedule of at most %d faults breaks the design, so a student cannot reach it", g.ID, g.breakFaults)
			continue
		}
		if ok, _ := g.pred.Eval(v.World.Events(), v.World.Names()); !ok {
			r.errorf(g.at, "goal %s: the engine's shortest breaking schedule (%s) does not make %q hold: give the search the goal's harm", g.ID, faults(v.Shortest.Faults), g.pred.String())
		}
	}
}

// faults is a schedule's faults in a problem's message: English as a
// string, and each language's own words in that language's message.
type faults []engine.SearchFault

func (fs faults) String() string        { return FaultList("en", fs) }
func (fs faults) In(lang string) string { return FaultList(lang, fs) }

// FaultList says a schedule's faults in lang's words, parted by commas.
func FaultList(lang string, fs []engine.SearchFault) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, FaultText(lang, f))
	}
	return strings.Join(parts, ", ")
}

// FaultText says one fault of a schedule in lang's words: "pause 6 s at
// 14 s", "jeda 6 dtk pada 14 dtk".
func FaultText(lang string, f engine.SearchFault) string {
	kind := catalog.T(lang, "search.kind."+string(f.Kind))
	var size []byte
	switch f.Kind {
	case engine.FaultDrift:
		size = append(size, '(')
		size = catalog.AppendNumber(size, lang, fmt.Appendf(nil, "%+.2f", float64(f.Rate-1_000_000)/10_000))
		size = append(size, "%)"...)
	case engine.FaultJump:
		if f.Size >= 0 {
			size = append(size, '+')
		} else {
			size = append(size, '-')
		}
		size = catalog.AppendTime(size, lang, max(f.Size, -f.Size))
	default:
		size = catalog.AppendTime(size, lang, f.Size)
	}
	return string(catalog.Append(nil, lang, "search.fault", catalog.Str(kind), catalog.Bytes(size), catalog.Moment(f.At)))
}

// Faults counts the faults in a session's commands since its last reset,
// as a "break it" goal counts them: each freeze, crash, partition, clock
// change, replica taken down, and link change that is not back to the
// scenario's own delay and loss. changed reports a command that changes
// the design handed to the student (storage mode, lease length), which a
// "break it" goal does not allow.
func (l *Lab) Faults(cmds []engine.Command) (faults int, changed bool) {
	for _, c := range cmds {
		switch c.Kind {
		case engine.CmdReset:
			faults, changed = 0, false
		case engine.CmdFreeze, engine.CmdCrash, engine.CmdPartition, engine.CmdClock:
			faults++
		case engine.CmdLink:
			back := (!c.HasDelay || c.Dur == l.scenario.Delay) && (!c.HasLoss || c.LossPPM == l.scenario.LossPPM)
			if !back {
				faults++
			}
		case engine.CmdReplica:
			if !c.Up {
				faults++
			}
		case engine.CmdStorage, engine.CmdLease:
			changed = true
		}
	}
	return faults, changed
}

// BreakFaults is the most faults a "break it" goal allows, 0 for any
// other goal.
func (g *Goal) BreakFaults() int { return g.breakFaults }

// Shortest is the engine's shortest schedule that breaks a "break it"
// goal's design, for the student to compare with theirs after a try.
// opt as for RunSearch; its Faults and Set are the goal's own.
func (g *Goal) Shortest(opt SearchOptions) (*SearchVerdict, error) {
	if g.breakFaults == 0 {
		return nil, fmt.Errorf("goal %s is not a break it goal", g.ID)
	}
	opt.Faults, opt.Set = g.breakFaults, nil
	return g.lab.RunSearch(opt)
}

// CompareBreak says how a student's schedule of used faults compares
// with the engine's shortest: "you used 3 faults; 1 is enough: pause 6s
// at 14s".
func CompareBreak(lang string, used int, shortest *engine.Breaking) string {
	if shortest == nil {
		return ""
	}
	n := len(shortest.Faults)
	list := FaultList(lang, shortest.Faults)
	if used > n {
		return fmt.Sprintf(catalog.T(lang, "break.more."+oneOrMany(n)), used, n, list)
	}
	return fmt.Sprintf(catalog.T(lang, "break.same."+oneOrMany(used)), used, list)
}

// oneOrMany picks a catalog text by count, for the languages that say
// one thing and many differently.
func oneOrMany(n int) string {
	if n == 1 {
		return "one"
	}
	return "many"
}

// parseBreak reads a goal's break: the most faults the student may use.
func parseBreak(r *report, y ynode) int {
	s, _ := y.str(r, "break")
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 3 {
		r.errorf(y.pos(), "break %q: want 1, 2 or 3 (the most faults the student may use)", s)
		return 0
	}
	return n
}

// breakRule says why a run that reaches a "break it" goal's harm does not
// count, or "" when it does: it used more faults than allowed, or changed
// the design it was handed.
func (g *Goal) breakRule(w *engine.World, lang string) string {
	faults, changed := g.lab.Faults(w.Commands())
	switch {
	case changed:
		return catalog.T(lang, "break.changed")
	case faults > g.breakFaults:
		return fmt.Sprintf(catalog.T(lang, "break.too-many"), faults, g.breakFaults)
	}
	return ""
}

// Prove searches every schedule within the lab's search bounds against a
// policy of the challenge (values as for Judge; names not given keep the
// lab's defaults): the "prove it within bounds" beside the random sample
// Judge plays. opt as for RunSearch; its Set is the policy's.
func (c *Challenge) Prove(values map[string]string, opt SearchOptions) (*SearchVerdict, error) {
	set, err := c.ProveSet(values)
	if err != nil {
		return nil, err
	}
	opt.Set = set
	return c.lab.RunSearch(opt)
}

// ProveSet is what Prove searches for a policy's values, as SearchOptions'
// Set (and leaselab search's --set): the preset first, then the
// challenge's options in their order.
func (c *Challenge) ProveSet(values map[string]string) ([]string, error) {
	var set []string
	for _, name := range append([]string{"preset"}, paramNames(c.Params)...) {
		if v, ok := values[name]; ok {
			set = append(set, name+"="+v)
		}
	}
	for name := range values {
		if name != "preset" && !slices.ContainsFunc(c.Params, func(p Param) bool { return p.Name == name }) {
			return nil, &ValueError{Param: name, Err: fmt.Errorf("%s is not an option of this challenge", name)}
		}
	}
	return set, nil
}

func paramNames(ps []Param) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}
