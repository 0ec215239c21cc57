package labs

import (
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
	labFileKeys   = []string{"id", "scenario", "setup", "horizon", "controls", "panels", "questions", "goals", "challenge"}
	questionKeys  = []string{"id", "variant", "run", "choices", "hints", "answer"}
	choiceKeys    = []string{"id", "holds"}
	goalKeys      = []string{"id", "holds", "proof"}
	challengeKeys = []string{"holder", "runs", "seed", "horizon", "faults", "survive", "policy"}
)

// knownKeys reports keys that are not among want.
func knownKeys(r *report, kvs []kv, what string, want ...string) {
	for _, e := range kvs {
		if !slices.Contains(want, e.key) {
			r.errorf(e.keyAt.pos(), "unknown key %q in %s (want %s)", e.key, what, strings.Join(want, ", "))
		}
	}
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
		if s, ok := v.str(r, "horizon"); ok {
			if d, err := engine.ParseTime(s); err != nil || d <= 0 {
				r.errorf(v.pos(), "horizon %q: want a positive duration such as 60s", s)
			} else {
				l.horizon = d
			}
		}
	}
	l.setup = parseCommands(r, fields["setup"], "setup")
	if v, ok := fields["controls"]; ok {
		l.controls = parseControls(r, v)
		if c := l.controls; c != nil && len(c.Lease) > 0 {
			// Each length offered must be one the engine takes here.
			for _, d := range c.Lease {
				w, err := engine.New(l.scenario)
				if err != nil {
					break // the scenario's own error is reported already
				}
				if err := w.Apply(engine.Command{Kind: engine.CmdLease, Dur: d}); err != nil {
					r.errorf(v.pos(), "controls.lease: %s: %v", d, err)
				}
			}
		}
	}
	l.panels = parsePanels(r, fields["panels"])
	if v, ok := fields["questions"]; ok {
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
	if v, ok := fields["goals"]; ok {
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
	if v, ok := fields["challenge"]; ok {
		l.challenge = parseChallenge(r, l, v)
	}
	if len(l.Questions) == 0 && len(l.Goals) == 0 && l.challenge == nil {
		r.warnf(y.pos(), "lab has no questions and no goals")
	}
	if l.ID == "" {
		return nil
	}
	return l
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
			wkvs, ok := e.val.mapping(r, "workers")
			if !ok {
				good = false
				continue
			}
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
					at := w.val.pos()
					if !strings.Contains(err.Error(), "step") {
						at = w.keyAt.pos()
					}
					r.errorf(at, "worker %s: %v", strings.Fields(w.key + " ?")[0], err)
					good = false
					continue
				}
				i := slices.IndexFunc(sc.Workers, func(x engine.WorkerSpec) bool { return x.Name == ws.Name })
				switch {
				case variant && i < 0:
					r.errorf(w.keyAt.pos(), "unknown worker %q: a variant can change the scenario's workers (%s) but not add one", ws.Name, strings.Join(workerNames(sc), ", "))
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
			continue
		}
		val, ok := e.val.str(r, e.key)
		if !ok {
			good = false
			continue
		}
		if err := sc.Set(e.key, val); err != nil {
			at := e.val.pos()
			if strings.HasPrefix(err.Error(), "unknown") {
				at = e.keyAt.pos()
			}
			r.errorf(at, "%s: %v", what, err)
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
			r.errorf(it.pos(), "%s: %v", what, err)
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
func verifyLab(r *report, l *Lab) map[string]decided {
	out := map[string]decided{}
	verifyChallenge(r, l)
	for _, q := range l.Questions {
		w, err := engine.New(q.Variant())
		if err != nil {
			r.errorf(q.at, "question %s: %v", q.ID, err)
			continue
		}
		failed := false
		for _, c := range q.run {
			if err := w.Apply(c.cmd); err != nil {
				r.errorf(c.at, "question %s: %q: %v", q.ID, c.src, err)
				failed = true
				break
			}
		}
		if failed {
			continue
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
			out[q.ID] = decided{w: w, evidence: ev, choice: winner}
			switch {
			case q.answer == "":
				r.warnf(q.at, "question %s: pin the intended answer with answer: %s, so that a changed variant cannot silently make its explanation false", q.ID, holds[0])
			case q.answer != holds[0]:
				r.errorf(q.answerAt, "question %s: answer: %s, but in the engine's run choice %s holds", q.ID, q.answer, holds[0])
			}
		case 0:
			r.errorf(q.at, "question %s: no choice holds in the engine's run; exactly one must (the run ends at %s with %s). See the run: leaselab run %s --question %s --lang en", q.ID, w.Now(), violationList(w), filepath.ToSlash(filepath.Join(l.root, filepath.FromSlash(l.file))), q.ID)
		default:
			r.errorf(q.at, "question %s: %d choices hold in the engine's run (%s); exactly one must", q.ID, len(holds), strings.Join(holds, ", "))
		}
	}
	for _, g := range l.Goals {
		// Untouched, the world must not already satisfy the goal.
		if w, err := l.NewWorld(0); err != nil {
			r.errorf(l.at, "lab %s: %v", l.ID, err)
		} else if err := w.Apply(engine.Command{Kind: engine.CmdUntil, At: max(l.horizon, w.Now())}); err == nil {
			if ok, _ := g.pred.Eval(w.Events(), w.Names()); ok {
				r.errorf(g.at, "goal %s already holds when nobody touches the world (run to the horizon, %s)", g.ID, l.horizon)
			}
		}
		if len(g.proof) == 0 {
			continue
		}
		offered := true
		for _, c := range g.proof {
			if err := l.Refusal(c.cmd); err != nil {
				r.errorf(c.at, "goal %s proof: %q: %v, so a student cannot reach the goal (add it to controls:)", g.ID, c.src, err)
				offered = false
			}
		}
		if !offered {
			continue
		}
		w, err := l.NewWorld(0)
		if err != nil {
			continue
		}
		ok := true
		for _, c := range g.proof {
			if err := w.Apply(c.cmd); err != nil {
				r.errorf(c.at, "goal %s proof: %q: %v", g.ID, c.src, err)
				ok = false
				break
			}
		}
		if ok {
			if holds, _ := g.pred.Eval(w.Events(), w.Names()); !holds {
				r.errorf(g.at, "goal %s: its proof run does not reach it", g.ID)
			}
		}
	}
	return out
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
	t := &labText{file: file, questions: map[string]*questionText{}, goals: map[string]template.HTML{}}
	missing := r.errorf
	if lang != DefaultLang {
		missing = r.warnf
	}
	src := string(data)
	fm, fmOff, body, bodyLine, ok := frontMatter(src)
	if !ok {
		r.errorf(pos{file, 1, 1}, "a lab's Markdown starts with front matter: ---, title: ..., ---")
	} else if root, ok := parseYAML(r, file, []byte(fm), fmOff); ok {
		y := ynode{n: root, file: file, lineOffset: fmOff}
		kvs, _ := y.mapping(r, "front matter")
		knownKeys(r, kvs, "front matter", "title")
		for _, e := range kvs {
			if e.key == "title" {
				t.title, _ = e.val.str(r, "title")
			}
		}
		if t.title == "" {
			missing(pos{file, 1, 1}, "no title: in the front matter")
		}
	}
	root := splitSections(r, file, body, bodyLine)
	rootProblems := len(r.ps)
	t.prose = renderMarkdown(root.text(), lang, l.link)
	for _, s := range root.subs {
		switch s.kind {
		case "steps":
			if t.steps != "" {
				r.errorf(s.at, "a lab has one steps section")
				continue
			}
			if s.text() == "" {
				r.errorf(s.at, "the steps section is empty: list what to try, as \"1. ...\"")
				continue
			}
			t.steps = renderMarkdown(s.text(), lang, l.link)
		case "question":
			q := l.Question(s.id)
			if q == nil && slices.Contains(l.broken, s.id) {
				continue
			}
			if q == nil {
				r.errorf(s.at, "unknown question %q: lab.yaml has %s", s.id, idList(l.Questions))
				continue
			}
			if t.questions[s.id] != nil {
				r.errorf(s.at, "question %s has two sections", s.id)
				continue
			}
			qt := &questionText{choices: map[string]string{}, prompt: renderMarkdown(s.text(), lang, l.link)}
			before := len(r.ps)
			if s.text() == "" {
				missing(s.at, "question %s has no prompt", s.id)
			}
			for _, sub := range s.subs {
				switch sub.kind {
				case "choice":
					if q.Choice(sub.id) == nil {
						r.errorf(sub.at, "unknown choice %q in question %s: lab.yaml has %s", sub.id, q.ID, idList(q.Choices))
						continue
					}
					if _, dup := qt.choices[sub.id]; dup {
						r.errorf(sub.at, "choice %s has two sections", sub.id)
						continue
					}
					qt.choices[sub.id] = sub.plain()
				case "hint":
					qt.hints = append(qt.hints, renderMarkdown(sub.text(), lang, l.link))
				case "explanation":
					md := sub.text()
					if strings.Contains(md, "{{evidence}}") {
						d := runs[q.ID]
						if d.w != nil && len(d.evidence) == 0 {
							r.warnf(sub.at, "question %s: {{evidence}} renders nothing: the choice that holds, %s (%q), names no event that happened (a \"not …\" predicate holds by an absence); say in words what did not happen, or quote the events another way", q.ID, d.choice.ID, d.choice.Predicate())
						}
						md = strings.ReplaceAll(md, "{{evidence}}", evidenceBlock(d, lang))
					}
					md = expandCompare(r, sub.at, q, md, lang)
					qt.explanation = renderMarkdown(md, lang, l.link)
				}
			}
			for _, c := range q.Choices {
				if qt.choices[c.ID] == "" {
					missing(s.at, "question %s: no text for choice %s (add \"### %s %s\")", q.ID, c.ID, keyword(lang, "choice"), c.ID)
				}
			}
			switch {
			case q.hints >= 0 && q.hintsFrom == "" && len(qt.hints) != q.hints:
				missing(s.at, "question %s has %d hints here, lab.yaml says hints: %d", q.ID, len(qt.hints), q.hints)
			case q.hints >= 0 && len(qt.hints) != q.hints:
				missing(s.at, "question %s has %d hints here, %s has %d", q.ID, len(qt.hints), q.hintsFrom, q.hints)
			case q.hints < 0 && lang == DefaultLang && len(s.unknown) == 0:
				// Without hints: in lab.yaml, the default language's
				// count is the one every translation must give.
				q.hints, q.hintsFrom = len(qt.hints), path.Base(file)
			}
			if qt.explanation == "" {
				missing(s.at, "question %s has no \"### %s\"", q.ID, keyword(lang, "explanation"))
			}
			if len(s.unknown) > 0 {
				r.causedBy(before, s.unknown[0], "see the unknown heading at")
			}
			t.questions[s.id] = qt
		case "goal":
			if l.Goal(s.id) == nil && slices.Contains(l.broken, s.id) {
				continue
			}
			if l.Goal(s.id) == nil {
				r.errorf(s.at, "unknown goal %q: lab.yaml has %s", s.id, idList(l.Goals))
				continue
			}
			t.goals[s.id] = renderMarkdown(s.text(), lang, l.link)
		}
	}
	for _, q := range l.Questions {
		if t.questions[q.ID] == nil {
			missing(pos{file, 1, 1}, "no section for question %s (add \"## %s %s\")", q.ID, keyword(lang, "question"), q.ID)
		}
	}
	for _, g := range l.Goals {
		if t.goals[g.ID] == "" && !slices.Contains(l.broken, g.ID) {
			missing(pos{file, 1, 1}, "no section for goal %s (add \"## %s %s\")", g.ID, keyword(lang, "goal"), g.ID)
		}
	}
	if len(root.unknown) > 0 {
		// Only the sections missing from the whole file follow from a
		// misspelt "##" heading; problems inside sections are their own.
		var mine []int
		for i := rootProblems; i < len(r.ps); i++ {
			if strings.HasPrefix(r.ps[i].Msg, "no section for ") {
				mine = append(mine, i)
			}
		}
		for _, i := range mine {
			tmp := report{ps: r.ps[i : i+1]}
			tmp.causedBy(0, root.unknown[0], "see the unknown heading at")
		}
	}
	return t
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
		t := string(catalog.AppendTime(nil, lang, e.T))
		fmt.Fprintf(&b, "%s%s  %s\n", strings.Repeat(" ", max(0, 6-len(t))), t, DescribeEvent(e, names, lang))
	}
	b.WriteString("```\n")
	return b.String()
}
