package web

import (
	"context"
	"net/http"
	"time"

	"leaselab/engine"
	"leaselab/labs"
)

// Where the class is: a student's commands and the goals they reach are
// told to their class, for the dashboard's "where the class is". The
// telling never holds up the lab: notes go through a queue to one
// goroutine, and when the store is slow or down they are dropped (the
// dashboard's picture is a summary; the lab keeps playing).

// progressNote is one thing a student did in a lab: a command, or a goal
// reached (goal set).
type progressNote struct {
	classID, studentID, lab, command, goal string
}

// progressQueue is how many notes may wait for the store.
const progressQueue = 4096

// classmate is a student of a running class, as a request's cookie names
// them; nil when the request carries none the store knows.
type classmate struct{ classID, code, studentID string }

// classmateOf reads the class cookie and finds its class.
func (s *Server) classmateOf(r *http.Request) *classmate {
	if s.classes == nil {
		return nil
	}
	code, id, ok := studentOf(r)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	cl, err := s.classes.ByCode(ctx, code)
	if err != nil {
		return nil
	}
	return &classmate{classID: cl.ID, code: cl.Code, studentID: id}
}

// step notes a command of m's in lab.
func (s *Server) step(m *classmate, lab *labs.Lab, command string) {
	if m != nil && command != "" {
		s.note(progressNote{classID: m.classID, studentID: m.studentID, lab: lab.ID, command: command})
	}
}

// reached notes a goal m reached in lab.
func (s *Server) reached(m *classmate, lab *labs.Lab, goal string) {
	if m != nil {
		s.note(progressNote{classID: m.classID, studentID: m.studentID, lab: lab.ID, goal: goal})
	}
}

func (s *Server) note(n progressNote) {
	select {
	case s.progress <- n:
	default: // the store is behind: this note is dropped, the lab plays on
	}
}

// progressLoop writes the notes to the store, one at a time.
func (s *Server) progressLoop() {
	for {
		select {
		case <-s.ctx.Done():
			return
		case n := <-s.progress:
			ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
			var err error
			if n.goal != "" {
				err = s.classes.Reached(ctx, n.classID, n.studentID, n.lab, n.goal)
			} else {
				err = s.classes.Step(ctx, n.classID, n.studentID, n.lab, n.command)
			}
			cancel()
			_ = err // the store logs its own trouble, once a minute
		}
	}
}

// classObserver tells a student's class what they do in a live lab
// session (live.Observer), and which of the lab's goals their world meets
// as it moves (live.Mover): a goal counts as reached when the engine
// says so, whether or not the student pressed Check (issue 43).
type classObserver struct {
	s   *Server
	m   *classmate
	lab *labs.Lab
	// Under the session's lock: the goals told reached, and the world's
	// events and the time when the goals were last checked.
	told    map[string]bool
	seen    int
	checked time.Time
}

// goalCheckEvery is how often a playing world's goals are checked: a play
// frame comes every tenth of a second, and a goal reached is told within
// a second. A command's world is checked at once.
const goalCheckEvery = time.Second

// Moved checks the lab's goals not yet told against the world, when it
// has new events: on play frames at most every goalCheckEvery.
func (o *classObserver) Moved(w *engine.World, frame bool) {
	n := len(w.Events())
	if n == o.seen || len(o.told) == len(o.lab.Goals) {
		return
	}
	now := o.s.live.Clock.Now()
	if frame && now.Sub(o.checked) < goalCheckEvery {
		return
	}
	o.seen, o.checked = n, now
	for _, g := range o.lab.Goals {
		if o.told[g.ID] {
			continue
		}
		if v, err := o.lab.CheckGoal(g.ID, w, labs.DefaultLang); err == nil && v.Correct {
			if o.told == nil {
				o.told = map[string]bool{}
			}
			o.told[g.ID] = true
			o.s.reached(o.m, o.lab, g.ID)
		}
	}
}

func (o *classObserver) Step(command string) { o.s.step(o.m, o.lab, command) }

func (o *classObserver) Goal(goal string, w *engine.World) {
	if v, err := o.lab.CheckGoal(goal, w, labs.DefaultLang); err == nil && v.Correct {
		o.s.reached(o.m, o.lab, goal)
	}
}

// labProgress tells the class of the student a lab page is for (a page
// without script: each control reloads it) the page's last command and,
// when the page checks a goal the student's world reaches, the goal.
func (s *Server) labProgress(r *http.Request, lab *labs.Lab) {
	m := s.classmateOf(r)
	if m == nil {
		return
	}
	q := r.URL.Query()
	if do := q["do"]; len(do) > 0 {
		s.step(m, lab, do[len(do)-1])
	}
	gid := q.Get("goal")
	if gid == "" || lab.Goal(gid) == nil {
		return
	}
	sess, _, err := openSession(lab, q)
	if err != nil {
		return
	}
	if v, err := lab.CheckGoal(gid, sess.World(), labs.DefaultLang); err == nil && v.Correct {
		s.reached(m, lab, gid)
	}
}
