package web

import (
	"context"
	"runtime"
	"sync"
	"time"

	"leaselab/budget"
	"leaselab/labs"
)

// Judging submitted programs in a lecture room (issue 43). A Submit runs
// its program on a lab's schedules and the search: seconds of work. Ten
// students pressing it at once behind one campus NAT used to put their
// whole address in debt, so that a classmate who only played a lab got
// "server full" and 429s. Judgements now wait in one queue for the whole
// server, run a few at a time (judgeSlots), in turn by client address and,
// within an address, by student (each student's newest program once).
// A Submit that is not judged
// within judgeWait answers with its place in the queue ("judgement 3 of
// 5"); the page asks again by itself, and gets the verdict once it is
// judged.

// judgeWait is how long a Submit's request waits for its verdict before
// it answers with its place in the queue.
const judgeWait = 1500 * time.Millisecond

// judgeForgotten: a waiting judgement whose student has not asked for it
// this long is dropped (the page that asked was closed).
const judgeForgotten = 30 * time.Second

// judgeQueue is the queue of judgements.
type judgeQueue struct {
	s     *Server
	slots int

	mu      sync.Mutex
	running int
	addrs   []string               // addresses with waiting judgements, in turn
	waiting map[string][]*judgeJob // by address, in arrival order, one a student
	jobs    map[judgeKey]*judgeJob // waiting or running, by student and program
	judged  *lru[programKey, *labs.ProgramVerdict]
	// gate, when a test sets it, holds every judgement until it closes.
	gate chan struct{}
}

type judgeKey struct {
	client string // address and client key
	lab    *labs.Lab
	text   string
}

type programKey struct {
	lab  *labs.Lab
	text string
}

// judgeJob is one student's program waiting or being judged.
type judgeJob struct {
	key      judgeKey
	addr     string
	running  bool
	seen     time.Time // when its student last asked
	v        *labs.ProgramVerdict
	err      error
	finished chan struct{}
}

// judgePlace is a judgement's place in the queue: Place of Of (Place 0:
// being judged now), and the page's address to ask again.
type judgePlace struct {
	Place, Of int
	Again     string
}

func newJudgeQueue(s *Server, apart bool) *judgeQueue {
	// In processes of their own at the lowest priority a judgement takes
	// what the server leaves: as many as the cores. In the server, one
	// core is left to the students' frames.
	slots := max(1, runtime.GOMAXPROCS(0)-1)
	if apart {
		slots = runtime.GOMAXPROCS(0)
	}
	return &judgeQueue{s: s, slots: slots, waiting: map[string][]*judgeJob{}, jobs: map[judgeKey]*judgeJob{},
		judged: newLRU[programKey](256, 256, func(*labs.ProgramVerdict) int { return 1 })}
}

// heavyWork is a heavy request's client and budget (guard.go's heavy), in
// its context: a judgement waiting in the queue gives the budget's turn
// back, and the time waited is not charged.
type heavyWork struct {
	addr, key string
	b         *budget.Work
	held      bool
	slot      chan struct{} // the server's heavy slot it holds, nil once given
	waited    time.Duration
}

type heavyKey struct{}

func heavyOf(ctx context.Context) *heavyWork {
	h, _ := ctx.Value(heavyKey{}).(*heavyWork)
	return h
}

// give hands the client's turn and the server's heavy slot back, once.
func (h *heavyWork) give() {
	if h == nil {
		return
	}
	if h.held {
		h.b.Give()
		h.held = false
	}
	if h.slot != nil {
		<-h.slot
		h.slot = nil
	}
}

