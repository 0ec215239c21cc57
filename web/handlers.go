package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"leaselab/draw"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/labsession"
)

func asPageError(err error, pe **pageError) bool      { return errors.As(err, pe) }
func asHTTPError(err error, he **echo.HTTPError) bool { return errors.As(err, he) }

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

// openSession rebuilds the session a URL's query describes. A command that
// is not valid is left out and reported in refused; the rest still apply.
func openSession(lab *labs.Lab, q url.Values) (sess *labsession.Session, refused error, err error) {
	sess, refused, err = labsession.FromQuery(lab, q)
	if err != nil {
		return nil, nil, &pageError{status: http.StatusBadRequest, lang: labs.DefaultLang, key: "error.notfound"}
	}
	return sess, refused, nil
}

// answerKey names a predict question's verdict in the cache.
type answerKey struct {
	lab                    *labs.Lab // a reload makes new labs: old verdicts age out
	question, choice, lang string
}

// answer asks the engine to decide a predict question, once per lab,
// question, choice and language.
func (s *Server) answer(lab *labs.Lab, qid, choice, lang string) (*answerView, error) {
	if err := answerable(lab, qid, choice); err != nil {
		return nil, err
	}
	key := answerKey{lab, qid, choice, lang}
	v, ok := s.answers.get(key)
	if !ok {
		var err error
		if v, err = lab.CheckQuestion(qid, choice, lang); err != nil {
			return nil, err
		}
		s.answers.put(key, v)
	}
	hl := map[int]bool{}
	for _, e := range v.Evidence {
		hl[e.Index] = true
	}
	return &answerView{
		Lang: lang, Lab: lab, Question: lab.Question(qid), Choice: choice, Verdict: v,
		Diagram: draw.ZoomedDiagram("q-"+qid, v.World, lang, hl),
		Events:  &draw.Events{ID: "evidence-" + qid, Lang: lang, Events: v.World.Events(), Names: v.World.Names(), Highlight: hl, Only: hl},
	}, nil
}

// answerable says, in the student's words, why a question cannot be
// answered with a choice: the lab has no such question, or the question
// no such choice (an answer of kilobytes, which says its size rather than
// itself). Only what a page could send reaches the engine.
func answerable(lab *labs.Lab, qid, choice string) error {
	q := lab.Question(qid)
	if q == nil {
		return &webError{"err.answer.question", []any{shortText(qid)}, "no question " + labsession.Clip(qid)}
	}
	if q.Choice(choice) != nil {
		return nil
	}
	if len(choice) > maxChoiceSaid {
		return &webError{"err.answer.long", []any{len(choice)}, "an answer of " + strconv.Itoa(len(choice)) + " bytes"}
	}
	return &webError{"err.answer.choice", []any{choice}, "not a choice of question " + q.ID + ": " + labsession.Clip(choice)}
}

// maxChoiceSaid is the longest answer an error repeats: a choice is a
// short name.
const maxChoiceSaid = 40

// checkGoal judges a goal on the student's own world.
func checkGoal(lab *labs.Lab, gid string, w *engine.World, lang string) (*goalView, error) {
	if lab.Goal(gid) == nil {
		return nil, &webError{"err.goal.unknown", []any{shortText(gid)}, "no goal " + labsession.Clip(gid)}
	}
	v, err := lab.CheckGoal(gid, w, lang)
	if err != nil {
		return nil, err
	}
	return &goalView{Lang: lang, Goal: lab.Goal(gid), Verdict: v}, nil
}
