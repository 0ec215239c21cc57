package labs

import (
	"errors"
	"fmt"
	"html/template"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"leaselab/catalog"
	"leaselab/engine"
)

var idRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

func checkID(r *report, y ynode, id, what string) bool {
	if !idRE.MatchString(id) {
		r.errorf(y.pos(), "%s id %q: use lower-case letters, digits and -, at most 64", what, id)
		return false
	}
	return true
}

// The keys each part of a lab file may have. lab.schema.json offers the
// same (a test holds them together).
var (
	labFileKeys   = []string{"id", "scenario", "setup", "horizon", "controls", "panels", "questions", "goals", "challenge", "measured", "search", "program"}
	questionKeys  = []string{"id", "variant", "run", "choices", "hints", "answer"}
	choiceKeys    = []string{"id", "holds"}
	goalKeys      = []string{"id", "holds", "proof", "break"}
	challengeKeys = []string{"holder", "runs", "seed", "horizon", "faults", "survive", "policy"}
)

// knownKeys reports keys that are not among want.
func knownKeys(r *report, kvs []kv, what string, want ...string) {
	for _, e := range kvs {
		if !slices.Contains(want, e.key) {
			if near, ok := nearest(e.key, want); ok {
				r.errorf(e.keyAt.pos(), "unknown key %q in %s: did you mean %q? (want %s)", e.key, what, near, strings.Join(want, ", "))
				continue
			}
			r.errorf(e.keyAt.pos(), "unknown key %q in %s (want %s)", e.key, what, strings.Join(want, ", "))
		}
	}
}

// nearest is the word of choices within two typing mistakes of word, the
// nearest first, if one is.
func nearest(word string, choices []string) (string, bool) {
	best, bestD := "", 3
	if len(word) < 3 {
		return "", false
	}
	for _, c := range choices {
		if d := editDistance(word, c); d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	return best, best != ""
}

// commandHint is what a command that did not parse was meant to be: the
// command word nearest its first word ("did you mean `freeze`?"), else
// the list of command words, when the first word starts none.
func commandHint(s string) (near, words string) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return "", ""
	}
	all := engine.CommandWords()
	if slices.Contains(all, f[0]) {
		return "", "" // the form is wrong, and the engine says which it wants
	}
	if near, ok := nearest(f[0], all); ok {
		return near, ""
	}
	return "", strings.Join(all, ", ")
}

// parseLabFile reads a lab's language-neutral file. It returns nil when
// the file is too broken to use; problems go to r.
func parseLabFile(r *report, file string, data []byte) *Lab {
	root, ok := parseYAML(r, file, data, 0)
	if !ok {
		return nil
	}
	y := ynode{n: root, file: file}
	kvs, ok := y.mapping(r, "a lab file")
	if !ok {
		return nil
	}
	knownKeys(r, kvs, "a lab file", labFileKeys...)
	l := &Lab{file: file, at: pos{file, 1, 1}, horizon: 60 * engine.Second}
	fields := map[string]ynode{}
	for _, e := range kvs {
		fields[e.key] = e.val
	}
	if v, ok := fields["id"]; ok {
		if s, ok := v.str(r, "id"); ok && checkID(r, v, s, "lab") {
			l.ID, l.at = s, v.pos()
		}
	} else {
		r.errorf(y.pos(), "a lab file needs id: the lab's id")
	}
	sv, ok := fields["scenario"]
	if !ok {
		r.errorf(y.pos(), "a lab file needs scenario: with at least its workers")
		return nil
	}
	sc, ok := parseScenario(r, sv, engine.Scenario{}, false)
	if !ok {
		return nil
	}
	l.scenario = sc
	l.prepared, l.prepErr = engine.Prepare(sc)
	if v, ok := fields["horizon"]; ok {
		l.readHorizon(r, v)
	}
	l.setup = parseCommands(r, fields["setup"], "setup")
	if v, ok := fields["controls"]; ok {
		l.controls = parseControls(r, v)
		l.checkLeaseControls(r, v)
		l.checkLinkWorkers(r)
	}
	l.panels = parsePanels(r, fields["panels"])
	if v, ok := fields["questions"]; ok {
		l.readQuestions(r, v)
	}
	if v, ok := fields["goals"]; ok {
		l.readGoals(r, v)
	}
	if v, ok := fields["challenge"]; ok {
		l.challenge = parseChallenge(r, l, v)
	}
	if v, ok := fields["measured"]; ok {
		l.measured = parseMeasured(r, l, v)
	}
	if v, ok := fields["search"]; ok {
		l.search = parseSearch(r, l, v)
	}
	if v, ok := fields["program"]; ok {
		l.program = parseProgramSpec(r, l, v)
	}
	if len(l.Questions) == 0 && len(l.Goals) == 0 && l.challenge == nil && l.measured == nil && l.program == nil {
		r.warnf(y.pos(), "lab has no questions and no goals")
	}
	if l.ID == "" {
		return nil
	}
	return l
}

