package labs

import (
	"fmt"
	"html/template"
	"leaselab/catalog"
	"slices"
	"strings"

	"leaselab/engine"
)

// Lab is one exercise: a scenario, predict questions and goal tasks. Its
// language-neutral part comes from lab.yaml; its words from one Markdown
// file per language beside it.
type Lab struct {
	ID        string
	Lesson    string // the lesson that leads to it, from the course file
	Questions []*Question
	Goals     []*Goal

	challenge *Challenge
	measured  *Measured    // nil: no p99 exercise
	program   *ProgramSpec // nil: the student writes no worker
	search    *SearchSpec  // nil: no search bounds
	controls  *Controls    // nil: the default set
	file      string       // lab.yaml, as named in the content
	dir       string
	at        pos
	scenario  engine.Scenario
	prepared  *engine.Prepared // scenario, for NewWorld: shared by the lab's worlds
	prepErr   error            // why scenario cannot be prepared
	// traced, for a lab with a student's program, swaps the program's
	// traced runs (program.Compiled.Traced) into a scenario: a search's
	// shortest schedule is replayed with them, the search runs without.
	traced  func(engine.Scenario) engine.Scenario
	setup   []command
	horizon engine.Time
	panels  []string
	text    map[string]*labText
	link    LinkFunc
	root    string   // Options.Root
	broken  []string // ids of questions and goals that did not parse
}

// Question is a predict question: the engine runs its variant of the
// scenario, and the choice whose predicate holds is the right one.
type Question struct {
	ID      string
	Choices []*Choice

	lab       *Lab
	at        pos
	scenario  engine.Scenario
	run       []command
	hints     int    // hints each translation gives; -1 until known
	hintsFrom string // where hints was learnt: "" for lab.yaml, else a Markdown file
	answer    string // the choice the author intends; check holds the engine to it
	answerAt  pos
}

// Choice is one answer to a predict question.
type Choice struct {
	ID string

	q    *Question
	at   pos
	pred *Predicate
}

// Goal is a task the student reaches by driving the live world until its
// predicate holds on the session's own log.
type Goal struct {
	ID string

	lab   *Lab
	at    pos
	pred  *Predicate
	proof []command
	// breakFaults is a "break it" goal's most faults (lab.yaml break:);
	// 0 for any other goal.
	breakFaults int
}

// command is a world command as written in lab.yaml.
type command struct {
	src string
	cmd engine.Command
	at  pos
}

// labText is one language's words for a lab.
type labText struct {
	file      string
	title     string
	prose     template.HTML
	steps     template.HTML // "## Langkah": what to try in the live world
	questions map[string]*questionText
	goals     map[string]template.HTML
}

type questionText struct {
	prompt      template.HTML
	choices     map[string]string
	hints       []template.HTML
	explanation template.HTML
}

// Title is the lab's title in lang, falling back to Indonesian, then the id.
func (l *Lab) Title(lang string) string {
	if t := l.textFor(lang); t != nil && t.title != "" {
		return t.title
	}
	if t := l.text[DefaultLang]; t != nil && t.title != "" {
		return t.title
	}
	return l.ID
}

// HTML is the lab's prose in lang.
func (l *Lab) HTML(lang string) template.HTML {
	if t := l.textFor(lang); t != nil && t.prose != "" {
		return t.prose
	}
	if t := l.text[DefaultLang]; t != nil {
		return t.prose
	}
	return ""
}

// Steps is the lab's list of what to try in the live world, in lang
// (falling back to Indonesian), or "" when the lab has none.
func (l *Lab) Steps(lang string) template.HTML {
	if t := l.textFor(lang); t != nil && t.steps != "" {
		return t.steps
	}
	if t := l.text[DefaultLang]; t != nil {
		return t.steps
	}
	return ""
}

func (l *Lab) textFor(lang string) *labText {
	if t := l.text[lang]; t != nil {
		return t
	}
	return l.text[DefaultLang]
}

// Scenario returns a copy of the lab's scenario.
func (l *Lab) Scenario() engine.Scenario { return copyScenario(l.scenario) }

// Horizon is how far a headless run of the lab goes when given no commands.
func (l *Lab) Horizon() engine.Time { return l.horizon }

// HasPanel reports whether the lab's page shows the named panel beside its
// live world and in its answers (lab.yaml panels:, such as signals).
func (l *Lab) HasPanel(name string) bool { return slices.Contains(l.panels, name) }

