package class

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// notifyChannel is the PostgreSQL channel every replica listens on; a
// payload is "origin class what round".
const notifyChannel = "leaselab_class"

// subscriberBuffer is how many changes wait for a slow reader; when it is
// full the oldest is dropped, so the newest change always arrives (a
// watcher reads the class again on any change, so a dropped one costs
// nothing but a read it would have repeated).
const subscriberBuffer = 8

type subscriber struct{ ch chan Change }

// hub fans the changes of a class out to the watchers in this process.
type hub struct {
	mu   sync.Mutex
	subs map[string]map[*subscriber]struct{}
}

func (h *hub) publish(c Change) {
	h.mu.Lock()
	defer h.mu.Unlock()
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

// notify, inside the transaction that makes the change, asks PostgreSQL
// to tell the other replicas when it commits; SQLite has no other
// replicas. The caller publishes locally after the commit.
func (s *Service) notify(ctx context.Context, tx *sql.Tx, c Change) error {
	if !s.pg {
		return nil
	}
	payload := s.origin + " " + c.Class + " " + c.What + " " + strconv.FormatInt(c.Round, 10)
	_, err := tx.ExecContext(ctx, "SELECT pg_notify($1, $2)", notifyChannel, payload)
	return err
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

// listen receives the other replicas' changes until ctx ends, connecting
// again after a lost connection.
func (s *Service) listen(ctx context.Context) {
	defer s.listening.Done()
	first := true
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, s.url)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+notifyChannel)
		}
		if err == nil {
			if !first {
				s.hub.publishAll(ChangedActivity)
			}
			first = false
			for {
				n, werr := conn.WaitForNotification(ctx)
				if werr != nil {
					err = werr
					break
				}
				s.received(n.Payload)
			}
		}
		if conn != nil {
			conn.Close(context.Background())
		}
		if ctx.Err() != nil {
			return
		}
		s.fail(err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
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