func (l *Lab) readHorizon(r *report, v ynode) {
	s, ok := v.str(r, "horizon")
	if !ok {
		return
	}
	if d, err := engine.ParseTime(s); err != nil || d <= 0 {
		r.errorf(v.pos(), "horizon %q: want a positive duration such as 60s", s)
	} else {
		l.horizon = d
	}
}

// checkLeaseControls checks that each lease length the controls offer is
// one the engine takes in this lab's world.
func (l *Lab) checkLeaseControls(r *report, v ynode) {
	c := l.controls
	if c == nil {
		return
	}
	for _, d := range c.Lease {
		w, err := engine.New(l.scenario)
		if err != nil {
			return // the scenario's own error is reported already
		}
		if err := w.Apply(engine.Command{Kind: engine.CmdLease, Dur: d}); err != nil {
			r.errorf(v.pos(), "controls.lease: %s: %v", d, err)
		}
	}
}

// checkLinkWorkers checks that the workers controls.link names are the
// scenario's.
func (l *Lab) checkLinkWorkers(r *report) {
	if l.controls == nil || l.controls.Link == nil {
		return
	}
	lc := l.controls.Link
	for _, w := range lc.Workers {
		if !slices.Contains(workerNames(l.scenario), w) {
			r.errorf(lc.workersAt, "controls.link.workers: %q is not a worker of the scenario (%s)", w, strings.Join(workerNames(l.scenario), ", "))
		}
	}
}

func (l *Lab) readQuestions(r *report, v ynode) {
	items, _ := v.seq(r, "questions")
	for _, it := range items {
		q := parseQuestion(r, l, it)
		switch {
		case q == nil:
			l.broken = append(l.broken, idOf(it))
		case l.Question(q.ID) != nil:
			r.errorf(q.at, "duplicate question id %q", q.ID)
		default:
			l.Questions = append(l.Questions, q)
		}
	}
}

func (l *Lab) readGoals(r *report, v ynode) {
	items, _ := v.seq(r, "goals")
	for _, it := range items {
		g := parseGoal(r, l, it)
		switch {
		case g == nil:
			l.broken = append(l.broken, idOf(it))
		case l.Goal(g.ID) != nil:
			r.errorf(g.at, "duplicate goal id %q", g.ID)
		default:
			l.Goals = append(l.Goals, g)
		}
	}
}

// Panels a lab may show beside its live world (and in its answers).
var knownPanels = []string{"signals"}

func parsePanels(r *report, y ynode) []string {
	if y.n == nil {
		return nil
	}
	items, _ := y.seq(r, "panels")
	var out []string
	for _, it := range items {
		s, ok := it.str(r, "a panel")
		if !ok {
			continue
		}
		switch {
		case !slices.Contains(knownPanels, s):
			r.errorf(it.pos(), "unknown panel %q (panels: %s)", s, strings.Join(knownPanels, ", "))
		case slices.Contains(out, s):
			r.errorf(it.pos(), "panel %q is listed twice", s)
		default:
			out = append(out, s)
		}
	}
	return out
}

