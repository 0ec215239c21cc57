package class

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// Votes come in floods: a class answers in the same second. One writer
// takes every vote waiting and stores them in one transaction, checked
// together (group commit), so a class of 300 costs a few commits rather
// than 300 — on PostgreSQL a commit waits for the disk.
const (
	voteQueue = 4096 // votes waiting for the writer
	voteBatch = 500  // votes in one transaction at most
)

// voteReq is one vote waiting for the writer; done gets its outcome.
type voteReq struct {
	classID, studentID string
	round              int64
	choice             string
	done               chan error
}

// startVotes starts the writer; Close stops it.
func (s *Service) startVotes() {
	s.votes = make(chan *voteReq, voteQueue)
	s.voting.Add(1)
	go func() {
		defer s.voting.Done()
		for r := range s.votes {
			batch := []*voteReq{r}
		more:
			for len(batch) < voteBatch {
				select {
				case r, ok := <-s.votes:
					if !ok {
						break more
					}
					batch = append(batch, r)
				default:
					break more
				}
			}
			s.writeVotes(batch)
		}
	}()
}

// stopVotes lets the writer store what is queued, then stops it.
func (s *Service) stopVotes() {
	s.votesMu.Lock()
	if !s.votesClosed {
		s.votesClosed = true
		close(s.votes)
	}
	s.votesMu.Unlock()
	s.voting.Wait()
}

// Vote records a student's answer in an open round; voting again changes
// the answer (one vote per student and round). It returns once the vote
// is stored, or with why it was not.
func (s *Service) Vote(ctx context.Context, classID, studentID string, roundID int64, choice string) error {
	r := &voteReq{classID: classID, studentID: studentID, round: roundID, choice: choice, done: make(chan error, 1)}
	s.votesMu.RLock()
	if s.votesClosed {
		s.votesMu.RUnlock()
		return s.fail(errors.New("the class service is closed"))
	}
	select {
	case s.votes <- r:
	case <-ctx.Done():
		s.votesMu.RUnlock()
		return ctx.Err()
	}
	s.votesMu.RUnlock()
	return <-r.done
}

// roundKey is a round of a class.
type roundKey struct {
	class string
	round int64
}

// writeVotes stores a batch: each vote is checked (class running, round
// open, choice offered, student joined); the good ones are written in one
// transaction with one notification per round. A vote refused keeps its
// own error; a database error fails every vote of the batch, none stored.
func (s *Service) writeVotes(batch []*voteReq) {
	errs := make([]error, len(batch))
	var changed []roundKey
	err := s.inTx(context.Background(), func(tx *sql.Tx) error {
		ctx := context.Background()
		rounds, err := s.batchRounds(ctx, tx, batch)
		if err != nil {
			return err
		}
		members, err := s.batchMembers(ctx, tx, batch)
		if err != nil {
			return err
		}
		good := judgeVotes(batch, rounds, members, errs)
		if err := s.insertVotes(ctx, tx, batch, good); err != nil {
			return err
		}
		for _, i := range good {
			k := roundKey{batch[i].classID, batch[i].round}
			if !slices.Contains(changed, k) {
				changed = append(changed, k)
				if err := s.notify(ctx, tx, Change{Class: k.class, What: ChangedVote, Round: k.round}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err == nil {
		for _, k := range changed {
			s.hub.publish(Change{Class: k.class, What: ChangedVote, Round: k.round})
		}
	}
	for i, r := range batch {
		if err != nil {
			r.done <- err
		} else {
			r.done <- errs[i]
		}
	}
}

// batchRound is what a batch's votes need of their round: why none may
// be cast in it, or the choices it offers.
type batchRound struct {
	err     error
	choices []string
}

// batchRounds reads the round of each vote of the batch, once a round.
func (s *Service) batchRounds(ctx context.Context, tx *sql.Tx, batch []*voteReq) (map[roundKey]*batchRound, error) {
	rounds := map[roundKey]*batchRound{}
	for _, r := range batch {
		k := roundKey{r.classID, r.round}
		if rounds[k] != nil {
			continue
		}
		ri := &batchRound{}
		var state, js string
		var ended sql.NullInt64
		err := tx.QueryRowContext(ctx, s.q(`SELECT c.ended, COALESCE(r.state, ''), COALESCE(r.choices, '')
			FROM classes c LEFT JOIN rounds r ON r.class_id = c.id AND r.id = ? WHERE c.id = ?`),
			r.round, r.classID).Scan(&ended, &state, &js)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			ri.err = ErrNoClass
		case err != nil:
			return nil, err
		case ended.Valid:
			ri.err = ErrEnded
		case state == "":
			ri.err = ErrNoRound
		case state != RoundOpen:
			ri.err = ErrRoundClosed
		default:
			if err := json.Unmarshal([]byte(js), &ri.choices); err != nil {
				return nil, err
			}
		}
		rounds[k] = ri
	}
	return rounds, nil
}

// batchMembers is, for each class of the batch, the students of the
// batch who joined it.
func (s *Service) batchMembers(ctx context.Context, tx *sql.Tx, batch []*voteReq) (map[string]map[string]bool, error) {
	members := map[string]map[string]bool{}
	for _, r := range batch {
		if members[r.classID] == nil {
			members[r.classID] = map[string]bool{}
		}
	}
	for classID, joined := range members {
		var ids []any
		for _, r := range batch {
			if r.classID == classID && validStudentID(r.studentID) {
				ids = append(ids, r.studentID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		rows, err := tx.QueryContext(ctx, s.q("SELECT id FROM students WHERE class_id = ? AND id IN (?"+strings.Repeat(", ?", len(ids)-1)+")"),
			append([]any{classID}, ids...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			joined[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return members, nil
}

// judgeVotes sets errs[i] for each vote refused, and returns the indexes
// of the votes to store, in batch order: the last vote of a student in a
// round wins, as if sent one by one.
func judgeVotes(batch []*voteReq, rounds map[roundKey]*batchRound, members map[string]map[string]bool, errs []error) []int {
	type voteKey struct {
		roundKey
		student string
	}
	last := map[voteKey]int{}
	for i, r := range batch {
		ri := rounds[roundKey{r.classID, r.round}]
		switch {
		case ri.err != nil:
			errs[i] = ri.err
		case !slices.Contains(ri.choices, r.choice):
			errs[i] = ErrBadChoice
		case !members[r.classID][r.studentID]:
			errs[i] = ErrNotJoined
		default:
			last[voteKey{roundKey{r.classID, r.round}, r.studentID}] = i
		}
	}
	var good []int
	for _, i := range last {
		good = append(good, i)
	}
	slices.Sort(good)
	return good
}

// insertVotes stores the good votes, a hundred to a statement.
func (s *Service) insertVotes(ctx context.Context, tx *sql.Tx, batch []*voteReq, good []int) error {
	now := s.ms()
	for start := 0; start < len(good); start += 100 {
		part := good[start:min(len(good), start+100)]
		var args []any
		for _, i := range part {
			r := batch[i]
			args = append(args, r.classID, r.round, r.studentID, r.choice, now)
		}
		_, err := tx.ExecContext(ctx, s.q("INSERT INTO votes (class_id, round_id, student_id, choice, at) VALUES (?, ?, ?, ?, ?)"+
			strings.Repeat(", (?, ?, ?, ?, ?)", len(part)-1)+
			" ON CONFLICT (class_id, round_id, student_id) DO UPDATE SET choice = excluded.choice, at = excluded.at"), args...)
		if err != nil {
			return err
		}
	}
	return nil
}