// Setup is the lab's setup commands, which NewWorld applies.
func (l *Lab) Setup() []string {
	var out []string
	for _, c := range l.setup {
		out = append(out, c.src)
	}
	return out
}

// NewWorld builds the lab's world with the given seed and applies the
// lab's setup commands.
func (l *Lab) NewWorld(seed uint64) (*engine.World, error) {
	if l.prepErr != nil {
		return nil, l.prepErr
	}
	w := l.prepared.New(seed)
	for _, c := range l.setup {
		if err := w.Apply(c.cmd); err != nil {
			return nil, fmt.Errorf("setup %q: %w", c.src, err)
		}
	}
	return w, nil
}

// Question finds a question by id.
func (l *Lab) Question(id string) *Question {
	for _, q := range l.Questions {
		if q.ID == id {
			return q
		}
	}
	return nil
}

// Goal finds a goal by id.
func (l *Lab) Goal(id string) *Goal {
	for _, g := range l.Goals {
		if g.ID == id {
			return g
		}
	}
	return nil
}

func copyScenario(sc engine.Scenario) engine.Scenario {
	sc.Workers = slices.Clone(sc.Workers)
	for i := range sc.Workers {
		sc.Workers[i].Program = slices.Clone(sc.Workers[i].Program)
	}
	return sc
}

func (q *Question) text(lang string) *questionText {
	if t := q.lab.text[lang]; t != nil && t.questions[q.ID] != nil {
		return t.questions[q.ID]
	}
	if t := q.lab.text[DefaultLang]; t != nil && t.questions[q.ID] != nil {
		return t.questions[q.ID]
	}
	return &questionText{}
}

// Prompt is the question's text in lang.
func (q *Question) Prompt(lang string) template.HTML { return q.text(lang).prompt }

// Hint is the question's hints in lang, each in a <div class="hint">, in
// the order a student should see them (see Hints for them one by one).
func (q *Question) Hint(lang string) template.HTML {
	var b strings.Builder
	for _, h := range q.Hints(lang) {
		b.WriteString(`<div class="hint">`)
		b.WriteString(string(h))
		b.WriteString("</div>\n")
	}
	return template.HTML(b.String()) //nolint:gosec // rendered Markdown
}

// Hints is the question's hints in lang, first to last.
func (q *Question) Hints(lang string) []template.HTML { return q.text(lang).hints }

// Explanation is the question's explanation in lang. Where the author
// wrote {{evidence}}, it quotes the events of the engine's own run.
func (q *Question) Explanation(lang string) template.HTML { return q.text(lang).explanation }

// Variant is the scenario the question runs, a copy.
func (q *Question) Variant() engine.Scenario { return copyScenario(q.scenario) }

// Commands is the command list the question's run applies.
func (q *Question) Commands() []string {
	var out []string
	for _, c := range q.run {
		out = append(out, c.src)
	}
	return out
}

