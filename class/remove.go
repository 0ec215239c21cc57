package class

import (
	"context"
	"database/sql"
	"fmt"
)

// Remove takes a student out of a running class, with their votes, last
// steps and goals reached (issue 51): for an instructor who sees joins
// that are no student, such as a script's. Their seat is free again and
// their answers no longer count; the class's watchers are told that the
// students and the counts changed. ErrNotJoined when the class has no
// such student, ErrEnded when it has ended.
func (s *Service) Remove(ctx context.Context, classID, studentID string) error {
	if !validStudentID(studentID) {
		return fmt.Errorf("%w: student id", ErrBadInput)
	}
	changes := []Change{{Class: classID, What: ChangedJoin}, {Class: classID, What: ChangedRound}}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil {
			return err
		}
		// The student's votes, steps and goals go with them (ON DELETE
		// CASCADE); a step still waiting in memory is dropped when it is
		// written, as any step of one who is not a student.
		res, err := tx.ExecContext(ctx, s.sql.deleteStudent, classID, studentID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotJoined
		}
		return s.notify(ctx, tx, changes...)
	})
	s.members.remove(classID, studentID)
	if err != nil {
		return err
	}
	for _, c := range changes {
		s.hub.publish(c)
	}
	return nil
}
