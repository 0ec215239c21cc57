package web

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strconv"
	"strings"

	"leaselab/catalog"
	"leaselab/draw"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/labsession"
)

// page is what every page's layout needs.
type page struct {
	Lang     string
	Base     string // the site's base path, "" or such as "/leaselab"
	Title    string
	Path     string   // this page's path without the language prefix, e.g. "/labs/w1-w2"
	Query    string   // the query that reproduces the page's state, without "?"
	CSS, JS  string   // content-hashed asset URLs
	Preload  []string // the modules JS imports, fetched with it
	SearchJS string   // static/search.js, for the pages that ask for searches
	Icon     string
	Problems problemList // a broken edit's, for its author (the banner)
	Kind     string      // "home", "lesson", "lab", "error": the body's class
	// Reload, in --content mode, is the URL that tells the page when the
	// content changed (static/reload.js); ReloadJS is that script.
	Reload, ReloadJS string
}

// SwitchURL is the same place in the other language.
func (p *page) SwitchURL() string {
	u := p.Base + "/" + otherLang(p.Lang) + p.Path
	if p.Query != "" {
		u += "?" + p.Query
	}
	return u
}

func (p *page) T(key string) string { return T(p.Lang, key) }

// Projector is whether the page is the projector view, whose colours the
// root element takes (html.projector, static/app.css). A :has() on the
// root asking the body the same made a slowed phone recalculate every
// element's style whenever a frame put nodes into the page.
func (p *page) Projector() bool { return slices.Contains(strings.Fields(p.Kind), "projector") }

// Href is the URL of a path of this site in the page's language. Every
// link, form and socket URL of a page goes through it, so that a base path
// (--base-path) holds everywhere.
func (p *page) Href(path string) string { return p.Base + "/" + p.Lang + path }

// homeView is the course home.
type homeView struct {
	*page
	Course  *labs.Course
	Classes bool // class mode is on: the home page offers to open a class
}

// lessonView is one lesson.
type lessonView struct {
	*page
	Course *labs.Course
	Lesson *labs.Lesson
	Next   *labs.Lesson
}

// labView is a lab with its world in the state its session reached.
type labView struct {
	*page
	Course  *labs.Course
	Lab     *labs.Lab
	Session session
	World   *engine.World
	Error   string // a command that was refused (pages without script)
	Share   string // the page's state as an absolute URL, for the share field

	Lead     template.HTML // the prose's first paragraph: the short intro
	Rest     template.HTML // the rest of the prose
	Controls *labControls

	Answered map[string]*answerView // question id → verdict shown
	Goals    map[string]*goalView
	Policy   map[string]string // the design challenge's values in the form
	Judged   *challengeView
	Figures  map[string]string // the p99 exercise's values in the form
	Measured *measuredView     // its verdict, when asked
	Unread   string            // why the figures could not be used
	Program  *programView      // the editor, in a lab where the student writes the worker
}

// HasSteps reports whether the lab has a steps panel: goals to reach or
// steps to try in the live world.
func (v *labView) HasSteps() bool {
	return len(v.Lab.Goals) > 0 || v.Lab.Steps(v.Lang) != ""
}

// splitLead cuts rendered prose after its first paragraph.
func splitLead(h template.HTML) (lead, rest template.HTML) {
	s := string(h)
	if !strings.HasPrefix(s, "<p>") {
		return "", h
	}
	i := strings.Index(s, "</p>")
	if i < 0 {
		return h, ""
	}
	i += len("</p>")
	return template.HTML(s[:i]), template.HTML(strings.TrimLeft(s[i:], "\n")) //nolint:gosec // cut from goldmark's output at a tag boundary
}

// challengeView is the engine's judgement of a student's renewal policy.
type challengeView struct {
	Lang    string
	Verdict *labs.ChallengeVerdict
	Diagram *draw.Diagram // the shortest counterexample's run; nil on a pass
	Events  *draw.Events
}

// Summary says the verdict in one sentence.
func (c *challengeView) Summary() string {
	r := c.Verdict.Result
	if r.Pass {
		return fmt.Sprintf(T(c.Lang, "challenge.pass"), r.Runs, r.MustSurvive)
	}
	return fmt.Sprintf(T(c.Lang, "challenge.fail"), r.Runs, r.SafetyFailures, r.LivenessFailures)
}