// judge is a compiled program's verdict on lab: at once when it was
// judged before, else from the queue within judgeWait, else its place in
// the queue (v nil). The caller is the request's heavy client.
func (q *judgeQueue) judge(ctx context.Context, lab *labs.Lab, text string) (*labs.ProgramVerdict, *judgePlace, error) {
	if v, ok := q.judged.get(programKey{lab, text}); ok {
		return v, nil, nil
	}
	h := heavyOf(ctx)
	if h == nil {
		h = &heavyWork{addr: "", key: ""}
	}
	k := judgeKey{client: h.addr + " " + h.key, lab: lab, text: text}
	q.mu.Lock()
	j := q.jobs[k]
	if j == nil {
		q.dropClient(k.client) // a newer program replaces one still waiting
		j = &judgeJob{key: k, addr: h.addr, finished: make(chan struct{})}
		q.jobs[k] = j
		if len(q.waiting[h.addr]) == 0 {
			q.addrs = append(q.addrs, h.addr)
		}
		q.waiting[h.addr] = append(q.waiting[h.addr], j)
	}
	j.seen = q.s.live.Clock.Now()
	q.dispatch()
	q.mu.Unlock()

	// Waiting costs the server nothing: the turn goes back, the time is
	// not charged.
	h.give()
	start := time.Now()
	t := time.NewTimer(judgeWait)
	defer t.Stop()
	select {
	case <-j.finished:
	case <-t.C:
	case <-ctx.Done():
	}
	h.waited += time.Since(start)
	select {
	case <-j.finished:
		return j.v, nil, j.err
	default:
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return nil, q.placeOf(j), nil
}

// dropClient takes a client's waiting judgement out of the queue. Called
// with q.mu held.
func (q *judgeQueue) dropClient(client string) {
	for k, j := range q.jobs {
		if k.client == client && !j.running {
			q.remove(j)
		}
	}
}

// remove takes a waiting job out. Called with q.mu held.
func (q *judgeQueue) remove(j *judgeJob) {
	delete(q.jobs, j.key)
	w := q.waiting[j.addr]
	for i, x := range w {
		if x == j {
			w = append(w[:i:i], w[i+1:]...)
			break
		}
	}
	if len(w) > 0 {
		q.waiting[j.addr] = w
		return
	}
	delete(q.waiting, j.addr)
	for i, a := range q.addrs {
		if a == j.addr {
			q.addrs = append(q.addrs[:i:i], q.addrs[i+1:]...)
			break
		}
	}
}

// dispatch starts waiting judgements while there are free slots: the
// first of the address whose turn it is, which then goes to the back of
// the line. A judgement nobody asked for lately is dropped. Called with
// q.mu held.
func (q *judgeQueue) dispatch() {
	now := q.s.live.Clock.Now()
	for q.running < q.slots && len(q.addrs) > 0 {
		addr := q.addrs[0]
		j := q.waiting[addr][0]
		q.remove(j)
		if now.Sub(j.seen) > judgeForgotten {
			continue
		}
		if len(q.waiting[addr]) > 0 {
			// Its turn is over: to the back. (remove took an address
			// with none left waiting out.)
			q.addrs = append(q.addrs[1:], addr)
		}
		q.jobs[j.key] = j
		j.running = true
		q.running++
		go q.run(j)
	}
}

// placeOf is a job's place: the judgements running, then the waiting
// ones in the order dispatch takes them.
func (q *judgeQueue) placeOf(j *judgeJob) *judgePlace {
	total := q.running
	for _, w := range q.waiting {
		total += len(w)
	}
	if j.running {
		return &judgePlace{Place: 0, Of: total}
	}
	n := q.running
	for r := 0; ; r++ {
		any := false
		for _, a := range q.addrs {
			if w := q.waiting[a]; r < len(w) {
				any = true
				n++
				if w[r] == j {
					return &judgePlace{Place: n, Of: total}
				}
			}
		}
		if !any {
			break
		}
	}
	return &judgePlace{Place: 0, Of: total}
}

// run judges a job, charges its student, keeps the verdict and starts the
// next.
func (q *judgeQueue) run(j *judgeJob) {
	ctx, cancel := context.WithTimeout(q.s.ctx, 5*time.Minute)
	defer cancel()
	if q.gate != nil {
		select {
		case <-q.gate:
		case <-ctx.Done():
		}
	}
	p := j.key.lab.Program()
	if q.s.judgeCommand != nil {
		j.v, j.err = q.s.judgeProcess(ctx, j.key.lab, j.key.text)
	} else {
		j.v, j.err = p.JudgeWith(j.key.text, labs.SearchOptions{Workers: 1, Context: ctx})
	}
	// No budget pays: the queue bounds the judgements for everyone, and
	// a student has one waiting at a time. Charged to the student, a
	// verdict's seconds (four times over, budget.VerdictFactor) refused
	// their own next page and skipped their own world's frames.
	q.mu.Lock()
	if j.err == nil {
		q.judged.put(programKey{j.key.lab, j.key.text}, j.v)
	}
	if q.jobs[j.key] == j {
		delete(q.jobs, j.key)
	}
	q.running--
	close(j.finished)
	q.dispatch()
	q.mu.Unlock()
}