// idOf is the id: of an item that did not parse, so that its words are
// not reported a second time as unknown.
func idOf(y ynode) string {
	kvs, _ := y.mapping(&report{}, "")
	for _, e := range kvs {
		if s, _ := e.val.scalar(); e.key == "id" {
			return s
		}
	}
	return ""
}

func workerNames(sc engine.Scenario) []string {
	var out []string
	for _, w := range sc.Workers {
		out = append(out, w.Name)
	}
	return out
}

// parseScenario applies a scenario mapping on top of base. In a variant,
// workers replace workers of the same name and may not add new ones.
func parseScenario(r *report, y ynode, base engine.Scenario, variant bool) (engine.Scenario, bool) {
	what := "scenario"
	if variant {
		what = "variant"
	}
	kvs, ok := y.mapping(r, what)
	if !ok {
		return base, false
	}
	sc := copyScenario(base)
	good := true
	sawWorkers := false
	for _, e := range kvs {
		if e.key == "workers" {
			sawWorkers = true
			good = readWorkers(r, e, &sc, variant) && good
			continue
		}
		val, ok := e.val.str(r, e.key)
		if !ok {
			good = false
			continue
		}
		if err := sc.Set(e.key, val); err != nil {
			at := e.val.pos()
			var unknown *engine.UnknownOptionError
			near, ok := "", false
			if errors.As(err, &unknown) {
				at = e.keyAt.pos()
				near, ok = nearest(unknown.Key, engine.OptionNames(unknown.Of))
			}
			if ok {
				r.errorf(at, "%s: %v: did you mean %q?", what, err, near)
			} else {
				r.errorf(at, "%s: %v", what, err)
			}
			good = false
		}
	}
	if !variant && !sawWorkers {
		r.errorf(y.pos(), "the scenario needs workers:, one line per worker such as \"W1: acquire; work 5s; write file\"")
		return sc, false
	}
	if good {
		if err := sc.Validate(); err != nil {
			r.errorf(y.pos(), "%s: %v", what, err)
			good = false
		}
	}
	return sc, good
}

// readWorkers reads a scenario's workers: into sc, where a variant's
// workers replace the scenario's of the same name; false when any is wrong.
func readWorkers(r *report, e kv, sc *engine.Scenario, variant bool) bool {
	wkvs, ok := e.val.mapping(r, "workers")
	if !ok {
		return false
	}
	good := true
	if len(wkvs) == 0 {
		r.errorf(e.val.pos(), "workers: list at least one worker as NAME [options]: program")
		good = false
	}
	for _, w := range wkvs {
		prog, ok := w.val.str(r, "a worker's program")
		if !ok {
			good = false
			continue
		}
		ws, err := engine.ParseWorker(w.key + ": " + prog)
		if err != nil {
			at := w.keyAt.pos()
			var step *engine.StepError
			if errors.As(err, &step) {
				at = w.val.pos()
			}
			near, ok := "", false
			var unknown *engine.UnknownOptionError
			if errors.As(err, &unknown) {
				near, ok = nearest(unknown.Key, engine.OptionNames(unknown.Of))
			}
			if name := strings.Fields(w.key + " ?")[0]; ok {
				r.errorf(at, "worker %s: %v: did you mean %q?", name, err, near)
			} else {
				r.errorf(at, "worker %s: %v", name, err)
			}
			good = false
			continue
		}
		i := slices.IndexFunc(sc.Workers, func(x engine.WorkerSpec) bool { return x.Name == ws.Name })
		switch {
		case variant && i < 0:
			r.errorf(w.keyAt.pos(), "unknown worker %q: a variant can change the scenario's workers (%s) but not add one", ws.Name, strings.Join(workerNames(*sc), ", "))
			good = false
		case variant:
			sc.Workers[i] = ws
		case i >= 0:
			r.errorf(w.keyAt.pos(), "two workers are called %s", ws.Name)
			good = false
		default:
			sc.Workers = append(sc.Workers, ws)
		}
	}
	return good
}

