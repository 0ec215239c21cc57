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
)

// message is a network message. It is carried by value inside a queue item.
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
	key      string
	value    string // write: a fixed result, or "" for the holder's own
}

type item struct {
	at   Time
	seq  uint64
	kind itemKind
	node Node
	slot uint8
	id   uint32
	msg  message
}

// queue is a binary min-heap of items ordered by (at, seq). It stores values
// so that scheduling allocates nothing once the backing array has grown.
type queue []item

func (q queue) less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}

func (q *queue) push(it item) {
	*q = append(*q, it)
	h := *q
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) pop() item {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = item{}
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}
