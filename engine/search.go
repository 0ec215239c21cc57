package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Search tries every fault schedule within stated bounds, where the design
// challenge tries a random sample: at most Faults faults, of the kinds the
// bounds name, with sizes from their grid, each placed at every moment of
// the run that can matter. It either proves the design within the bounds
// (no schedule makes a harm happen) or finds the shortest schedule that
// does: fewest faults, then the earliest harm.
//
// The moments a fault may land at are every event boundary of the run it
// lands in (right after everything due at that time has happened), and,
// for a fault that lasts, the moments inside a gap between two events
// where its end would cross an event of the run (it starts so that it ends
// 1 ms after that event): starting anywhere else in the gap changes
// nothing the run could notice. A schedule with several faults is a tree:
// the search forks the world at each fault's moment, so schedules that
// share a beginning run it once, and a branch that reaches a state already
// explored with at least as many faults left (by StateHash, at the same
// virtual time, with the same fault ends still to come) stops there: its
// future was decided before. A schedule's last fault that leaves no trace
// (its world, once the fault has ended, is the world without it) takes
// its verdict from the run without it, which the search ran already.
//
// The work is split into parts by the moment of the first fault, a fixed
// number of moments each (SearchPartMoments). A part depends only on the
// search and its own range, so parts may run in any order, on any number
// of goroutines, and Merge folds them, in order, into the same verdict.
// The engine itself stays on one goroutine per part; a caller with many
// cores runs parts side by side (labs does).
type Search struct {
	Scenario Scenario
	Bounds   SearchBounds
	// Setup is applied to every new world before anything else (a lab's
	// setup: fencing on, say); a breaking schedule's commands leave it
	// out, as a session's do.
	Setup []Command

	p        *Prepared
	target   Node
	variants []variant
	spans    []Time // the distinct spans of lasting variants
	roots    []moment
	rootFut  future
	base     map[uint64]struct{}
	baseRun  SearchPart
	noPrune  bool // tests: explore every branch to its end
	setupLen int  // commands the setup records
}

// newWorld is a new world of the search with its setup applied.
func (s *Search) newWorld() (*World, error) {
	w := s.p.New(s.Scenario.Seed)
	for _, c := range s.Setup {
		if err := w.Apply(c); err != nil {
			return nil, fmt.Errorf("search: setup %s: %w", c, err)
		}
	}
	return w, nil
}

// maxSearchFaults is the most faults a schedule of a search may have.
const maxSearchFaults = 3

// SearchPartMoments is how many first-fault moments one part of a search
// explores.
const SearchPartMoments = 8

// SearchBounds are what a search tries.
type SearchBounds struct {
	Target    string       // the worker the faults hit (all kinds but replica)
	Faults    int          // at most this many faults in a schedule: 1 to 3
	Kinds     []SearchKind // the kinds of fault and their sizes
	Horizon   Time         // how long each schedule runs
	SpikeHold Time         // how long a spike lasts; default 5s
	Replica   int          // the coordinator replica a replica fault takes down; default 1
	// Harm names the violations that break the design; empty means any.
	Harm []Reason
	// MaxStates caps the states one part keeps to recognise a state seen
	// before; a part that would keep more stops, and the verdict says the
	// bounds are too large. Default 1<<20 (about 40 MB).
	MaxStates int
}

// SearchKind is one kind of fault and the sizes the search tries.
type SearchKind struct {
	// Name is pause (freeze the target), pause-at-check (freeze it the
	// moment its next check passes, before it acts on it: the pause no
	// event boundary can place, as check and act happen at one time),
	// partition (cut it off from the
	// coordinator), cut (from everyone), outage (a partition meant to
	// outlast the lease), spike (extra delay on its link to the
	// coordinator for SpikeHold), drop (its link to the coordinator loses
	// everything), drift (its clock runs at another rate from then on),
	// jump (its clock jumps) or replica (a coordinator replica is down).
	Name FaultKind
	// Sizes are durations (the extra delay for spike, a signed jump for
	// jump); Rates are drift's clock rates in ppm (1_010_000 runs 1% fast).
	Sizes []Time
	Rates []int64
}

// SearchKindStrings are SearchKindNames as text, for lists and messages.
func SearchKindStrings() []string {
	out := make([]string, len(SearchKindNames))
	for i, k := range SearchKindNames {
		out[i] = string(k)
	}
	return out
}

