package classroom

import (
	"context"
	"time"

	"leaselab/engine"
	"leaselab/labs"
)

// Where the class is: a student's commands and the goals they reach are
// told to their class, for the dashboard's "where the class is". The
// telling never holds up the lab: notes go through a queue to one
// goroutine, and when the store is slow or down they are dropped (the
// dashboard's picture is a summary; the lab keeps playing).

// note is one thing a student did in a lab: a command, or a goal reached
// (goal set).
type note struct {
	m                  Member
	lab, command, goal string
}

// progressQueue is how many notes may wait for the store.
const progressQueue = 4096

// Step notes a command of m's in lab.
func (r *Room) Step(m Member, lab, command string) {
	if command != "" {
		r.note(note{m: m, lab: lab, command: command})
	}
}

// Reached notes a goal m reached in lab.
func (r *Room) Reached(m Member, lab, goal string) {
	r.note(note{m: m, lab: lab, goal: goal})
}

func (r *Room) note(n note) {
	select {
	case r.progress <- n:
	default: // the store is behind: this note is dropped, the lab plays on
	}
}

// progressLoop writes the notes to the store, one at a time.
func (r *Room) progressLoop() {
	for {
		select {
		case <-r.cfg.Done.Done():
			return
		case n := <-r.progress:
			ctx, cancel := context.WithTimeout(r.cfg.Done, 5*time.Second)
			var err error
			if n.goal != "" {
				err = r.cfg.Classes.Reached(ctx, n.m.ClassID, n.m.StudentID, n.lab, n.goal)
			} else {
				err = r.cfg.Classes.Step(ctx, n.m.ClassID, n.m.StudentID, n.lab, n.command)
			}
			cancel()
			_ = err // the store logs its own trouble, once a minute
		}
	}
}

// Observer tells a student's class what they do in a live lab session
// (live.Observer), and which of the lab's goals their world meets as it
// moves (live.Mover): a goal counts as reached when the engine says so,
// whether or not the student pressed Check (issue 43).
type Observer struct {
	r   *Room
	m   Member
	lab *labs.Lab
	// Under the session's lock: the goals told reached, and the world's
	// events and the time when the goals were last checked.
	told    map[string]bool
	seen    int
	checked time.Time
}

// Observer is the observer of a student's session in lab.
func (r *Room) Observer(m Member, lab *labs.Lab) *Observer {
	return &Observer{r: r, m: m, lab: lab}
}

// goalCheckEvery is how often a playing world's goals are checked: a play
// frame comes every tenth of a second, and a goal reached is told within
// a second. A command's world is checked at once.
const goalCheckEvery = time.Second

// Moved checks the lab's goals not yet told against the world, when it
// has new events: on play frames at most every goalCheckEvery.
func (o *Observer) Moved(w *engine.World, frame bool) {
	n := len(w.Events())
	if n == o.seen || len(o.told) == len(o.lab.Goals) {
		return
	}
	now := o.r.cfg.Clock.Now()
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
			o.r.Reached(o.m, o.lab.ID, g.ID)
		}
	}
}

// Step tells the class a command of the student's.
func (o *Observer) Step(command string) { o.r.Step(o.m, o.lab.ID, command) }

// Goal tells the class a goal the student checked, if their world meets it.
func (o *Observer) Goal(goal string, w *engine.World) {
	if v, err := o.lab.CheckGoal(goal, w, labs.DefaultLang); err == nil && v.Correct {
		o.r.Reached(o.m, o.lab.ID, goal)
	}
}