func parseCommands(r *report, y ynode, what string) []command {
	if y.n == nil {
		return nil
	}
	items, ok := y.seq(r, what)
	if !ok {
		return nil
	}
	var out []command
	for _, it := range items {
		s, ok := it.str(r, "a command")
		if !ok {
			continue
		}
		c, err := engine.ParseCommand(s)
		if err != nil {
			switch near, words := commandHint(s); {
			case near != "":
				r.errorf(it.pos(), "%s: %v: did you mean %q?", what, err, near)
			case words != "":
				r.errorf(it.pos(), "%s: %v: a command starts with one of %s", what, err, words)
			default:
				r.errorf(it.pos(), "%s: %v", what, err)
			}
			continue
		}
		out = append(out, command{src: s, cmd: c, at: it.pos()})
	}
	return out
}

func parseQuestion(r *report, l *Lab, y ynode) *Question {
	kvs, ok := y.mapping(r, "a question")
	if !ok {
		return nil
	}
	knownKeys(r, kvs, "a question", questionKeys...)
	q := &Question{lab: l, at: y.pos(), scenario: l.scenario, hints: -1}
	f := map[string]ynode{}
	for _, e := range kvs {
		f[e.key] = e.val
	}
	if v, ok := f["id"]; ok {
		s, ok := v.str(r, "id")
		if !ok || !checkID(r, v, s, "question") {
			return nil
		}
		q.ID, q.at = s, v.pos()
	} else {
		r.errorf(y.pos(), "a question needs id:")
		return nil
	}
	good := true
	if v, ok := f["variant"]; ok {
		q.scenario, good = parseScenario(r, v, l.scenario, true)
	}
	q.run = append(slices.Clone(l.setup), parseCommands(r, f["run"], "run")...)
	if _, ok := f["run"]; !ok {
		r.errorf(q.at, "question %s needs run: the commands its variant runs, such as \"until 30s\"", q.ID)
	}
	if v, ok := f["hints"]; ok {
		s, _ := v.scalar()
		if _, err := fmt.Sscan(s, &q.hints); err != nil || q.hints < 0 || q.hints > 9 {
			r.errorf(v.pos(), "hints: want how many hints the translations give, 0 to 9")
		}
	}
	workers := workerNames(q.scenario)
	if v, ok := f["choices"]; ok {
		items, _ := v.seq(r, "choices")
		for _, it := range items {
			c := parseChoice(r, q, it, workers)
			if c == nil {
				good = false
				continue
			}
			if q.Choice(c.ID) != nil {
				r.errorf(c.at, "duplicate choice id %q in question %s", c.ID, q.ID)
				good = false
				continue
			}
			q.Choices = append(q.Choices, c)
		}
	}
	if v, ok := f["answer"]; ok {
		if s, ok := v.str(r, "answer"); ok {
			q.answer, q.answerAt = s, v.pos()
			if q.Choice(s) == nil && good {
				r.errorf(v.pos(), "answer %q: question %s has no such choice (choices: %s)", s, q.ID, idList(q.Choices))
			}
		}
	}
	if len(q.Choices) < 2 && good {
		r.errorf(q.at, "question %s needs at least two choices", q.ID)
	}
	if !good {
		return nil
	}
	return q
}

func parseChoice(r *report, q *Question, y ynode, workers []string) *Choice {
	kvs, ok := y.mapping(r, "a choice")
	if !ok {
		return nil
	}
	knownKeys(r, kvs, "a choice", choiceKeys...)
	c := &Choice{q: q, at: y.pos()}
	var holds ynode
	for _, e := range kvs {
		switch e.key {
		case "id":
			s, ok := e.val.str(r, "id")
			if !ok || !checkID(r, e.val, s, "choice") {
				return nil
			}
			c.ID, c.at = s, e.val.pos()
		case "holds":
			holds = e.val
		}
	}
	if c.ID == "" {
		r.errorf(y.pos(), "a choice needs id:")
		return nil
	}
	if holds.n == nil {
		r.errorf(c.at, "choice %s needs holds: a predicate such as \"W1's write is rejected\"", c.ID)
		return nil
	}
	c.pred = parsePredicate(r, holds, workers, "choice "+c.ID)
	if c.pred == nil {
		return nil
	}
	return c
}