// SearchKindNames lists the kinds of fault a search knows.
var SearchKindNames = []FaultKind{FaultPause, FaultPauseAtCheck, FaultPartition, FaultCut, FaultOutage, FaultSpike, FaultDrop, FaultDrift, FaultJump, FaultReplica}

// SearchFault is one fault of a schedule.
type SearchFault struct {
	At   Time
	Kind FaultKind
	Size Time  // duration, extra delay (spike) or jump
	Rate int64 // drift: the clock's new rate in ppm
}

// String says the fault as a sentence fragment: "pause 6s at 14s".
func (f SearchFault) String() string {
	var b strings.Builder
	b.WriteString(string(f.Kind))
	switch f.Kind {
	case FaultDrift:
		fmt.Fprintf(&b, " %+dppm", f.Rate-1_000_000)
	case FaultJump:
		b.WriteString(" " + signed(f.Size))
	default:
		b.WriteString(" " + f.Size.String())
	}
	b.WriteString(" at " + f.At.String())
	return b.String()
}

// ParseSearchFault reads a fault as String writes it: "pause 6s at 14s",
// "drift +50ppm at 3s", "jump -2s at 5s"; ok is false for anything else.
// It reads what the program stored itself, never a person's words.
func ParseSearchFault(s string) (f SearchFault, ok bool) {
	w := strings.Fields(s)
	if len(w) != 4 || w[2] != "at" {
		return SearchFault{}, false
	}
	f.Kind = FaultKind(w[0])
	if !slices.Contains(SearchKindNames, f.Kind) {
		return SearchFault{}, false
	}
	var err error
	if f.Kind == FaultDrift {
		var n int64
		n, err = strconv.ParseInt(strings.TrimSuffix(w[1], "ppm"), 10, 64)
		if !strings.HasSuffix(w[1], "ppm") {
			return SearchFault{}, false
		}
		f.Rate = 1_000_000 + n
	} else {
		f.Size, err = ParseTime(w[1])
	}
	if err != nil {
		return SearchFault{}, false
	}
	if f.At, err = ParseTime(w[3]); err != nil {
		return SearchFault{}, false
	}
	return f, true
}

// Breaking is a schedule that breaks the design.
type Breaking struct {
	Faults []SearchFault
	// Commands replay the schedule in a new world of the search's scenario
	// (the lab's setup applied first, as for any session).
	Commands []Command
	// Harm is the first violation that counts; its log indexes (Ref,
	// Ref2) are those of the replayed run only after Replay.
	Harm Event
}

// SearchPart is what one part of a search found.
type SearchPart struct {
	Schedules int  // schedules decided: run to the horizon, or to a harm
	Broken    int  // of those, how many broke the design
	States    int  // states kept to recognise them again
	Pruned    int  // branches cut at a state explored before
	TooLarge  bool // the part stopped at MaxStates
	Shortest  *Breaking
}

// SearchResult is a search's verdict.
type SearchResult struct {
	SearchPart
	Moments int // moments of the unfaulted run where a first fault may land
	Parts   int
}

type variant struct {
	kind int // index in SearchKindNames
	size Time
	rate int64
	span Time // how long until its end commands (0: it has none)
	// start and end are its commands (commands), made once in Ready:
	// a search lands a variant millions of times.
	start, end []Command
}

// moment is a time a fault may land at: at an event boundary any variant
// may, inside a gap only lasting variants whose span is in spans (a bit
// for each of Search.spans).
type moment struct {
	at       Time
	boundary bool
	spans    uint64
}

// future is a branch's run with no more faults, as moments found it: the
// state (hash) after each event time, and the harms. A leaf whose state
// meets it at one of those times goes on as it does from there.
type future struct {
	times  []Time
	hashes []uint64
	harms  []Event
}

// pending is a fault's end, applied when time reaches at.
type pending struct {
	at  Time
	cmd Command
}

// branch is one world of the search tree and how it got there.
type branch struct {
	w       *World
	pend    []pending
	faults  []SearchFault
	scanned int // events of w's log already checked for harm
}

