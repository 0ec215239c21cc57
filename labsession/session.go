// Package labsession is one student's run of a lab: the lab, a seed and
// the typed commands that reach the world from there. Replaying the
// commands on a new world of the lab with the seed rebuilds it exactly, so
// the session's query (its URL) is the whole session: a permalink, a
// reconnect and any replica of the server rebuild the same world from it.
//
// The live socket, the lab and permalink pages and the diagram all open
// and drive sessions through this package, so a command is parsed,
// checked, applied and recorded in one place, under one set of caps:
//
//   - at most MaxCommands commands since the last reset, and a reset drops
//     the commands before it (keeping only the storage mode it leaves), so
//     the query stays as short as the run it rebuilds and replaying a run
//     cannot grow it;
//   - at most MaxEvents events in the log: every command, time-moving or
//     not, counts against it, and a command that would pass it is refused;
//   - at most MaxVirtual of virtual time;
//   - opening a session from a query does at most MaxOpenWork events of
//     work in all, which is more than any session the server holds needs.
//
// A refused command, whatever the reason, leaves the world, its log and the
// query as they were.
package labsession

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"leaselab/engine"
	"leaselab/labs"
)

// The caps of every session.
const (
	// MaxCommands is how many commands a session holds since its last
	// reset. What a link carries, and a reconnect replays, is these and
	// the two a reset leaves before them (the storage mode and the reset).
	MaxCommands = 2000
	// maxHead is how many commands a reset leaves before the run.
	maxHead = 2
	// MaxCommandLen bounds one command's text: the longest legal one is
	// well under a hundred characters.
	MaxCommandLen = 200
	// MaxEvents bounds the log of one run: the labs' horizons are two
	// minutes at most, and a world this size renders in a few milliseconds.
	MaxEvents = 10_000
	// MaxVirtual bounds one run's virtual time.
	MaxVirtual = 10 * engine.Minute
	// MaxOpenWork bounds the events recorded while a session is opened
	// from a query, resets included. A session the server made holds at
	// most one reset and one run; twice that leaves room.
	MaxOpenWork = 2*MaxEvents + 100
	// DefaultSeed is the seed of a query that names none.
	DefaultSeed = 1
)

// LimitError is a command refused because the session is as big as it may
// grow, or a query a session cannot be opened from. It is Readable: the
// catalog says it in the student's language.
type LimitError struct {
	msg string
	key string
	arg any
}

func (e *LimitError) Error() string { return e.msg }

// Key is the catalog's text for the limit.
func (e *LimitError) Key() string { return e.key }

// Args is the limit.
func (e *LimitError) Args() []any { return []any{e.arg} }

// RefusedError is a command of a link the session left out.
type RefusedError struct {
	Src string // the command as the link wrote it, clipped
	Err error
}

func (e *RefusedError) Error() string { return fmt.Sprintf("%s: %v", Clip(e.Src), e.Err) }
func (e *RefusedError) Unwrap() error { return e.Err }

// Key is the catalog's text for a command and why it was left out.
func (e *RefusedError) Key() string { return "err.refused" }

// Args are the command (in the reader's words when it parses; clipped as
// written when not) and why it was refused.
func (e *RefusedError) Args() []any {
	if c, err := Parse(e.Src); err == nil {
		return []any{c, e.Err}
	}
	src := e.Src
	if len(src) > 60 {
		src = Clip(src)
	}
	return []any{src, e.Err}
}

// Session is one run of a lab. It is not safe for concurrent use: one
// goroutine owns it and its world.
type Session struct {
	lab   *labs.Lab
	seed  uint64
	world *engine.World
	// cmds rebuild the world: since the last reset, led by the reset and
	// the storage mode it kept, if any.
	cmds []engine.Command
	// since is the index in cmds of the first command after the last reset.
	since int
	// queryHead is Query's text for cmds[:queryOf-1], which only a reset
	// changes (the session is then a new value: queryOf 0, none written).
	queryHead string
	queryOf   int
	// run counts the runs this session has made: a reset or a replay
	// starts a new one; rebuilding a released world does not.
	run uint64
	// program is the written worker's program the session runs (a lab
	// with program:), "" for the lab's starting program; prog is it
	// compressed for the query.
	program, prog string
}

// New opens a session of lab with seed at the lab's start.
func New(lab *labs.Lab, seed uint64) (*Session, error) {
	w, err := lab.NewWorld(seed)
	if err != nil {
		return nil, fmt.Errorf("lab %s: %w", lab.ID, err)
	}
	return &Session{lab: lab, seed: seed, world: w}, nil
}

