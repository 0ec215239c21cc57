package class

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// stepEvery is how often the students' last commands are written: a class
// sends a command per student every few seconds, and only the last one of
// each student in each lab is kept, so they wait in memory and go to the
// database together, one transaction and one change per class.
const stepEvery = 500 * time.Millisecond

type stepKey struct{ class, lab, student string }

type stepVal struct {
	command string
	at      int64
}

// steps holds the commands not yet written.
type steps struct {
	mu      sync.Mutex
	pending map[stepKey]stepVal
	stop    chan struct{}
	done    sync.WaitGroup
}

// Step records a student's last command in a lab (for "where the class
// is"); the web layer reports it after the engine took the command. It
// only checks the text and returns: the command is written within
// stepEvery (Progress writes those of its class first), for a student of
// a running class; any other is dropped then.
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

func (s *Service) startSteps() {
	s.steps.pending = map[stepKey]stepVal{}
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

// flushSteps writes the pending commands (of one class, or all for "")
// in one transaction. If the database refuses, they wait for the next
// flush unless a newer command of the same student replaced them.
func (s *Service) flushSteps(ctx context.Context, classID string) error {
	s.steps.mu.Lock()
	batch := map[stepKey]stepVal{}
	for k, v := range s.steps.pending {
		if classID == "" || k.class == classID {
			batch[k] = v
			delete(s.steps.pending, k)
		}
	}
	s.steps.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	classes := map[string]bool{}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for k, v := range batch {
			// Only a student of a running class: the rest is dropped.
			res, err := tx.ExecContext(ctx, s.sql.upsertStep,
				k.class, k.lab, k.student, v.command, v.at, k.class, k.student)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n > 0 && !classes[k.class] {
				classes[k.class] = true
				if err := s.notify(ctx, tx, Change{Class: k.class, What: ChangedProgress}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		s.steps.mu.Lock()
		for k, v := range batch {
			if _, newer := s.steps.pending[k]; !newer {
				s.steps.pending[k] = v
			}
		}
		s.steps.mu.Unlock()
		return err
	}
	for c := range classes {
		s.hub.publish(Change{Class: c, What: ChangedProgress})
	}
	return nil
}