// Choice finds a choice by id.
func (q *Question) Choice(id string) *Choice {
	for _, c := range q.Choices {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// Text is the choice's words in lang.
func (c *Choice) Text(lang string) string {
	if s := c.q.text(lang).choices[c.ID]; s != "" {
		return s
	}
	if s := c.q.text(DefaultLang).choices[c.ID]; s != "" {
		return s
	}
	return c.ID
}

// Predicate is the outcome the choice claims, as written in lab.yaml.
func (c *Choice) Predicate() string { return c.pred.String() }

// Prompt is the goal's task in lang.
func (g *Goal) Prompt(lang string) template.HTML {
	if t := g.lab.text[lang]; t != nil && t.goals[g.ID] != "" {
		return t.goals[g.ID]
	}
	if t := g.lab.text[DefaultLang]; t != nil {
		return t.goals[g.ID]
	}
	return ""
}

// Predicate is what must hold, as written in lab.yaml.
func (g *Goal) Predicate() string { return g.pred.String() }

// Proof is the commands that reach the goal, as written in lab.yaml (nil
// when the lab gives none). They test the content; a page never shows them.
func (g *Goal) Proof() []string {
	var out []string
	for _, c := range g.proof {
		out = append(out, c.src)
	}
	return out
}

// Verdict is the engine's answer to a check.
type Verdict struct {
	Correct bool
	Right   string // predict: the id of the choice that holds
	Summary string // one sentence in the student's language
	// Missing says, for a goal not reached, which parts of it the log
	// does not show yet, one sentence each in the student's language.
	Missing  []string
	Evidence []Evidence
	World    *engine.World // the run that decided
}

// Evidence is one event that decided a verdict.
type Evidence struct {
	Index int // in World.Events()
	Event engine.Event
	Text  string // DescribeEvent in the student's language
}

// RunQuestion runs the question's variant and reports which choices hold,
// with each one's evidence. It is what CheckQuestion and check build on.
func (q *Question) RunQuestion() (w *engine.World, holds []*Choice, evidence [][]int, err error) {
	w, err = engine.New(q.Variant())
	if err != nil {
		return nil, nil, nil, err
	}
	for _, c := range q.run {
		if err := w.Apply(c.cmd); err != nil {
			return w, nil, nil, fmt.Errorf("%q: %w", c.src, err)
		}
	}
	for _, c := range q.Choices {
		if ok, ev := c.pred.Eval(w.Events(), w.Names()); ok {
			holds = append(holds, c)
			evidence = append(evidence, ev)
		}
	}
	return w, holds, evidence, nil
}

// CheckQuestion runs the question's variant in the engine and judges the
// student's choice against whichever choice holds there.
func (l *Lab) CheckQuestion(qid, choiceID, lang string) (*Verdict, error) {
	q := l.Question(qid)
	if q == nil {
		return nil, fmt.Errorf("lab %s has no question %q", l.ID, qid)
	}
	if q.Choice(choiceID) == nil {
		return nil, fmt.Errorf("question %s has no choice %q", qid, choiceID)
	}
	w, holds, ev, err := q.RunQuestion()
	if err != nil {
		return nil, fmt.Errorf("question %s: %w", qid, err)
	}
	if len(holds) != 1 {
		return nil, fmt.Errorf("question %s: %d choices hold in the engine's run; exactly one must", qid, len(holds))
	}
	right := holds[0]
	v := &Verdict{Correct: right.ID == choiceID, Right: right.ID, World: w}
	v.Evidence = evidenceOf(w, ev[0], lang)
	v.Summary = summary(lang, v.Correct, right.Text(lang))
	return v, nil
}

// CheckGoal evaluates the goal's predicate on the world's own log.
func (l *Lab) CheckGoal(gid string, w *engine.World, lang string) (*Verdict, error) {
	g := l.Goal(gid)
	if g == nil {
		return nil, fmt.Errorf("lab %s has no goal %q", l.ID, gid)
	}
	if w == nil {
		return nil, fmt.Errorf("goal %s: no world to check", gid)
	}
	if !sameWorkers(w.Scenario(), l.scenario) {
		return nil, fmt.Errorf("goal %s: the world is not built from lab %s's scenario", gid, l.ID)
	}
	ok, ev := g.pred.Eval(w.Events(), w.Names())
	var overBreak string
	if ok && g.breakFaults > 0 {
		overBreak = g.breakRule(w, lang)
		ok = overBreak == ""
	}
	v := &Verdict{Correct: ok, World: w}
	if ok {
		v.Evidence = evidenceOf(w, ev, lang)
	} else {
		v.Missing = g.pred.Unmet(w.Events(), w.Names(), lang)
		if overBreak != "" {
			v.Missing = []string{overBreak}
		}
	}
	v.Summary = goalSummary(lang, ok)
	return v, nil
}

func sameWorkers(a, b engine.Scenario) bool {
	if len(a.Workers) != len(b.Workers) {
		return false
	}
	for i := range a.Workers {
		if a.Workers[i].Name != b.Workers[i].Name {
			return false
		}
	}
	return true
}

func evidenceOf(w *engine.World, idx []int, lang string) []Evidence {
	events, names := w.Events(), w.Names()
	var out []Evidence
	for _, i := range idx {
		if i >= 0 && i < len(events) {
			out = append(out, Evidence{Index: i, Event: events[i], Text: DescribeEvent(events[i], names, lang)})
		}
	}
	return out
}

func summary(lang string, correct bool, right string) string {
	right = strings.TrimRight(right, ".")
	key := "verdict.wrong"
	if correct {
		key = "verdict.right"
	}
	return fmt.Sprintf(catalog.T(lang, key), lowerFirst(right))
}

func goalSummary(lang string, ok bool) string {
	if ok {
		return catalog.T(lang, "goal.reached")
	}
	return catalog.T(lang, "goal.notyet")
}

// lowerFirst lowers a leading capital unless it starts a name like W1 or
// L: only a capital followed by a lower-case letter starts an ordinary word.
func lowerFirst(s string) string {
	if len(s) < 2 || s[0] < 'A' || s[0] > 'Z' || s[1] < 'a' || s[1] > 'z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}