// Open opens a session of lab with seed and applies cmds in order. It
// fails on the first command refused, saying which.
func Open(lab *labs.Lab, seed uint64, cmds []engine.Command) (*Session, error) {
	s, err := New(lab, seed)
	if err != nil {
		return nil, err
	}
	work := 0
	for i, c := range cmds {
		if err := s.applyCounted(c, &work); err != nil {
			return nil, fmt.Errorf("command %d %q: %w", i+1, c, err)
		}
	}
	return s, nil
}

// FromQuery opens the session a URL's query describes: seed=N and one
// do=COMMAND per command; replay=1 replays the run at the end. A command
// that is not valid is left out and reported in refused (the last such);
// the rest still apply. err is set only when the query cannot name a
// session at all (a seed that is not a number, a lab that does not build).
func FromQuery(lab *labs.Lab, q url.Values) (s *Session, refused error, err error) {
	seed := uint64(DefaultSeed)
	if v := q.Get("seed"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil, nil, &LimitError{fmt.Sprintf("seed %s: not a number", Clip(v)), "err.seed", Clip(v)}
		}
		seed = n
	}
	src, perr := programOf(lab, q)
	base := lab
	if perr == nil && src != "" {
		if base, perr = lab.WithProgram(src); perr != nil {
			base, src = lab, ""
		}
	}
	s, err = New(base, seed)
	if err != nil {
		return nil, nil, err
	}
	if perr != nil {
		refused = perr
	}
	if src != "" {
		s.program, s.prog = src, compressProgram(src)
	}
	dos := q["do"]
	if len(dos) > MaxCommands+maxHead {
		refused = &LimitError{fmt.Sprintf("a link carries at most %d commands; the rest were left out", MaxCommands+maxHead), "err.limit.link", MaxCommands + maxHead}
		dos = dos[:MaxCommands+maxHead]
	}
	// Without script, the freeze duration comes as its own field and belongs
	// to a freeze the same form just added.
	// Each worker has its own duration list (for.W1); "for" is the older
	// single list.
	if len(dos) > 0 {
		last := dos[len(dos)-1]
		if rest, ok := strings.CutPrefix(last, "freeze "); ok && !strings.Contains(last, "for=") {
			w, _, _ := strings.Cut(strings.TrimSpace(rest), " ") // "W1" of "W1 on=check"
			d := q.Get("for." + w)
			if d == "" {
				d = q.Get("for")
			}
			if d != "" {
				dos = append(dos[:len(dos)-1:len(dos)-1], last+" for="+d)
			}
		}
	}
	work := 0
	for _, src := range dos {
		c, err := Parse(src)
		if err == nil {
			err = s.applyCounted(c, &work)
		}
		if err != nil {
			refused = &RefusedError{Src: src, Err: err}
		}
	}
	if q.Get("replay") != "" {
		if err := s.Replay(); err != nil {
			refused = fmt.Errorf("replay: %w", err)
		}
	}
	return s, refused, nil
}

// Parse reads one command as a student or a link writes it.
func Parse(src string) (engine.Command, error) {
	if len(src) > MaxCommandLen {
		return engine.Command{}, &LimitError{fmt.Sprintf("command longer than %d characters", MaxCommandLen), "err.limit.length", MaxCommandLen}
	}
	return engine.ParseCommand(strings.TrimSpace(src))
}