// Ready checks the search, runs the unfaulted schedule and lists the
// moments of its first faults. A caller that runs the parts itself starts
// from the search Ready returns.
func (s Search) Ready() (Search, error) {
	b := &s.Bounds
	if b.Faults < 1 || b.Faults > maxSearchFaults {
		return s, fmt.Errorf("search: faults must be 1, 2 or 3, not %d", b.Faults)
	}
	if b.Horizon <= 0 {
		return s, fmt.Errorf("search: the horizon must be positive")
	}
	if b.SpikeHold == 0 {
		b.SpikeHold = 5 * Second
	}
	if b.Replica == 0 {
		b.Replica = 1
	}
	if b.MaxStates == 0 {
		b.MaxStates = 1 << 20
	}
	p, err := Prepare(s.Scenario)
	if err != nil {
		return s, err
	}
	s.p = p
	if b.Replica < 1 || b.Replica > p.sc.Replicas {
		return s, fmt.Errorf("search: replica %d: there are replicas 1 to %d", b.Replica, p.sc.Replicas)
	}
	s.target = NoNode
	for i, n := range p.names.Nodes {
		if n == b.Target {
			s.target = Node(i)
		}
	}
	if err := s.readKinds(); err != nil {
		return s, err
	}
	return s, s.runUnfaulted()
}

// readKinds checks the bounds' kinds of fault and makes their variants,
// each with its commands, and the spans of those that last.
func (s *Search) readKinds() error {
	b := &s.Bounds
	s.variants, s.spans = nil, nil
	for _, k := range b.Kinds {
		ki := slices.Index(SearchKindNames, k.Name)
		if ki < 0 {
			return fmt.Errorf("search: unknown kind of fault %q (want one of %s)", k.Name, strings.Join(SearchKindStrings(), ", "))
		}
		if k.Name != FaultReplica && s.target == NoNode {
			return fmt.Errorf("search: a %s needs a target worker, and %q is not one (workers: %s)", k.Name, b.Target, strings.Join(s.p.names.Nodes, ", "))
		}
		vs, err := kindVariants(k, ki, b)
		if err != nil {
			return err
		}
		for _, v := range vs {
			s.variants = append(s.variants, v)
			if v.span > 0 && !slices.Contains(s.spans, v.span) {
				if len(s.spans) == 64 {
					return fmt.Errorf("search: at most 64 different durations")
				}
				s.spans = append(s.spans, v.span)
			}
		}
	}
	for i := range s.variants {
		s.variants[i].start, s.variants[i].end = s.commands(s.variants[i])
	}
	if len(s.variants) == 0 {
		return fmt.Errorf("search: name at least one kind of fault")
	}
	slices.Sort(s.spans)
	return nil
}