func parsePredicate(r *report, y ynode, workers []string, what string) *Predicate {
	s, ok := y.str(r, "holds")
	if !ok {
		return nil
	}
	p, err := CompilePredicate(s, workers)
	if err != nil {
		off := 0
		if pe, ok := err.(*PredicateError); ok {
			off = pe.Offset
		}
		r.errorf(y.at(off), "predicate: %v", err)
		return nil
	}
	return p
}

func parseGoal(r *report, l *Lab, y ynode) *Goal {
	kvs, ok := y.mapping(r, "a goal")
	if !ok {
		return nil
	}
	knownKeys(r, kvs, "a goal", goalKeys...)
	g := &Goal{lab: l, at: y.pos()}
	var holds ynode
	for _, e := range kvs {
		switch e.key {
		case "id":
			s, ok := e.val.str(r, "id")
			if !ok || !checkID(r, e.val, s, "goal") {
				return nil
			}
			g.ID, g.at = s, e.val.pos()
		case "holds":
			holds = e.val
		case "proof":
			g.proof = parseCommands(r, e.val, "proof")
		case "break":
			g.breakFaults = parseBreak(r, e.val)
		}
	}
	if g.ID == "" {
		r.errorf(y.pos(), "a goal needs id:")
		return nil
	}
	if holds.n == nil {
		r.errorf(g.at, "goal %s needs holds: a predicate", g.ID)
		return nil
	}
	g.pred = parsePredicate(r, holds, workerNames(l.scenario), "goal "+g.ID)
	if g.pred == nil {
		return nil
	}
	return g
}

// verifyLab runs every question and goal proof in the engine. It returns
// each question's deciding run for the explanations.
func verifyLab(r *report, l *Lab, once judgeOnce) map[string]decided {
	out := map[string]decided{}
	verifyChallenge(r, l, once)
	verifyMeasured(r, l, once)
	verifyProgramCompiles(r, l)
	verifyBreakGoals(r, l)
	for _, q := range l.Questions {
		if d, ok := verifyQuestion(r, l, q); ok {
			out[q.ID] = d
		}
	}
	for _, g := range l.Goals {
		verifyGoal(r, l, g)
	}
	return out
}

// judgeOnce runs a judgement of the lab verifyLab verifies, or answers
// what the same judgement of the same lab file answered before
// (Options.judged).
type judgeOnce func(kind string, judge func() error) error

// verifyQuestion runs a question's variant and checks that exactly one
// choice holds, the one answer: pins.
func verifyQuestion(r *report, l *Lab, q *Question) (decided, bool) {
	w, err := engine.New(q.Variant())
	if err != nil {
		r.errorf(q.at, "question %s: %v", q.ID, err)
		return decided{}, false
	}
	for _, c := range q.run {
		if err := w.Apply(c.cmd); err != nil {
			r.errorf(c.at, "question %s: %q: %v", q.ID, c.src, err)
			return decided{}, false
		}
	}
	var holds []string
	var ev []int
	var winner *Choice
	for _, c := range q.Choices {
		if ok, e := c.pred.Eval(w.Events(), w.Names()); ok {
			holds = append(holds, c.ID)
			ev, winner = e, c
		}
	}
	switch len(holds) {
	case 1:
		switch {
		case q.answer == "":
			r.warnf(q.at, "question %s: pin the intended answer with answer: %s, so that a changed variant cannot silently make its explanation false", q.ID, holds[0])
		case q.answer != holds[0]:
			r.errorf(q.answerAt, "question %s: answer: %s, but in the engine's run choice %s holds", q.ID, q.answer, holds[0])
		}
		return decided{w: w, evidence: ev, choice: winner}, true
	case 0:
		r.errorf(q.at, "question %s: no choice holds in the engine's run; exactly one must (the run ends at %s with %s). See the run: leaselab run %s --question %s --lang en", q.ID, moment(w.Now()), violationList(w), filepath.ToSlash(filepath.Join(l.root, filepath.FromSlash(l.file))), q.ID)
	default:
		r.errorf(q.at, "question %s: %d choices hold in the engine's run (%s); exactly one must", q.ID, len(holds), strings.Join(holds, ", "))
	}
	return decided{}, false
}

