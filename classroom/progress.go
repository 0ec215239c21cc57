package classroom

import (
	"context"
	"time"

	"leaselab/engine"
	"leaselab/labs"
)

// Where the class is: a student's commands and the goals they reach are
// told to their class, for the dashboard's "where the class is". The
// telling never holds up the lab: the store queues them (class.Step and
// Reached only check the text) and writes them together, its one
// progress queue; when the store is down they wait for it.

// Step tells m's class a command of theirs in lab.
func (r *Room) Step(m Member, lab, command string) {
	if command != "" {
		r.cfg.Classes.Step(context.Background(), m.ClassID, m.StudentID, lab, command) // refused only for its text
	}
}

// Reached tells m's class a goal they reached in lab.
func (r *Room) Reached(m Member, lab, goal string) {
	r.cfg.Classes.Reached(context.Background(), m.ClassID, m.StudentID, lab, goal)
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
