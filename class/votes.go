package class

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"sync"
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
	sure               Confidence // how sure the student said they were (issue 44)
	// then gets the outcome, on the writer (or at once when the vote
	// cannot wait): the round's choices for a vote stored, else why not.
	then func(choices []string, err error)
}

// finish tells the vote's caller its outcome.
func (r *voteReq) finish(s *Service, choices []string, err error) {
	defer func() {
		// A bug in a caller's function fails that vote only: the writer
		// goes on with the others.
		if p := recover(); p != nil {
			s.logf("class: a vote's callback panicked: %v", p)
		}
	}()
	r.then(choices, err)
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
	_, err := s.Cast(ctx, classID, studentID, roundID, choice, NotAsked)
	return err
}

// Cast is Vote that also returns the round's choices once the vote is
// stored, so that the caller can say which one was kept without asking
// the store again, and keeps how sure the student said they were. It
// waits for room in the writer's queue until ctx ends.
func (s *Service) Cast(ctx context.Context, classID, studentID string, roundID int64, choice string, sure Confidence) ([]string, error) {
	type outcome struct {
		choices []string
		err     error
	}
	done := make(chan outcome, 1)
	s.enqueue(ctx, true, &voteReq{classID: classID, studentID: studentID, round: roundID, choice: choice, sure: sure,
		then: func(choices []string, err error) { done <- outcome{choices, err} }})
	o := <-done
	return o.choices, o.err
}

// CastThen is Cast without waiting: then gets the outcome, on the
// store's writer once the vote's transaction is done, or at once when the
// vote cannot wait (the service closed, too many waiting). A lecture
// room's votes then hold no goroutine each while the store writes. then
// must be quick and must not block.
func (s *Service) CastThen(classID, studentID string, roundID int64, choice string, sure Confidence, then func(choices []string, err error)) {
	s.enqueue(context.Background(), false, &voteReq{classID: classID, studentID: studentID, round: roundID, choice: choice, sure: sure, then: then})
}

// enqueue hands r to the writer. A full queue refuses r at once, or when
// wait, r waits for room until ctx ends.
func (s *Service) enqueue(ctx context.Context, wait bool, r *voteReq) {
	s.votesMu.RLock()
	defer s.votesMu.RUnlock()
	if s.votesClosed {
		r.finish(s, nil, s.fail(errors.New("the class service is closed")))
		return
	}
	if !wait {
		select {
		case s.votes <- r:
		default:
			r.finish(s, nil, s.fail(errors.New("too many votes waiting for the store")))
		}
		return
	}
	select {
	case s.votes <- r:
	case <-ctx.Done():
		r.finish(s, nil, ctx.Err())
	}
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
	errs, rounds, err := s.storeBatch(batch)
	if err != nil && s.back.brokeReference(err) && s.members.forget(batch) {
		// A student the cache knew was removed since (Remove, maybe on
		// another replica): their vote broke the votes' reference to the
		// students and failed the batch. Once more, with those students
		// read from the store.
		errs, rounds, err = s.storeBatch(batch)
	}
	for i, r := range batch {
		switch {
		case err != nil:
			r.finish(s, nil, err)
		case errs[i] != nil:
			r.finish(s, nil, errs[i])
		default:
			r.finish(s, rounds[roundKey{r.classID, r.round}].choices, nil)
		}
	}
}

// storeBatch is writeVotes' transaction: each vote's own error and the
// rounds read, or the error that failed them all. Committed, it tells
// the rounds it changed.
func (s *Service) storeBatch(batch []*voteReq) (errs []error, rounds map[roundKey]*batchRound, err error) {
	errs = make([]error, len(batch))
	var changed []roundKey
	err = s.inTx(context.Background(), func(tx *sql.Tx) error {
		ctx := context.Background()
		var err error
		rounds, err = s.batchRounds(ctx, tx, batch)
		if err != nil {
			return err
		}
		members, err := s.batchMembers(ctx, tx, batch)
		if err != nil {
			return err
		}
		good := judgeVotes(batch, rounds, members, errs)
		if err := s.storeVotes(ctx, tx, batch, good); err != nil {
			return err
		}
		var cs []Change
		for _, i := range good {
			if k := (roundKey{batch[i].classID, batch[i].round}); !slices.Contains(changed, k) {
				changed = append(changed, k)
				cs = append(cs, Change{Class: k.class, What: ChangedVote, Round: k.round})
			}
		}
		return s.notify(ctx, tx, cs...)
	})
	if err == nil {
		// Told at once: a class voting at once changes its counts many
		// times a second, and its watchers (the class's feed, classroom)
		// send at most one update in Throttle's time.
		for _, k := range changed {
			s.hub.publish(Change{Class: k.class, What: ChangedVote, Round: k.round})
		}
	}
	return errs, rounds, err
}