// verifyGoal checks that a goal does not hold untouched, and that its
// proof uses only offered commands and reaches it.
func verifyGoal(r *report, l *Lab, g *Goal) {
	if w, err := l.NewWorld(0); err != nil {
		r.errorf(l.at, "lab %s: %v", l.ID, err)
	} else if err := w.Apply(engine.Command{Kind: engine.CmdUntil, At: max(l.horizon, w.Now())}); err == nil {
		if ok, _ := g.pred.Eval(w.Events(), w.Names()); ok {
			r.errorf(g.at, "goal %s already holds when nobody touches the world (run to the horizon, %s)", g.ID, l.horizon)
		}
	}
	if len(g.proof) == 0 {
		return
	}
	offered := true
	for _, c := range g.proof {
		if err := l.Refusal(c.cmd); err != nil {
			r.errorf(c.at, "goal %s proof: %q: %v, so a student cannot reach the goal (add it to controls:)", g.ID, c.src, err)
			offered = false
		}
	}
	if !offered {
		return
	}
	w, err := l.NewWorld(0)
	if err != nil {
		return
	}
	for _, c := range g.proof {
		if err := w.Apply(c.cmd); err != nil {
			r.errorf(c.at, "goal %s proof: %q: %v", g.ID, c.src, err)
			return
		}
	}
	if holds, _ := g.pred.Eval(w.Events(), w.Names()); !holds {
		r.errorf(g.at, "goal %s: its proof run does not reach it", g.ID)
	}
}

// decided is the run that decided a question.
type decided struct {
	w        *engine.World
	evidence []int
	choice   *Choice // the choice that holds
}

func violationList(w *engine.World) string {
	var vs []string
	for _, e := range w.Events() {
		if e.Kind == engine.KindViolation {
			vs = append(vs, e.Reason().String())
		}
	}
	if len(vs) == 0 {
		return "no violations"
	}
	return "violations " + strings.Join(slices.Compact(vs), ", ")
}

var langNames = map[string]string{"id": "Indonesian", "en": "English"}

// parseLabText reads one language's Markdown for a lab and checks it
// against the lab's questions, choices, hints and goals. Missing words are
// errors in the default language and warnings in the others.
func parseLabText(r *report, l *Lab, lang, file string, data []byte, runs map[string]decided) *labText {
	tr := &labTextReader{r: r, l: l, lang: lang, file: file, runs: runs, missing: r.errorf,
		t: &labText{file: file, questions: map[string]*questionText{}, goals: map[string]template.HTML{}}}
	if lang != DefaultLang {
		tr.missing = r.warnf
	}
	title, body, bodyLine := readTitle(r, file, string(data), "a lab's Markdown starts with front matter: ---, title: ..., ---", tr.missing)
	tr.t.title = title
	root := splitSections(r, file, body, bodyLine)
	tr.t.prose = renderMarkdown(root.text(), lang, l.link)
	for _, s := range root.subs {
		switch s.kind {
		case "steps":
			tr.readSteps(s)
		case "question":
			tr.readQuestion(s)
		case "goal":
			tr.readGoal(s)
		}
	}
	noSection := tr.checkEverySection()
	if len(root.unknown) > 0 {
		// Only the sections missing from the whole file follow from a
		// misspelt "##" heading; problems inside sections are their own.
		for _, i := range noSection {
			tmp := report{ps: r.ps[i : i+1]}
			tmp.causedBy(0, root.unknown[0], "see the unknown heading at")
		}
	}
	return tr.t
}