// Faults lists the counterexample's faults in words.
func (c *challengeView) Faults() []string {
	var out []string
	if c.Verdict.Counterexample == nil {
		return nil
	}
	for _, f := range c.Verdict.Counterexample.Faults {
		s := catalog.MomentText(c.Lang, f.At) + ": " + T(c.Lang, "fault."+string(f.Kind))
		switch {
		case f.Kind == engine.FaultOutage:
			// How long it lasted, and that this is longer than the lease:
			// not a lease of that length.
			s = catalog.MomentText(c.Lang, f.At) + ": " + string(catalog.Append(nil, c.Lang, "fault.outage.for", catalog.Time(f.Size)))
		case f.Kind == engine.FaultDrift:
			s += " (" + string(catalog.AppendNumber(nil, c.Lang, fmt.Appendf(nil, "%.2f", float64(f.Rate-1_000_000)/10_000))) + "%)"
		case f.Hold > 0:
			s += " " + string(catalog.Append(nil, c.Lang, "fault.hold", catalog.Time(f.Size), catalog.Time(f.Hold)))
		case f.Size > 0:
			s += " " + string(catalog.Append(nil, c.Lang, "fault.for", catalog.Time(f.Size)))
		}
		out = append(out, s)
	}
	return out
}

// Why is the event that decided the counterexample, in words.
func (c *challengeView) Why() string {
	ce := c.Verdict.Counterexample
	if ce == nil || c.Verdict.World == nil || ce.Event < 0 {
		return ""
	}
	return catalog.MomentText(c.Lang, ce.Why.T) + ": " + labs.DescribeEvent(ce.Why, c.Verdict.World.Names(), c.Lang)
}

// policyValues is the challenge form's values: the request's, else the
// lab's defaults.
func policyValues(ch *labs.Challenge, get func(string) string) map[string]string {
	out := map[string]string{}
	for _, p := range ch.Params {
		out[p.Name] = p.Default
		if v := get("p." + p.Name); v != "" {
			out[p.Name] = v
		}
	}
	if v := get("p.preset"); v != "" {
		out["preset"] = v
	}
	return out
}

// verdictKey names a design challenge's verdict on a policy in the cache.
type verdictKey struct {
	lab    *labs.Lab // a reload makes new labs: old verdicts age out
	policy string    // the values, sorted by name
}

func policyKey(values map[string]string) string {
	names := slices.Sorted(maps.Keys(values))
	var b strings.Builder
	for _, n := range names {
		b.WriteString(strconv.Quote(n))
		b.WriteByte('=')
		b.WriteString(strconv.Quote(values[n]))
		b.WriteByte(';')
	}
	return b.String()
}

// judge asks the engine to play the challenge against a policy, once per
// lab and policy: the verdict is the same every time.
func (s *Server) judge(lab *labs.Lab, values map[string]string, lang string) (*challengeView, error) {
	ch := lab.Challenge()
	if ch == nil {
		return nil, fmt.Errorf("lab %s has no design challenge", lab.ID)
	}
	key := verdictKey{lab, policyKey(values)}
	v, ok := s.verdicts.get(key)
	if !ok {
		var err error
		if v, err = ch.JudgeOn(values, 1); err != nil {
			return nil, err
		}
		s.verdicts.put(key, v)
	}
	cv := &challengeView{Lang: lang, Verdict: v}
	if v.World != nil && v.Counterexample != nil {
		hl := map[int]bool{v.Counterexample.Event: true}
		cv.Diagram = draw.ZoomedDiagram("challenge", v.World, lang, hl)
		cv.Events = &draw.Events{ID: "challenge-events", Lang: lang, Events: v.World.Events(), Names: v.World.Names(), Highlight: hl, Only: hl}
	}
	return cv, nil
}

// answerView is the engine's verdict on a predict question.
type answerView struct {
	Lang     string
	Lab      *labs.Lab
	Question *labs.Question
	Choice   string
	Verdict  *labs.Verdict
	Diagram  *draw.Diagram
	Events   *draw.Events
}

// goalView is the verdict on a goal task, against the student's world.
type goalView struct {
	Lang    string
	Goal    *labs.Goal
	Verdict *labs.Verdict
}

// session is what a page shows of a labsession.Session: its seed, its
// commands as text and as the engine's, and the query that rebuilds it.
type session struct {
	Seed  uint64
	Do    []string
	cmds  []engine.Command
	query string
}

func sessionOf(s *labsession.Session) session {
	return session{Seed: s.Seed(), Do: s.Strings(), cmds: s.Commands(), query: s.Query()}
}

// Query writes the session as URL parameters.
func (s session) Query() string { return s.query }

func workerNames(w *engine.World) []string {
	var out []string
	for _, ws := range w.Snapshot().Workers {
		out = append(out, ws.Name)
	}
	return out
}

// tasks counts what a student can get right in a lab.
func tasks(l *labs.Lab) int {
	n := len(l.Questions) + len(l.Goals)
	if l.Challenge() != nil {
		n++
	}
	return n
}