// maxVoteList bounds the votes and students of one statement: lists go
// in parts of a power of two up to it (chunks), so that the vote writer
// has a few statements only, each prepared once (voteStmts, Service.stmt).
const maxVoteList = 64

// voteStmts are the texts of every statement the vote writer runs.
func (s *Service) voteStmts() []string {
	qs := []string{s.sql.roundOfVote}
	for n := 1; n <= maxVoteList; n *= 2 {
		qs = append(qs, s.sql.joinedOf(n), s.sql.insertVotes(n))
	}
	return qs
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
		var ended, closes sql.NullInt64
		st, err := s.stmt(ctx, tx, s.sql.roundOfVote)
		if err != nil {
			return nil, err
		}
		err = st.QueryRowContext(ctx, r.round, r.classID).Scan(&ended, &state, &js, &closes)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			ri.err = ErrNoClass
		case err != nil:
			return nil, err
		case ended.Valid:
			ri.err = ErrEnded
		case state == "":
			ri.err = ErrNoRound
		case state != RoundOpen, closes.Valid && s.ms() >= closes.Int64:
			// A timed vote takes none from its time on, whether or not
			// its timer has closed it yet (timer.go).
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
			switch {
			case r.classID != classID || !validStudentID(r.studentID) || joined[r.studentID]:
			case s.members.has(classID, r.studentID):
				joined[r.studentID] = true
			default:
				ids = append(ids, r.studentID)
			}
		}
		for _, n := range chunks(len(ids), maxVoteList) {
			if err := s.joinedOf(ctx, tx, classID, ids[:n], joined); err != nil {
				return nil, err
			}
			ids = ids[n:]
		}
	}
	return members, nil
}

// joinedOf marks in joined the students of ids who joined the class.
func (s *Service) joinedOf(ctx context.Context, tx *sql.Tx, classID string, ids []any, joined map[string]bool) error {
	st, err := s.stmt(ctx, tx, s.sql.joinedOf(len(ids)))
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(ctx, append([]any{classID}, ids...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		joined[id] = true
		s.members.add(classID, id)
	}
	return rows.Err()
}

// memberCache holds students known to have joined their class, so that a
// lecture room's votes need no query for the students the store has
// already seen joining or voting. A student leaves a class only when the
// instructor removes them (Remove), which forgets them here; another
// replica's cache may still hold them, and a vote of theirs there fails
// its batch once, which writeVotes then stores again without the cache.
// Bounded: past maxMembers it starts anew.
type memberCache struct {
	mu sync.Mutex
	m  map[memberKey]struct{}
}

type memberKey struct{ class, student string }

// maxMembers bounds the students the cache holds (about 100 bytes each).
const maxMembers = 100_000

func (c *memberCache) has(classID, studentID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[memberKey{classID, studentID}]
	return ok
}

func (c *memberCache) add(classID, studentID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxMembers {
		c.m = map[memberKey]struct{}{}
	}
	c.m[memberKey{classID, studentID}] = struct{}{}
}

// remove forgets a student who left the class (Remove).
func (c *memberCache) remove(classID, studentID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, memberKey{classID, studentID})
}

// forget forgets the students of a batch, and says whether it knew any.
func (c *memberCache) forget(batch []*voteReq) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	knew := false
	for _, r := range batch {
		k := memberKey{r.classID, r.studentID}
		if _, ok := c.m[k]; ok {
			knew = true
			delete(c.m, k)
		}
	}
	return knew
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

// storeVotes stores the good votes, up to maxVoteList to a statement.
func (s *Service) storeVotes(ctx context.Context, tx *sql.Tx, batch []*voteReq, good []int) error {
	now := s.ms()
	for _, n := range chunks(len(good), maxVoteList) {
		part := good[:n]
		good = good[n:]
		args := make([]any, 0, 6*n)
		for _, i := range part {
			r := batch[i]
			args = append(args, r.classID, r.round, r.studentID, r.choice, now, r.sure.value())
		}
		st, err := s.stmt(ctx, tx, s.sql.insertVotes(n))
		if err != nil {
			return err
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}
