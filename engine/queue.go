package engine

// itemKind is what a scheduled item does when its time comes.
type itemKind uint8

const (
	itDeliver      itemKind = iota + 1 // a message arrives
	itTimer                            // a worker timer fires
	itNext                             // a worker runs its next program step
	itStart                            // a worker's program starts
	itThaw                             // a timed freeze ends
	itCoordProcess                     // the coordinator finishes serving a request
	itCoordExpire                      // a lease's expiry time comes
	itCoordFree                        // a lock-delay ends
	itElection                         // an election completes
	itReplicate                        // a write reaches the other storage copy (id: its serial)
	itSideStart                        // a written coordinator's program starts (coord_program.go)
	itSideTimer                        // a written coordinator's timer fires
)

// message is a network message. While it is on its way, or waits for the
// coordinator to serve it, it is kept in World.msgs and its queue item
// holds its place there.
type message struct {
	kind MsgKind
	from Node
	to   Node
	wait bool // acquire: wait in line rather than be denied
	// acquire: the candidate judged the record (of version) expired
	takeover bool
	effect   bool // write: an effect (send), not a put
	reason   Reason
	token    int64 // the token the message carries (0: none)
	real     int64 // write: the token the writer holds, even when it sends none
	ttl      Time  // grant/renew-ok: the lease duration
	version  int64
	req      uint32 // the request this message belongs to
	ev       int32  // write: the log index of the worker's write event
	sent     int32  // the log index of this message's send event
	gen      uint32 // renewal: the generation of the worker state that sent it
	lease    uint8  // which lease at the coordinator
	key      KeyID  // write: the storage key
	value    uint16 // write: a fixed result (index in World.values), or 0 for the holder's own
	// write: whether it goes to the writer's temporary name or renames
	// that name onto the key (a commit by rename), and which part of how
	// many it is (0 of 0: a write in one piece), packed so that a message
	// stays 64 bytes: see writeForm.
	form writeForm
}

// writeForm is how a write message writes: bit 0 to the temporary name,
// bit 1 the rename onto the key, bits 2-4 its part, bits 5-7 how many
// parts (MaxParts is 7).
type writeForm uint8

func newWriteForm(temp, rename bool, part, parts uint8) writeForm {
	f := writeForm(part&7)<<2 | writeForm(parts&7)<<5
	if temp {
		f |= 1
	}
	if rename {
		f |= 2
	}
	return f
}

func (f writeForm) temp() bool   { return f&1 != 0 }
func (f writeForm) rename() bool { return f&2 != 0 }
func (f writeForm) part() uint8  { return uint8(f>>2) & 7 }
func (f writeForm) parts() uint8 { return uint8(f>>5) & 7 }

// item is one thing due at a time. It is small (24 bytes), so that the
// queue holds little and the heap moves items cheaply: a message it
// delivers is kept aside, in World.msgs.
type item struct {
	at  Time
	seq uint64
	// id says which thing is due, or whether it is still due: deliver and
	// coordinator process: the message's place in World.msgs; timer: the
	// timer's id; next, start: the worker's incarnation; thaw: the
	// freeze's id; coordinator expire: the count of tokens the lease had
	// when the expiry was set (lease.tokens); free: the lock-delay's id;
	// election: the election's id.
	id    uint32
	kind  itemKind
	node  Node
	slot  uint8 // timer: which of the worker's timers
	lease uint8 // coordinator expire, free: which lease
}

// queue is a binary min-heap of items ordered by (at, seq). It stores values
// so that scheduling allocates nothing once the backing array has grown.
type queue []item

// before orders items by (at, seq).
func before(a, b *item) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push and pop move a hole rather than swap: each level of the heap then
// copies an item once instead of twice. The resulting order is the one
// swapping gives.
func (q *queue) push(it item) {
	*q = append(*q, it)
	h := *q
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !before(&it, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = it
}

func (q *queue) pop() item {
	h := *q
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h[n] = item{}
	h = h[:n]
	if n > 0 {
		i := 0
		for {
			l := 2*i + 1
			if l >= n {
				break
			}
			m := l
			if r := l + 1; r < n && before(&h[r], &h[l]) {
				m = r
			}
			if !before(&h[m], &last) {
				break
			}
			h[i] = h[m]
			i = m
		}
		h[i] = last
	}
	*q = h
	return top
}
