package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"leaselab/engine"
	"leaselab/labs"
)

func asPageError(err error, pe **pageError) bool      { return errors.As(err, pe) }
func asHTTPError(err error, he **echo.HTTPError) bool { return errors.As(err, he) }

// Bounds on what a URL may ask a session to replay.
const (
	maxCommands   = 2000
	maxCommandLen = 200
	defaultSeed   = 1
)

// course is the course being served, or an error page when none loaded.
func (s *Server) courseFor(c echo.Context) (string, *labs.Course, error) {
	lang := c.Param("lang")
	if !knownLang(lang) {
		return labs.DefaultLang, nil, notFound(labs.DefaultLang)
	}
	cur := s.course.get()
	if cur.course == nil {
		return lang, nil, &pageError{status: http.StatusServiceUnavailable, lang: lang, key: "error.content"}
	}
	return lang, cur.course, nil
}

// labFor is the language, course and lab a /{lang}/labs/{id}… route names.
func (s *Server) labFor(c echo.Context) (string, *labs.Course, *labs.Lab, error) {
	lang, course, err := s.courseFor(c)
	if err != nil {
		return lang, nil, nil, err
	}
	lab := course.Lab(c.Param("id"))
	if lab == nil {
		return lang, nil, nil, notFound(lang)
	}
	return lang, course, lab, nil
}

// replaySession rebuilds the session a URL describes. A command that is
// not valid is left out and reported; the rest still apply.
func replaySession(lab *labs.Lab, q url.Values) (session, *engine.World, string, error) {
	sess := session{Seed: defaultSeed}
	if s := q.Get("seed"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return sess, nil, "", &pageError{status: http.StatusBadRequest, lang: labs.DefaultLang, key: "error.notfound"}
		}
		sess.Seed = n
	}
	dos := q["do"]
	if len(dos) > maxCommands {
		dos = dos[:maxCommands]
	}
	// Without script, the freeze duration comes as its own field and belongs
	// to a freeze the same form just added.
	if d := q.Get("for"); d != "" && len(dos) > 0 {
		last := dos[len(dos)-1]
		if strings.HasPrefix(last, "freeze ") && !strings.Contains(last, "for=") {
			dos = append(dos[:len(dos)-1:len(dos)-1], last+" for="+d)
		}
	}
	w, err := lab.NewWorld(sess.Seed)
	if err != nil {
		return sess, nil, "", fmt.Errorf("lab %s: %w", lab.ID, err)
	}
	var cmdErr string
	apply := func(src string) {
		cmd, err := parseCommand(src)
		if err == nil {
			err = applyCommand(lab, w, cmd)
		}
		if err != nil {
			cmdErr = fmt.Sprintf("%q: %v", src, err)
			return
		}
		sess.add(cmd)
	}
	for _, src := range dos {
		apply(src)
	}
	if q.Get("replay") != "" {
		for _, src := range append([]string{"reset"}, sess.replayable()...) {
			apply(src)
		}
	}
	return sess, w, cmdErr, nil
}

// Bounds on one session's world, so that no student, script or link makes
// one cost the server much: the labs' horizons are two minutes at most, and
// a world this size renders in a few milliseconds. A reset starts afresh.
const (
	maxVirtual = 10 * engine.Minute
	maxEvents  = 10_000
)

// limitError is a command refused because the session is as big as it may
// grow.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// checkLimits refuses a command that would take the world past its bounds.
func checkLimits(w *engine.World, cmd engine.Command) error {
	switch cmd.Kind {
	case engine.CmdAdvance, engine.CmdUntil, engine.CmdStep:
	default:
		return nil
	}
	to := w.Now()
	switch cmd.Kind {
	case engine.CmdAdvance:
		to += cmd.Dur
	case engine.CmdUntil:
		to = cmd.At
	}
	if to > maxVirtual || cmd.Kind == engine.CmdStep && to >= maxVirtual {
		return &limitError{fmt.Sprintf("a session stops at %s of virtual time; reset to start again", maxVirtual)}
	}
	if len(w.Events()) >= maxEvents {
		return &limitError{fmt.Sprintf("a session holds at most %d events; reset to start again", maxEvents)}
	}
	return nil
}

// applyCommand applies one command within the session's limits. A reset
// starts a new world, and every new world of a lab gets the lab's setup
// commands.
func applyCommand(lab *labs.Lab, w *engine.World, cmd engine.Command) error {
	if err := lab.Refusal(cmd); err != nil {
		return err
	}
	if err := checkLimits(w, cmd); err != nil {
		return err
	}
	if err := w.Apply(cmd); err != nil {
		return err
	}
	if cmd.Kind != engine.CmdReset {
		return nil
	}
	for _, src := range lab.Setup() {
		if err := w.Do(src); err != nil {
			return fmt.Errorf("lab %s setup %q after reset: %w", lab.ID, src, err)
		}
	}
	return nil
}

func parseCommand(src string) (engine.Command, error) {
	if len(src) > maxCommandLen {
		return engine.Command{}, fmt.Errorf("command longer than %d characters", maxCommandLen)
	}
	return engine.ParseCommand(strings.TrimSpace(src))
}

// answer asks the engine to decide a predict question.
func answer(lab *labs.Lab, qid, choice, lang string) (*answerView, error) {
	v, err := lab.CheckQuestion(qid, choice, lang)
	if err != nil {
		return nil, err
	}
	hl := map[int]bool{}
	for _, e := range v.Evidence {
		hl[e.Index] = true
	}
	return &answerView{
		Lang: lang, Lab: lab, Question: lab.Question(qid), Choice: choice, Verdict: v,
		Diagram: NewDiagram("q-"+qid, v.World, lang, hl),
		Events:  &eventsView{ID: "evidence-" + qid, Lang: lang, Events: v.World.Events(), Names: v.World.Names(), Highlight: hl, Only: hl},
	}, nil
}

// checkGoal judges a goal on the student's own world.
func checkGoal(lab *labs.Lab, gid string, w *engine.World, lang string) (*goalView, error) {
	v, err := lab.CheckGoal(gid, w, lang)
	if err != nil {
		return nil, err
	}
	return &goalView{Lang: lang, Goal: lab.Goal(gid), Verdict: v}, nil
}