// readTitle reads a Markdown file's front matter, whose one key is title:,
// and returns the body after it. startsWith is the error for a file
// without front matter; missing reports a title that is not there.
func readTitle(r *report, file, src, startsWith string, missing func(pos, string, ...any)) (title, body string, bodyLine int) {
	fm, fmOff, body, bodyLine, ok := frontMatter(src)
	if !ok {
		r.errorf(pos{file, 1, 1}, "%s", startsWith)
		return "", body, bodyLine
	}
	root, ok := parseYAML(r, file, []byte(fm), fmOff)
	if !ok {
		return "", body, bodyLine
	}
	y := ynode{n: root, file: file, lineOffset: fmOff}
	kvs, _ := y.mapping(r, "front matter")
	knownKeys(r, kvs, "front matter", "title")
	for _, e := range kvs {
		if e.key == "title" {
			title, _ = e.val.str(r, "title")
		}
	}
	if title == "" {
		missing(pos{file, 1, 1}, "no title: in the front matter")
	}
	return title, body, bodyLine
}

// labTextReader is parseLabText's state between its steps. Missing words
// are errors in the default language and warnings in the others
// (missing).
type labTextReader struct {
	r       *report
	l       *Lab
	lang    string
	file    string
	runs    map[string]decided
	t       *labText
	missing func(pos, string, ...any)
}

func (tr *labTextReader) markdown(md string) template.HTML {
	return renderMarkdown(md, tr.lang, tr.l.link)
}

func (tr *labTextReader) readSteps(s *section) {
	switch {
	case tr.t.steps != "":
		tr.r.errorf(s.at, "a lab has one steps section")
	case s.text() == "":
		tr.r.errorf(s.at, "the steps section is empty: list what to try, as \"1. ...\"")
	default:
		tr.t.steps = tr.markdown(s.text())
	}
}

func (tr *labTextReader) readGoal(s *section) {
	l := tr.l
	switch {
	case l.Goal(s.id) == nil && slices.Contains(l.broken, s.id):
	case l.Goal(s.id) == nil:
		tr.r.errorf(s.at, "unknown goal %q: lab.yaml has %s", s.id, idList(l.Goals))
	default:
		tr.t.goals[s.id] = tr.markdown(s.text())
	}
}

// readQuestion reads a question's section: its prompt, its choices' words,
// its hints and its explanation, and checks them against lab.yaml.
func (tr *labTextReader) readQuestion(s *section) {
	r, l := tr.r, tr.l
	q := l.Question(s.id)
	switch {
	case q == nil && slices.Contains(l.broken, s.id):
		return
	case q == nil:
		r.errorf(s.at, "unknown question %q: lab.yaml has %s", s.id, idList(l.Questions))
		return
	case tr.t.questions[s.id] != nil:
		r.errorf(s.at, "question %s has two sections", s.id)
		return
	}
	qt := &questionText{choices: map[string]string{}, prompt: tr.markdown(s.text())}
	before := len(r.ps)
	if s.text() == "" {
		tr.missing(s.at, "question %s has no prompt", s.id)
	}
	for _, sub := range s.subs {
		switch sub.kind {
		case "choice":
			tr.readChoice(q, qt, sub)
		case "hint":
			qt.hints = append(qt.hints, tr.markdown(sub.text()))
		case "explanation":
			qt.explanation = tr.markdown(tr.explanation(q, sub))
		}
	}
	tr.checkQuestion(s, q, qt)
	if len(s.unknown) > 0 {
		r.causedBy(before, s.unknown[0], "see the unknown heading at")
	}
	tr.t.questions[s.id] = qt
}

func (tr *labTextReader) readChoice(q *Question, qt *questionText, sub *section) {
	switch _, dup := qt.choices[sub.id]; {
	case q.Choice(sub.id) == nil:
		tr.r.errorf(sub.at, "unknown choice %q in question %s: lab.yaml has %s", sub.id, q.ID, idList(q.Choices))
	case dup:
		tr.r.errorf(sub.at, "choice %s has two sections", sub.id)
	default:
		qt.choices[sub.id] = sub.plain()
	}
}

