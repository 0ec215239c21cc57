package class

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// The students' progress: their last command in each lab and the goals
// they reach. A class sends a command per student every few seconds, and
// only the last one of each student in each lab is kept, so they wait in
// memory and go to the database together every stepEvery, one
// transaction and one change per class, with the goals reached meanwhile.
// Telling them (Step, Reached) only checks the text and returns: a live
// session tells them under its lock, and the lab never waits for the
// store. This is class mode's one progress queue.
const stepEvery = 500 * time.Millisecond

type stepKey struct{ class, lab, student string }

type stepVal struct {
	command string
	at      int64
}

type goalKey struct{ class, lab, goal, student string }

// steps holds the commands and goals not yet written.
type steps struct {
	mu      sync.Mutex
	pending map[stepKey]stepVal
	goals   map[goalKey]int64 // when reached
	stop    chan struct{}
	done    sync.WaitGroup
}

// Step records a student's last command in a lab (for "where the class
// is"); the web layer reports it after the engine took the command. It
// is written within stepEvery (Progress, Roster, Grades and End write
// those of their class first), for a student of a running class; any
// other is dropped then.
func (s *Service) Step(ctx context.Context, classID, studentID, lab, command string) error {
	lab, command, err := labField(lab, "command", command)
	if err != nil {
		return err
	}
	s.steps.mu.Lock()
	s.steps.pending[stepKey{classID, lab, studentID}] = stepVal{command, s.ms()}
	s.steps.mu.Unlock()
	return nil
}

// Reached records that a student reached a goal of a lab, as the engine
// checked it; the first time counts, a repeat changes nothing. It is
// written as Step's commands are.
func (s *Service) Reached(ctx context.Context, classID, studentID, lab, goal string) error {
	lab, goal, err := labField(lab, "goal", goal)
	if err != nil {
		return err
	}
	k := goalKey{classID, lab, goal, studentID}
	s.steps.mu.Lock()
	if _, ok := s.steps.goals[k]; !ok {
		s.steps.goals[k] = s.ms()
	}
	s.steps.mu.Unlock()
	return nil
}

func (s *Service) startSteps() {
	s.steps.pending = map[stepKey]stepVal{}
	s.steps.goals = map[goalKey]int64{}
	s.steps.stop = make(chan struct{})
	s.steps.done.Add(1)
	go func() {
		defer s.steps.done.Done()
		t := time.NewTicker(stepEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				s.flushSteps(context.Background(), "")
			case <-s.steps.stop:
				s.flushSteps(context.Background(), "")
				return
			}
		}
	}()
}

func (s *Service) stopSteps() {
	if s.steps.stop == nil {
		return
	}
	select {
	case <-s.steps.stop:
	default:
		close(s.steps.stop)
	}
	s.steps.done.Wait()
}

// progressBatch is what one flush writes.
type progressBatch struct {
	steps map[stepKey]stepVal
	goals map[goalKey]int64
}

// take takes the pending commands and goals of one class, or all for "".
func (st *steps) take(classID string) progressBatch {
	st.mu.Lock()
	defer st.mu.Unlock()
	b := progressBatch{map[stepKey]stepVal{}, map[goalKey]int64{}}
	for k, v := range st.pending {
		if classID == "" || k.class == classID {
			b.steps[k] = v
			delete(st.pending, k)
		}
	}
	for k, at := range st.goals {
		if classID == "" || k.class == classID {
			b.goals[k] = at
			delete(st.goals, k)
		}
	}
	return b
}

// putBack queues a batch the database refused again, unless a newer
// command of the same student replaced one meanwhile.
func (st *steps) putBack(b progressBatch) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for k, v := range b.steps {
		if _, newer := st.pending[k]; !newer {
			st.pending[k] = v
		}
	}
	for k, at := range b.goals {
		if _, again := st.goals[k]; !again {
			st.goals[k] = at
		}
	}
}

// flushSteps writes the pending commands and goals (of one class, or all
// for "") in one transaction, and tells each class that changed. If the
// database refuses, they wait for the next flush.
func (s *Service) flushSteps(ctx context.Context, classID string) error {
	b := s.steps.take(classID)
	if len(b.steps)+len(b.goals) == 0 {
		return nil
	}
	classes := map[string]bool{}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.writeProgress(ctx, tx, b, classes)
	})
	if err != nil {
		s.steps.putBack(b)
		return err
	}
	for c := range classes {
		s.hub.publish(Change{Class: c, What: ChangedProgress})
	}
	return nil
}

// writeProgress writes a batch in tx, only for students of running
// classes (the rest is dropped), and notifies each class it changed,
// which it adds to classes.
func (s *Service) writeProgress(ctx context.Context, tx *sql.Tx, b progressBatch, classes map[string]bool) error {
	changed := func(class string, res sql.Result) error {
		n, err := res.RowsAffected()
		if err != nil || n == 0 || classes[class] {
			return err
		}
		classes[class] = true
		return s.notify(ctx, tx, Change{Class: class, What: ChangedProgress})
	}
	for k, v := range b.steps {
		res, err := tx.ExecContext(ctx, s.sql.upsertStep, k.class, k.lab, k.student, v.command, v.at, k.class, k.student)
		if err == nil {
			err = changed(k.class, res)
		}
		if err != nil {
			return err
		}
	}
	for k, at := range b.goals {
		res, err := tx.ExecContext(ctx, s.sql.insertReached, k.class, k.lab, k.goal, k.student, at, k.class, k.student)
		if err == nil {
			err = changed(k.class, res)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