// Clip quotes s for an error message, shortened when long: a message never
// echoes a megabyte back.
func Clip(s string) string {
	const n = 60
	if len(s) <= n {
		return strconv.Quote(s)
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Lab is the session's lab.
func (s *Session) Lab() *labs.Lab { return s.lab }

// Seed is the session's seed.
func (s *Session) Seed() uint64 { return s.seed }

// World is the session's world. Read it; change it only through Apply.
// After Release it is rebuilt here, by replaying the commands.
func (s *Session) World() *engine.World {
	s.hold()
	return s.world
}

// Run says which run of the session the world is: it changes when a reset
// or a replay starts the run again, not when a released world is rebuilt.
// A page that shows a run's events needs to show them whole only when it
// changes.
func (s *Session) Run() uint64 { return s.run }

// Release lets the world go: a session at rest keeps only what rebuilds it
// (the lab, the seed and the commands), and World or the next command
// rebuilds it by replaying them, exactly as a reconnect would. A world at
// the event cap holds about a megabyte and rebuilds in a few milliseconds,
// so a server keeps the worlds of the sessions that play and releases the
// large ones that wait.
func (s *Session) Release() { s.world = nil }

// A Mark is a session as it was at one moment, to take it back there
// (Restore): the student's command sent while the finger is still down,
// taken back when the touch turns out to be a scroll (docs/protocol.md,
// "hold"). It keeps what rebuilds the world, not the world.
type Mark struct{ s Session }

// Mark says where the session is now.
func (s *Session) Mark() Mark {
	m := *s
	m.world = nil
	m.cmds = slices.Clone(s.cmds)
	return Mark{m}
}

// Footprint estimates the bytes m holds: its commands and query.
func (m Mark) Footprint() int { return m.s.Footprint() }

// Restore takes the session back to m, as if nothing was applied since:
// its commands, its run and its query are m's, and its world is rebuilt
// from them when next asked for (as after Release). A mark is restored
// once.
func (s *Session) Restore(m Mark) { *s = m.s }

// Held reports whether the session holds its world now (it was not
// released, or was rebuilt since).
func (s *Session) Held() bool { return s.world != nil }

// Footprint estimates the bytes the session holds: its world, when held,
// and its commands.
func (s *Session) Footprint() int {
	n := cap(s.cmds)*int(unsafe.Sizeof(engine.Command{})) + len(s.queryHead) + int(unsafe.Sizeof(*s))
	if s.world != nil {
		n += s.world.Footprint()
	}
	return n
}

// hold rebuilds a released world. The commands built it once, within the
// caps, so they build it again: an error here means the lab changed under
// the session, which a reload does not do (a session keeps its lab).
func (s *Session) hold() {
	if s.world != nil {
		return
	}
	r, err := Open(s.lab, s.seed, s.cmds)
	if err != nil {
		panic(fmt.Sprintf("labsession: rebuilding a released session of %s: %v", s.lab.ID, err))
	}
	s.world = r.world
}

// Commands is the list that rebuilds the world. Read it, do not change it.
func (s *Session) Commands() []engine.Command { return s.cmds }

// Strings is the commands as text, as a link writes them.
func (s *Session) Strings() []string {
	out := make([]string, len(s.cmds))
	for i, c := range s.cmds {
		out[i] = c.String()
	}
	return out
}

// Query writes the session as URL parameters (without "?").
func (s *Session) Query() string { return string(s.AppendQuery(nil)) }

// AppendQuery appends Query to b: a playing session's frames carry the
// query and write it without a string. It changes from frame to frame only
// in its last command (the advance that grows), so the commands before that
// one are written once.
func (s *Session) AppendQuery(b []byte) []byte {
	n := len(s.cmds)
	if head := max(n-1, 0); s.queryOf != head+1 {
		s.queryHead, s.queryOf = string(s.appendQuery(nil, s.cmds[:head])), head+1
	}
	start := len(b)
	b = append(b, s.queryHead...)
	if n == 0 {
		return b
	}
	if len(b) > start {
		b = append(b, '&')
	}
	return appendCmd(b, s.cmds[n-1])
}

// appendQuery appends the seed and cmds as URL parameters to an empty b.
func (s *Session) appendQuery(b []byte, cmds []engine.Command) []byte {
	if s.seed != 0 {
		b = append(b, "seed="...)
		b = strconv.AppendUint(b, s.seed, 10)
	}
	if s.prog != "" {
		if len(b) > 0 {
			b = append(b, '&')
		}
		b = append(b, "prog="...)
		b = append(b, s.prog...)
	}
	for _, c := range cmds {
		if len(b) > 0 {
			b = append(b, '&')
		}
		b = appendCmd(b, c)
	}
	return b
}

// appendCmd appends one command as a URL parameter.
//
// The command's text is written in place and escaped there, from its end
// back: a scratch array for it would escape to the heap, as the command
// table writes through function values the compiler cannot see into.
func appendCmd(b []byte, c engine.Command) []byte {
	b = append(b, "do="...)
	start := len(b)
	b = c.AppendTo(b)
	extra := 0
	for _, ch := range b[start:] {
		if !unreserved(ch) && ch != ' ' {
			extra += 2
		}
	}
	if extra == 0 {
		for i := start; i < len(b); i++ {
			if b[i] == ' ' {
				b[i] = '+'
			}
		}
		return b
	}
	const hex = "0123456789ABCDEF"
	r := len(b) - 1 // the last byte not yet escaped
	b = append(b, make([]byte, extra)...)
	for w := len(b) - 1; r >= start; r-- {
		switch ch := b[r]; {
		case unreserved(ch):
			b[w] = ch
			w--
		case ch == ' ':
			b[w] = '+'
			w--
		default:
			b[w], b[w-1], b[w-2] = hex[ch&15], hex[ch>>4], '%'
			w -= 3
		}
	}
	return b
}

// unreserved reports whether url.QueryEscape leaves c as it is.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
}

// appendQueryEscape appends s escaped as url.QueryEscape escapes it.
func appendQueryEscape[S string | []byte](b []byte, s S) []byte {
	const hex = "0123456789ABCDEF"
	for i := range len(s) {
		c := s[i]
		switch {
		case unreserved(c):
			b = append(b, c)
		case c == ' ':
			b = append(b, '+')
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return b
}

// Do parses src and applies it.
func (s *Session) Do(src string) error {
	c, err := Parse(src)
	if err != nil {
		return err
	}
	return s.Apply(c)
}

// Apply applies one command, or refuses it and changes nothing: a command
// the lab does not offer, one past a cap, one the engine refuses.
func (s *Session) Apply(c engine.Command) error {
	work := 0
	return s.applyCounted(c, &work)
}

// applyCounted is Apply, adding the events the command records to *work
// and refusing it when they would take *work past MaxOpenWork.
func (s *Session) applyCounted(c engine.Command, work *int) error {
	if err := s.lab.Refusal(c); err != nil {
		return err
	}
	if c.Kind == engine.CmdReset {
		return s.reset(nil, work)
	}
	s.hold()
	if err := s.check(c); err != nil {
		return err
	}
	budget := min(MaxEvents-len(s.world.Events()), MaxOpenWork-*work)
	n := len(s.world.Events())
	if err := s.world.ApplyWithin(c, budget); err != nil {
		if errors.Is(err, engine.ErrBudget) {
			if MaxOpenWork-*work < MaxEvents-n {
				return &LimitError{fmt.Sprintf("opening this session takes more than %d events of work", MaxOpenWork), "err.limit.open", MaxOpenWork}
			}
			return &LimitError{fmt.Sprintf("a session holds at most %d events; reset to start again", MaxEvents), "err.limit.events", MaxEvents}
		}
		return err
	}
	*work += len(s.world.Events()) - n
	s.record(c)
	return nil
}

// check refuses a command that would take the session past its caps of
// commands or virtual time.
func (s *Session) check(c engine.Command) error {
	if !s.merges(c) && len(s.cmds)-s.since >= MaxCommands {
		return &LimitError{fmt.Sprintf("a session holds at most %d commands; reset to start again", MaxCommands), "err.limit.commands", MaxCommands}
	}
	now := s.world.Now()
	over := false
	switch c.Kind { // the command table's time commands (MovesTime)
	case engine.CmdAdvance:
		over = c.Dur > MaxVirtual-now
	case engine.CmdUntil:
		over = c.At > MaxVirtual
	case engine.CmdStep:
		over = now >= MaxVirtual
	}
	if over {
		return &LimitError{fmt.Sprintf("a session stops at %s of virtual time; reset to start again", MaxVirtual), "err.limit.time", MaxVirtual}
	}
	return nil
}

// merges reports whether c folds into the last command: a run of advances
// is one command, so a link made after minutes of play stays short.
func (s *Session) merges(c engine.Command) bool {
	n := len(s.cmds)
	return c.Kind == engine.CmdAdvance && n > s.since && s.cmds[n-1].Kind == engine.CmdAdvance
}

func (s *Session) record(c engine.Command) {
	if s.merges(c) {
		s.cmds[len(s.cmds)-1].Dur += c.Dur
		return
	}
	s.cmds = append(s.cmds, c)
}

// reset starts the run again on a new world and applies then, keeping the
// storage mode (a switch the student set; a reset does not flip it). The
// commands before the reset are dropped: only the last storage change
// among them still matters. Nothing changes unless it all succeeds.
func (s *Session) reset(then []engine.Command, work *int) error {
	var head []engine.Command
	for i := len(s.cmds) - 1; i >= 0; i-- {
		if s.cmds[i].Kind == engine.CmdStorage {
			head = append(head, s.cmds[i])
			break
		}
	}
	head = append(head, engine.Command{Kind: engine.CmdReset})
	w, err := s.lab.NewWorld(s.seed)
	if err != nil {
		return fmt.Errorf("lab %s: %w", s.lab.ID, err)
	}
	next := &Session{lab: s.lab, seed: s.seed, world: w, run: s.run + 1}
	for _, c := range head {
		if err := w.Apply(c); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
	}
	for _, src := range s.lab.Setup() {
		if err := w.Do(src); err != nil {
			return fmt.Errorf("lab %s setup %q after reset: %w", s.lab.ID, src, err)
		}
	}
	*work += len(w.Events())
	next.cmds, next.since = head, len(head)
	for _, c := range then {
		if err := next.applyCounted(c, work); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
	}
	*s = *next
	return nil
}

// Replay runs the current run again from the start: its faults meet the
// storage as it is set now. It replaces the commands it replays, so the
// list does not grow, and it fails as a whole or not at all.
func (s *Session) Replay() error {
	var then []engine.Command
	for _, c := range s.cmds[s.since:] {
		if c.Kind != engine.CmdStorage {
			then = append(then, c)
		}
	}
	work := 0
	return s.reset(then, &work)
}