// explanation is an explanation's Markdown with {{evidence}} and compare
// blocks filled in from the engine's run.
func (tr *labTextReader) explanation(q *Question, sub *section) string {
	md := sub.text()
	if strings.Contains(md, "{{evidence}}") {
		d := tr.runs[q.ID]
		if d.w != nil && len(d.evidence) == 0 {
			tr.r.warnf(sub.at, "question %s: {{evidence}} renders nothing: the choice that holds, %s (%q), names no event that happened (a \"not …\" predicate holds by an absence); say in words what did not happen, or quote the events another way", q.ID, d.choice.ID, d.choice.Predicate())
		}
		md = strings.ReplaceAll(md, "{{evidence}}", evidenceBlock(d, tr.lang))
	}
	return expandCompare(tr.r, sub.at, q, md, tr.lang)
}

// checkQuestion reports a question's words that are missing: a choice's
// text, hints in the number lab.yaml (or the default language) gives, an
// explanation.
func (tr *labTextReader) checkQuestion(s *section, q *Question, qt *questionText) {
	lang := tr.lang
	for _, c := range q.Choices {
		if qt.choices[c.ID] == "" {
			tr.missing(s.at, "question %s: no text for choice %s (add \"### %s %s\")", q.ID, c.ID, keyword(lang, "choice"), c.ID)
		}
	}
	switch {
	case q.hints >= 0 && q.hintsFrom == "" && len(qt.hints) != q.hints:
		tr.missing(s.at, "question %s has %d hints here, lab.yaml says hints: %d", q.ID, len(qt.hints), q.hints)
	case q.hints >= 0 && len(qt.hints) != q.hints:
		tr.missing(s.at, "question %s has %d hints here, %s has %d", q.ID, len(qt.hints), q.hintsFrom, q.hints)
	case q.hints < 0 && lang == DefaultLang && len(s.unknown) == 0:
		// Without hints: in lab.yaml, the default language's
		// count is the one every translation must give.
		q.hints, q.hintsFrom = len(qt.hints), path.Base(tr.file)
	}
	if qt.explanation == "" {
		tr.missing(s.at, "question %s has no \"### %s\"", q.ID, keyword(lang, "explanation"))
	}
}

// checkEverySection reports questions and goals the file has no section
// for, and returns where in the report those problems are.
func (tr *labTextReader) checkEverySection() (noSection []int) {
	l, t, file, lang := tr.l, tr.t, tr.file, tr.lang
	report := func(format string, args ...any) {
		n := len(tr.r.ps)
		tr.missing(pos{file, 1, 1}, format, args...)
		if len(tr.r.ps) > n {
			noSection = append(noSection, n)
		}
	}
	for _, q := range l.Questions {
		if t.questions[q.ID] == nil {
			report("no section for question %s (add \"## %s %s\")", q.ID, keyword(lang, "question"), q.ID)
		}
	}
	for _, g := range l.Goals {
		if t.goals[g.ID] == "" && !slices.Contains(l.broken, g.ID) {
			report("no section for goal %s (add \"## %s %s\")", g.ID, keyword(lang, "goal"), g.ID)
		}
	}
	return noSection
}

func idList[T interface{ *Question | *Choice | *Goal }](xs []T) string {
	var ids []string
	for _, x := range xs {
		switch v := any(x).(type) {
		case *Question:
			ids = append(ids, v.ID)
		case *Choice:
			ids = append(ids, v.ID)
		case *Goal:
			ids = append(ids, v.ID)
		}
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// moment is a time of a run as a check message says it: the engine's
// "30s" in English, the course's moment in another language ("detik
// ke-30").
type moment engine.Time

func (m moment) String() string        { return engine.Time(m).String() }
func (m moment) In(lang string) string { return catalog.MomentText(lang, engine.Time(m)) }

// evidenceBlock quotes a run's deciding events as a code block.
func evidenceBlock(d decided, lang string) string {
	if d.w == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n```\n")
	events, names := d.w.Events(), d.w.Names()
	for _, i := range d.evidence {
		e := events[i]
		t := catalog.MomentText(lang, e.T)
		fmt.Fprintf(&b, "%s%s  %s\n", strings.Repeat(" ", max(0, 6-len(t))), t, DescribeEvent(e, names, lang))
	}
	b.WriteString("```\n")
	return b.String()
}
