package web

import (
	"sync"
	"time"
)

// What keeps one client from filling a class or guessing its keys (issue
// 51). A lecture room behind a campus NAT is one address with 30 to 300
// students in it, joining within a minute or so of the code going up, so
// the limits of one address are a room's:
//
//   - joins: one address joins at most JoinsPerAddr students a minute,
//     a third of them at once (a token bucket: a room that scans the QR
//     code together gets in over the first minute; a script's 2,000 joins
//     in a second get a third of a minute's worth);
//   - seats: one address holds at most JoinsPerAddr students of one class,
//     so a script on one address can never fill a class (2,000 seats);
//   - a class takes at most classJoinBurst joins at once and
//     classJoinRate a second after that, from all addresses together;
//   - restoring with a key: restoreTries wrong keys from one address, then
//     one more a restoreEvery; while none is left, every key (the right
//     one too) is refused, so a guesser learns nothing.
//
// The instructor sees every join on the dashboard and can remove one that
// is no student (class.Service.Remove). All of it is held in memory, per
// server: a restart or another replica starts its own count.

// DefaultJoinsPerAddr is Config.JoinsPerAddr's default: a large lecture
// room behind one address.
const DefaultJoinsPerAddr = 300

const (
	classJoinBurst = 500
	classJoinRate  = 20 // a second
	restoreTries   = 5
	restoreEvery   = time.Minute
	// maxLimitKeys bounds the addresses and classes remembered; past it
	// those with a full bucket are forgotten (they owe nothing), and if
	// none is, everything is (a flood of addresses resets the counts
	// rather than grow the server).
	maxLimitKeys = 20_000
)

// buckets are token buckets by key, on the server's clock: each holds
// burst tokens and gets one back every every.
type buckets struct {
	burst float64
	every time.Duration
	m     map[string]bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// level is key's bucket refilled up to now.
func (b *buckets) level(key string, now time.Time) bucket {
	k, ok := b.m[key]
	if !ok {
		return bucket{tokens: b.burst, at: now}
	}
	if d := now.Sub(k.at); d > 0 {
		k.tokens = min(b.burst, k.tokens+float64(d)/float64(b.every))
		k.at = now
	}
	return k
}

// take takes a token from key's bucket, or says how long until one is
// there.
func (b *buckets) take(key string, now time.Time) (bool, time.Duration) {
	k := b.level(key, now)
	if k.tokens < 1 {
		return false, time.Duration((1 - k.tokens) * float64(b.every))
	}
	k.tokens--
	b.put(key, k, now)
	return true, 0
}

// wait is how long until key's bucket has a token; 0 if it has one.
func (b *buckets) wait(key string, now time.Time) time.Duration {
	if k := b.level(key, now); k.tokens < 1 {
		return time.Duration((1 - k.tokens) * float64(b.every))
	}
	return 0
}

func (b *buckets) put(key string, k bucket, now time.Time) {
	if b.m == nil {
		b.m = map[string]bucket{}
	}
	if _, ok := b.m[key]; !ok && len(b.m) >= maxLimitKeys {
		for other := range b.m {
			if b.level(other, now).tokens >= b.burst {
				delete(b.m, other)
			}
		}
		if len(b.m) >= maxLimitKeys {
			clear(b.m)
		}
	}
	b.m[key] = k
}

// joinLimits are the limits above, for one server.
type joinLimits struct {
	mu       sync.Mutex
	perAddr  int
	addrs    buckets // joins by address
	classes  buckets // joins by class
	restores buckets // wrong keys by address
	seats    map[seatKey]int
}

type seatKey struct{ class, addr string }

func newJoinLimits(perAddr int) *joinLimits {
	if perAddr <= 0 {
		perAddr = DefaultJoinsPerAddr
	}
	return &joinLimits{
		perAddr:  perAddr,
		addrs:    buckets{burst: float64(max(1, perAddr/3)), every: time.Minute / time.Duration(perAddr)},
		classes:  buckets{burst: classJoinBurst, every: time.Second / classJoinRate},
		restores: buckets{burst: restoreTries, every: restoreEvery},
		seats:    map[seatKey]int{},
	}
}

// joinRefusal says why a join was refused: the catalog key, and how long
// to wait (0: waiting does not help).
type joinRefusal struct {
	key   string
	retry time.Duration
}

// join takes a place for a new student of classID from addr, or says why
// not. The address's bucket is asked first, so that a flood from one
// address does not spend the class's.
func (l *joinLimits) join(classID, addr string, now time.Time) *joinRefusal {
	l.mu.Lock()
	defer l.mu.Unlock()
	sk := seatKey{classID, addr}
	if l.seats[sk] >= l.perAddr {
		return &joinRefusal{key: "join.seats"}
	}
	if ok, wait := l.addrs.take(addr, now); !ok {
		return &joinRefusal{key: "join.rate", retry: wait}
	}
	if ok, wait := l.classes.take(classID, now); !ok {
		return &joinRefusal{key: "join.busy", retry: wait}
	}
	if len(l.seats) >= maxLimitKeys*5 {
		clear(l.seats)
	}
	l.seats[sk]++
	return nil
}

// unjoin gives a seat back: the join it was taken for failed.
func (l *joinLimits) unjoin(classID, addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sk := seatKey{classID, addr}
	if l.seats[sk] > 0 {
		l.seats[sk]--
	}
}

// restoreWait is how long addr must wait before trying a key; 0: now.
func (l *joinLimits) restoreWait(addr string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.restores.wait(addr, now)
}

// wrongKey counts a wrong key tried from addr.
func (l *joinLimits) wrongKey(addr string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.restores.take(addr, now)
}
