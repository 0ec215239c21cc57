package class

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// subscriberBuffer is how many changes wait for a slow reader; when it is
// full the oldest is dropped, so the newest change always arrives (a
// watcher reads the class again on any change, so a dropped one costs
// nothing but a read it would have repeated).
const subscriberBuffer = 8

type subscriber struct{ ch chan Change }

// hub fans the changes of a class out to the watchers in this process,
// and keeps what every page of a class reads again after each change (its
// rounds, the class by its code) until a change touches it.
type hub struct {
	mu     sync.Mutex
	subs   map[string]map[*subscriber]struct{}
	rounds map[string][]Tally
	byCode map[string]Class  // running classes by join code
	codeOf map[string]string // class id → its code in byCode
	// A read is kept only if nothing it read changed meanwhile: epoch
	// counts forget, classGen the changes of any class's own row,
	// roundGen each class's round and vote changes.
	epoch, classGen uint64
	roundGen        map[string]uint64
	// hears is true while every change reaches this process: always on
	// SQLite, and on PostgreSQL while the listener is connected.
	hears bool
}

// mark is when a read began, for keep: it is kept only if the stamp
// has not changed by then.
type mark struct{ epoch, n uint64 }

func (h *hub) hearing() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hears
}

// forget drops every kept answer, and keeps none while hears is false.
func (h *hub) forget(hears bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.epoch++
	h.rounds, h.byCode, h.codeOf, h.roundGen = nil, nil, nil, nil
	h.hears = hears
}

// maxCached bounds the classes whose rounds are kept.
const maxCached = 1000

func (h *hub) roundsStamp(classID string) mark {
	h.mu.Lock()
	defer h.mu.Unlock()
	return mark{h.epoch, h.roundGen[classID]}
}

func (h *hub) codeStamp() mark {
	h.mu.Lock()
	defer h.mu.Unlock()
	return mark{h.epoch, h.classGen}
}

// cached returns a copy of a class's rounds, if kept.
func (h *hub) cached(classID string) ([]Tally, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.hears {
		return nil, false
	}
	t, ok := h.rounds[classID]
	if !ok {
		return nil, false
	}
	return copyTallies(t), true
}

// keep keeps a class's rounds read since st, unless they changed since.
func (h *hub) keep(classID string, st mark, t []Tally) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if st != (mark{h.epoch, h.roundGen[classID]}) || !h.hears {
		return
	}
	if h.rounds == nil || len(h.rounds) >= maxCached {
		h.rounds = map[string][]Tally{}
	}
	h.rounds[classID] = copyTallies(t)
}

// cachedCode returns the running class of a join code, if kept.
func (h *hub) cachedCode(code string) (Class, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.byCode[code]
	return c, ok && h.hears
}

// keepCode keeps a running class read since st, unless a class changed.
func (h *hub) keepCode(st mark, c Class) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if st != (mark{h.epoch, h.classGen}) || !h.hears || c.Ended != nil {
		return
	}
	if h.byCode == nil || len(h.byCode) >= maxCached {
		h.byCode, h.codeOf = map[string]Class{}, map[string]string{}
	}
	h.byCode[c.Code], h.codeOf[c.ID] = c, c.Code
}

func copyTallies(t []Tally) []Tally {
	out := make([]Tally, len(t))
	for i, x := range t {
		out[i] = x
		out[i].Round.Choices = slices.Clone(x.Round.Choices)
		out[i].Counts = maps.Clone(x.Counts)
		out[i].Sure, out[i].Unsure = maps.Clone(x.Sure), maps.Clone(x.Unsure)
	}
	return out
}

// publish forgets what the change touched, then tells the class's
// watchers.
func (h *hub) publish(c Change) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.touched(c)
	h.tell(c)
}

// touched forgets what c touched. Called with h.mu held.
func (h *hub) touched(c Change) {
	switch c.What {
	case ChangedRound, ChangedVote:
		h.bumpRounds(c.Class)
	case ChangedActivity, ChangedPush, ChangedEnd:
		h.bumpRounds(c.Class)
		h.classGen++
		if code, ok := h.codeOf[c.Class]; ok {
			delete(h.byCode, code)
			delete(h.codeOf, c.Class)
		}
	}
}

// tell hands c to the class's watchers. Called with h.mu held.
func (h *hub) tell(c Change) {
	for sub := range h.subs[c.Class] {
		select {
		case sub.ch <- c:
		default:
			select {
			case <-sub.ch:
			default:
			}
			sub.ch <- c
		}
	}
}

func (h *hub) bumpRounds(classID string) {
	if h.roundGen == nil {
		h.roundGen = map[string]uint64{}
	}
	if len(h.roundGen) >= maxCached {
		// Forgetting the counts would let an old read be kept: start a
		// new epoch instead, which no read in flight can match.
		h.epoch++
		h.rounds, h.roundGen = nil, map[string]uint64{}
	}
	h.roundGen[classID]++
	delete(h.rounds, classID)
}

// publishAll tells every watched class that something may have changed:
// after the listener lost its connection, changes may have been missed.
func (h *hub) publishAll(what string) {
	h.mu.Lock()
	var classes []string
	for id := range h.subs {
		classes = append(classes, id)
	}
	h.mu.Unlock()
	for _, id := range classes {
		h.publish(Change{Class: id, What: what})
	}
}

func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, subs := range h.subs {
		for sub := range subs {
			close(sub.ch)
		}
		delete(h.subs, id)
	}
}

// Subscribe returns the changes of one class, made by this process or, on
// PostgreSQL, by any replica, and a function that stops them and closes
// the channel. The channel is also closed when the Service closes.
func (s *Service) Subscribe(classID string) (<-chan Change, func()) {
	sub := &subscriber{ch: make(chan Change, subscriberBuffer)}
	h := &s.hub
	h.mu.Lock()
	if h.subs[classID] == nil {
		h.subs[classID] = map[*subscriber]struct{}{}
	}
	h.subs[classID][sub] = struct{}{}
	h.mu.Unlock()
	var once sync.Once
	return sub.ch, func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if _, ok := h.subs[classID][sub]; !ok {
				return // closed by closeAll
			}
			delete(h.subs[classID], sub)
			if len(h.subs[classID]) == 0 {
				delete(h.subs, classID)
			}
			close(sub.ch)
		})
	}
}

// notify, inside the transaction that makes the changes, has the other
// replicas told of them when it commits (backend.notify). The caller
// publishes them in this process after the commit.
func (s *Service) notify(ctx context.Context, tx *sql.Tx, cs ...Change) error {
	payloads := make([]string, len(cs))
	for i, c := range cs {
		payloads[i] = s.origin + " " + c.Class + " " + c.What + " " + strconv.FormatInt(c.Round, 10)
	}
	return s.back.notify(ctx, tx, payloads)
}

// change runs f in a transaction that also notifies c, and publishes c
// in this process once committed.
func (s *Service) change(ctx context.Context, c Change, f func(*sql.Tx) error) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := f(tx); err != nil {
			return err
		}
		return s.notify(ctx, tx, c)
	})
	if err == nil {
		s.hub.publish(c)
	}
	return err
}

// received publishes another replica's change.
func (s *Service) received(payload string) {
	f := strings.Fields(payload)
	if len(f) != 4 || f[0] == s.origin {
		return
	}
	round, _ := strconv.ParseInt(f[3], 10, 64)
	s.hub.publish(Change{Class: f[1], What: f[2], Round: round})
}