// kindVariants are the variants of one kind of fault (index ki in
// SearchKindNames): a drift for each rate, any other kind for each size,
// each size checked against the kind's range.
func kindVariants(k SearchKind, ki int, b *SearchBounds) ([]variant, error) {
	var vs []variant
	if k.Name == FaultDrift {
		if len(k.Rates) == 0 {
			return nil, fmt.Errorf("search: drift needs rates")
		}
		for _, r := range k.Rates {
			if r < 1000 || r > 100_000_000 {
				return nil, fmt.Errorf("search: drift rate %d ppm out of range", r)
			}
			vs = append(vs, variant{kind: ki, rate: r})
		}
		return vs, nil
	}
	if len(k.Sizes) == 0 {
		return nil, fmt.Errorf("search: %s needs sizes", k.Name)
	}
	for _, sz := range k.Sizes {
		v := variant{kind: ki, size: sz}
		switch k.Name {
		case FaultJump:
			if sz == 0 || sz > Hour || sz < -Hour {
				return nil, fmt.Errorf("search: a jump is not zero and at most an hour either way, not %s", sz)
			}
		case "pause-at-check":
			if sz <= 0 || sz >= b.Horizon {
				return nil, fmt.Errorf("search: a pause lasts more than 0s and less than the horizon (%s), not %s", b.Horizon, sz)
			}
		case FaultSpike:
			if sz <= 0 || sz > Hour {
				return nil, fmt.Errorf("search: a spike's extra delay is more than 0s and at most an hour, not %s", sz)
			}
			v.span = b.SpikeHold
		default:
			if sz <= 0 || sz >= b.Horizon {
				return nil, fmt.Errorf("search: a %s lasts more than 0s and less than the horizon (%s), not %s", k.Name, b.Horizon, sz)
			}
			v.span = sz
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// runUnfaulted runs the schedule without faults: its moments are where
// first faults land, and its states, with every fault still to place,
// outrank any later branch that reaches one of them.
func (s *Search) runUnfaulted() error {
	w0, err := s.newWorld()
	if err != nil {
		return err
	}
	s.setupLen = len(w0.cmds)
	root := &branch{w: w0, scanned: len(w0.log)}
	s.baseRun = SearchPart{}
	s.base = map[uint64]struct{}{}
	var spare *World
	s.roots, s.rootFut = s.moments(root, &spare)
	var scratch []item
	for _, m := range s.roots {
		s.advance(root, m.at)
		if s.decide(root, &s.baseRun) {
			s.roots = nil
			return nil
		}
		s.base[s.hash(root, &scratch)] = struct{}{}
		if len(s.base) > s.Bounds.MaxStates {
			s.baseRun.TooLarge = true
			s.roots = nil
			return nil
		}
	}
	s.advance(root, s.Bounds.Horizon)
	if s.decide(root, &s.baseRun) {
		s.roots = nil
	} else {
		s.baseRun.Schedules++
	}
	s.baseRun.States = len(s.base)
	return nil
}

// Parts is how many parts the search is split into.
func (s *Search) Parts() int {
	return (len(s.roots) + SearchPartMoments - 1) / SearchPartMoments
}

// Part explores the schedules whose first fault lands at the moments of
// part i. It reads the search and changes nothing in it: parts may run on
// different goroutines at once.
func (s *Search) Part(i int) SearchPart {
	var part SearchPart
	lo := i * SearchPartMoments
	hi := min(lo+SearchPartMoments, len(s.roots))
	if lo >= hi {
		return part
	}
	x := explorer{s: s, part: &part, seen: map[uint64]int8{}}
	w0, err := s.newWorld()
	if err != nil {
		return part // Ready built it before
	}
	walker := &branch{w: w0, scanned: len(w0.log)}
	for _, m := range s.roots[lo:hi] {
		s.advance(walker, m.at)
		x.forkAll(walker, m, s.Bounds.Faults, &s.rootFut)
		if part.TooLarge {
			break
		}
	}
	part.States = len(x.seen)
	return part
}

// Merge folds the parts, in order, into the verdict.
func (s *Search) Merge(parts []SearchPart) SearchResult {
	res := SearchResult{SearchPart: s.baseRun, Moments: len(s.roots), Parts: len(parts)}
	for i := range parts {
		p := &parts[i]
		res.Schedules += p.Schedules
		res.Broken += p.Broken
		res.States += p.States
		res.Pruned += p.Pruned
		res.TooLarge = res.TooLarge || p.TooLarge
		if p.Shortest != nil && (res.Shortest == nil || shorterBreak(p.Shortest, res.Shortest)) {
			res.Shortest = p.Shortest
		}
	}
	return res
}

// Run is the whole search on one goroutine.
func (s Search) Run() (SearchResult, error) {
	s, err := s.Ready()
	if err != nil {
		return SearchResult{}, err
	}
	parts := make([]SearchPart, s.Parts())
	for i := range parts {
		parts[i] = s.Part(i)
	}
	return s.Merge(parts), nil
}

// Replay runs a breaking schedule in w, a new world of the search's
// scenario, and returns the harm as that world's log has it: the same
// violation at the same time as the search found.
func (s *Search) Replay(w *World, br *Breaking) (Event, error) {
	for _, c := range br.Commands {
		if err := w.Apply(c); err != nil {
			return Event{}, fmt.Errorf("replay %s: %w", c, err)
		}
	}
	for _, e := range w.Events() {
		if s.harmful(e) {
			return e, nil
		}
	}
	return Event{}, fmt.Errorf("replay: no harm happened")
}

// explorer is one part's walk of the tree.
type explorer struct {
	s       *Search
	part    *SearchPart
	seen    map[uint64]int8 // state → the most faults it had left when explored
	scratch []item
	leaf    *World    // the last leaf's world, for the next one
	pend    []pending // and its fault ends
	look    *World    // the last look ahead's world (moments)
	// spare holds, by faults left, the world of the last branch explored
	// with that many: its siblings run in its room one after another, so
	// a search allocates a world per depth, not one per branch.
	spare    [maxSearchFaults + 1]*World
	pends    [maxSearchFaults + 1][]pending
	faults   [maxSearchFaults + 1][]SearchFault
	branches [maxSearchFaults + 1]branch
}

// forkAll lands every variant that may land at moment m in its own fork
// of b, and explores each with k-1 faults left.
func (x *explorer) forkAll(b *branch, m moment, k int, fut *future) {
	for _, v := range x.s.variants {
		if !m.boundary && (v.span == 0 || m.spans&(1<<slices.Index(x.s.spans, v.span)) == 0) {
			continue
		}
		var spare *World
		if k == 1 {
			// A leaf: it runs out and is done with, so the next one
			// runs in its room.
			spare, x.leaf = x.leaf, nil
		} else {
			// A branch is done with once explored, too: the branches
			// below it have their own rooms (spare[k-1] and below).
			spare, x.spare[k] = x.spare[k], nil
		}
		// The branch, its pending ends and its faults live in rooms kept
		// by depth, like its world: one sibling is explored at a time.
		c := &x.branches[k]
		pend := x.pend
		if k > 1 {
			pend = x.pends[k]
		}
		*c = branch{w: b.w.forkInto(spare), pend: append(pend[:0], b.pend...)}
		x.pend = nil
		landed := x.s.land(c, v, b.faults, x.faults[k][:0])
		room := c.pend // from its start: exploring takes ends off its front
		if landed {
			if k == 1 {
				x.leaf1(c, v, fut)
			} else {
				x.explore(c, k-1)
			}
		}
		if k == 1 {
			x.leaf, x.pend = c.w, room
		} else {
			x.spare[k], x.pends[k] = c.w, room
		}
		x.faults[k] = c.faults
		if x.part.TooLarge {
			return
		}
	}
}

// explore decides every schedule that continues b with at most k more
// faults.
func (x *explorer) explore(b *branch, k int) {
	s := x.s
	if s.decide(b, x.part) {
		return
	}
	if k > 0 {
		ms, fut := s.moments(b, &x.look)
		for _, m := range ms {
			s.advance(b, m.at)
			if s.decide(b, x.part) {
				return
			}
			if s.noPrune {
				x.forkAll(b, m, k, &fut)
				continue
			}
			h := s.hash(b, &x.scratch)
			if _, ok := s.base[h]; ok {
				x.part.Pruned++
				return
			}
			if kk, ok := x.seen[h]; ok && int(kk) >= k {
				x.part.Pruned++
				return
			}
			if len(x.seen) >= s.Bounds.MaxStates {
				x.part.TooLarge = true
				return
			}
			x.seen[h] = int8(k)
			x.forkAll(b, m, k, &fut)
			if x.part.TooLarge {
				return
			}
		}
	}
	s.advance(b, s.Bounds.Horizon)
	if !s.decide(b, x.part) {
		x.part.Schedules++
	}
}

// leaf1 decides the schedule of leaf b, whose last fault v has just
// landed. A fault that ends leaves no trace when, at the first event time
// of the unfaulted future at or after its end, the leaf's state is that
// future's: from there the leaf does what the future does, so its verdict
// is the future's harm after that time, without running it.
func (x *explorer) leaf1(b *branch, v variant, fut *future) {
	s := x.s
	if v.span == 0 || s.noPrune {
		x.explore(b, 0)
		return
	}
	i, _ := slices.BinarySearch(fut.times, b.w.now+v.span)
	if i == len(fut.times) {
		x.explore(b, 0)
		return
	}
	t := fut.times[i]
	s.advance(b, t)
	if s.decide(b, x.part) {
		return
	}
	if s.hash(b, &x.scratch) != fut.hashes[i] {
		x.explore(b, 0)
		return
	}
	x.part.Schedules++
	for _, e := range fut.harms {
		if e.T > t {
			x.part.Broken++
			s.record(b, e, x.part)
			return
		}
	}
}

// decide checks the events b recorded since it was last checked; on a
// harm it records the schedule as decided and broken, and reports true.
func (s *Search) decide(b *branch, part *SearchPart) bool {
	evs := b.w.log
	for i := b.scanned; i < len(evs); i++ {
		if !s.harmful(evs[i]) {
			continue
		}
		part.Broken++
		part.Schedules++
		s.record(b, evs[i], part)
		b.scanned = len(evs)
		return true
	}
	b.scanned = len(evs)
	return false
}

// record keeps b's schedule, broken by harm, when it is the part's
// shortest so far.
func (s *Search) record(b *branch, harm Event, part *SearchPart) {
	br := &Breaking{Faults: b.faults, Harm: harm}
	if part.Shortest == nil || shorterBreak(br, part.Shortest) {
		br.Faults = slices.Clone(b.faults)
		br.Commands = append(slices.Clone(b.w.cmds[s.setupLen:]), Command{Kind: CmdUntil, At: s.Bounds.Horizon})
		part.Shortest = br
	}
}

func (s *Search) harmful(e Event) bool {
	if e.Kind != KindViolation {
		return false
	}
	return len(s.Bounds.Harm) == 0 || slices.Contains(s.Bounds.Harm, e.Reason())
}

// shorterBreak orders breaking schedules: fewer faults, then the earlier
// harm, then the earlier faults, so that the shortest is one schedule
// whatever order the parts ran in.
func shorterBreak(a, b *Breaking) bool {
	if len(a.Faults) != len(b.Faults) {
		return len(a.Faults) < len(b.Faults)
	}
	if a.Harm.T != b.Harm.T {
		return a.Harm.T < b.Harm.T
	}
	for i := range a.Faults {
		fa, fb := a.Faults[i], b.Faults[i]
		if fa.At != fb.At {
			return fa.At < fb.At
		}
		if ka, kb := slices.Index(SearchKindNames, fa.Kind), slices.Index(SearchKindNames, fb.Kind); ka != kb {
			return ka < kb
		}
		if fa.Size != fb.Size {
			return fa.Size < fb.Size
		}
		if fa.Rate != fb.Rate {
			return fa.Rate < fb.Rate
		}
	}
	return false
}

// hash is the branch's state: its world and the fault ends still to come.
func (s *Search) hash(b *branch, scratch *[]item) uint64 {
	h := hasher{h: b.w.stateHash(scratch)}
	for _, p := range b.pend {
		h.int(int64(p.at))
		h.word(hashCommand(p.cmd))
	}
	return h.sum()
}

func hashCommand(c Command) uint64 {
	var h hasher
	for _, b := range c.AppendTo(nil) {
		h.word(uint64(b))
	}
	return h.sum()
}

// advance runs b to time t, applying the fault ends due by then.
func (s *Search) advance(b *branch, t Time) {
	w := b.w
	for len(b.pend) > 0 && b.pend[0].at <= t {
		p := b.pend[0]
		b.pend = b.pend[1:]
		w.budget = replayBudget
		_ = w.runUntil(p.at) // within replayBudget nothing is refused
		_ = s.apply(w, p.cmd)
	}
	if t >= w.now {
		w.budget = replayBudget
		_ = w.runUntil(t)
	}
}

// apply applies a fault's command where b's world is now and records it,
// after an until to now, so that its command list replays the schedule.
func (s *Search) apply(w *World, c Command) error {
	if err := w.validate(c); err != nil {
		return err
	}
	if n := len(w.cmds); w.now > 0 && (n == 0 || w.cmds[n-1].Kind != CmdUntil || w.cmds[n-1].At != w.now) {
		w.cmds = append(w.cmds, Command{Kind: CmdUntil, At: w.now})
	}
	w.record(c)
	return w.run(c, replayBudget)
}

// land applies variant v to b at b's moment; false when the world refuses
// it there.
// The faults of b are before and v's, written into room (a slice of
// length 0 that b may keep).
func (s *Search) land(b *branch, v variant, before, room []SearchFault) bool {
	for _, c := range v.start {
		if s.apply(b.w, c) != nil {
			return false
		}
	}
	at := b.w.now
	for _, c := range v.end {
		b.pend = append(b.pend, pending{at: at + v.span, cmd: c})
	}
	slices.SortStableFunc(b.pend, func(x, y pending) int { return int(x.at - y.at) })
	b.faults = append(append(room, before...), SearchFault{At: at, Kind: SearchKindNames[v.kind], Size: v.size, Rate: v.rate})
	return true
}

// commands are the commands that start and end a variant.
func (s *Search) commands(v variant) (start, end []Command) {
	t := s.p.names.Nodes
	name := ""
	if s.target != NoNode {
		name = t[s.target]
	}
	sc := &s.p.sc
	switch SearchKindNames[v.kind] {
	case FaultPause:
		return []Command{{Kind: CmdFreeze, A: name, Dur: v.size}}, nil
	case FaultPauseAtCheck:
		return []Command{{Kind: CmdFreeze, A: name, Dur: v.size, On: KindCheck}}, nil
	case FaultPartition, FaultOutage:
		return []Command{{Kind: CmdPartition, A: name, B: "coord"}}, []Command{{Kind: CmdHeal, A: name, B: "coord"}}
	case FaultCut:
		return []Command{{Kind: CmdPartition, A: name}}, []Command{{Kind: CmdHeal, A: name}}
	case FaultSpike:
		return []Command{{Kind: CmdLink, A: name, B: "coord", HasDelay: true, Dur: sc.Delay + v.size}},
			[]Command{{Kind: CmdLink, A: name, B: "coord", HasDelay: true, Dur: sc.Delay}}
	case FaultDrop:
		return []Command{{Kind: CmdLink, A: name, B: "coord", HasLoss: true, LossPPM: 1_000_000}},
			[]Command{{Kind: CmdLink, A: name, B: "coord", HasLoss: true, LossPPM: sc.LossPPM}}
	case FaultDrift:
		return []Command{{Kind: CmdClock, A: name, HasRate: true, Rate: v.rate}}, nil
	case FaultJump:
		return []Command{{Kind: CmdClock, A: name, HasJump: true, Jump: v.size}}, nil
	case FaultReplica:
		return []Command{{Kind: CmdReplica, Replica: s.Bounds.Replica}}, []Command{{Kind: CmdReplica, Replica: s.Bounds.Replica, Up: true}}
	}
	return nil, nil
}

// moments lists where the next fault may land in b's future, up to the
// horizon: every time at which an event happens, and the starts inside a
// gap from which a lasting fault would end 1 ms after an event. It runs a
// fork of b to find them.
func (s *Search) moments(b *branch, spare **World) ([]moment, future) {
	look := &branch{w: b.w.forkInto(*spare), pend: slices.Clone(b.pend)}
	*spare = look.w
	w := look.w
	var times []Time
	var fut future
	var scratch []item
	for {
		next := Never
		if len(w.q) > 0 {
			next = w.q[0].at
		}
		if len(look.pend) > 0 && look.pend[0].at < next {
			next = look.pend[0].at
		}
		if next > s.Bounds.Horizon || next == Never {
			break
		}
		n := len(w.log)
		s.advance(look, next)
		for _, e := range w.log[n:] {
			if s.harmful(e) {
				fut.harms = append(fut.harms, e)
			}
		}
		if len(w.log) > n && next > b.w.now && (len(times) == 0 || times[len(times)-1] != next) {
			times = append(times, next)
			fut.hashes = append(fut.hashes, s.hash(look, &scratch))
		}
		if len(w.q) == 0 && len(look.pend) == 0 {
			break
		}
	}
	ms := make([]moment, 0, len(times)*(1+len(s.spans)))
	for _, t := range times {
		ms = append(ms, moment{at: t, boundary: true})
	}
	for i, sp := range s.spans {
		for _, e := range times {
			at := e - sp + 1
			if at <= b.w.now || at >= s.Bounds.Horizon {
				continue
			}
			if _, hit := slices.BinarySearch(times, at); hit {
				continue
			}
			ms = append(ms, moment{at: at, spans: 1 << i})
		}
	}
	slices.SortFunc(ms, func(a, b moment) int { return int(a.at - b.at) })
	// One moment a time: the spans whose ends cross an event from there.
	out := ms[:0]
	for _, m := range ms {
		if n := len(out); n > 0 && out[n-1].at == m.at {
			out[n-1].boundary = out[n-1].boundary || m.boundary
			out[n-1].spans |= m.spans
			continue
		}
		out = append(out, m)
	}
	fut.times = times
	return out, fut
}
