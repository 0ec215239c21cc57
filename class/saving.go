package class

import "errors"

// Whether the store saves. A database that is down, full or locked by
// something else may still answer reads (from this process's memory, or
// SQLite's readers beside a stuck writer) while every vote is lost: the
// students' bars must say so, not look as if all were well. Every write
// (inTx) tells saved its outcome; when it turns, each class watched in
// this process hears ChangedStore and draws its bar again.

// ChangedStore: this process's writes began to fail, or succeed again
// (SavesFailing). It is this process's own and never goes to other
// replicas: each has its own connections.
const ChangedStore = "store"

// saved notes a write's outcome: nil, it was stored; ErrUnavailable, the
// store failed it. The package's own refusals (a closed round, a full
// class) and a caller's cancelled context say nothing of the store.
func (s *Service) saved(err error) {
	var failing bool
	switch {
	case err == nil:
	case errors.Is(err, ErrUnavailable):
		failing = true
	default:
		return
	}
	if s.failing.Swap(failing) != failing {
		s.hub.publishAll(ChangedStore)
	}
}

// SavesFailing reports whether the store's last write failed: until one
// succeeds again (the students' commands are written twice a second while
// they work), votes cannot be saved.
func (s *Service) SavesFailing() bool { return s.failing.Load() }
