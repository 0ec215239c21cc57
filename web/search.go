package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"leaselab/budget"
	"leaselab/catalog"
	"leaselab/draw"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/labsession"
	"leaselab/live"
)

// Schedule searches a page asks for (GET /{lang}/labs/{id}/search): "prove
// it within bounds" beside a design challenge's random sample (?prove=1
// and the policy's p.NAME values), and the engine's shortest schedule for
// a "break it" goal (?goal=ID, with the student's session to count the
// faults they used). A search takes from a few milliseconds to several
// seconds of every core, so:
//
//   - with a SearchCommand (serve's default) each search runs in a process
//     of its own at the lowest CPU priority (search_process.go), one a
//     core at once: the kernel gives the students' sessions the CPU
//     first. Without one, its parts take turns in one pool, one fewer than
//     the cores, shared by every search, and each part rests twice as
//     long as it worked: searches never take the core that answers
//     students, nor all of another;
//   - it waits for, and is charged to, its address's search budget,
//     a work budget apart from its live sessions' (a student who asks for
//     a proof can still play while it runs); an address runs at most
//     maxSearchesPerAddr searches at once;
//   - the same search asked again is answered from a cache, and asked
//     while it runs follows the run already going;
//   - it stops between parts when nobody waits for it any more (the page
//     closed its stream, or pressed cancel).
//
// With script the page reads the search as server-sent events: "progress"
// (parts done of all, a sentence in the student's language) and at the end
// "verdict" (the verdict's markup) or "failed" (a sentence). Without
// script the form's GET waits for the verdict and answers a page.

// searchRest is how long a search's part rests, holding its place in the
// pool, in times what it worked: searches take at most a third of a core
// a place, and the students playing beside them keep the rest.
const searchRest = 2

// maxSearchesPerAddr is how many searches one address may have running.
const maxSearchesPerAddr = 2

// searchKey names a search: the lab, what is searched, and the policy.
type searchKey struct {
	lab    *labs.Lab // a reload makes new labs: old verdicts age out
	what   string    // "prove:" and the faults asked (0: the lab's), or "goal:" and the goal's id
	policy string    // the challenge's values (policyKey); "" for a goal
}

// searchDone is a finished search: the verdict and the time it took.
type searchDone struct {
	v    *labs.SearchVerdict
	took time.Duration
}

// searchRun is a search running for the requests that follow it.
type searchRun struct {
	done   chan struct{} // closed when res or err is set
	res    *searchDone
	err    error
	cancel context.CancelFunc

	mu        sync.Mutex
	prog      labs.SearchProgress
	started   time.Time // when its first part began: the wait in line ended
	followers int
	stopped   bool // its last follower left: it ends without a verdict
}

func (r *searchRun) progress() (labs.SearchProgress, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prog, r.started
}

// searcher runs the searches pages ask for.
type searcher struct {
	// command, when set, makes the process that runs a search
	// (search_process.go); nil: searches run in the server's pool.
	command SearchCommand
	slots   chan struct{} // parts (or processes) running at once, every search together
	budgets *addrBudgets  // search work per address
	cache   *lru[searchKey, *searchDone]

	mu      sync.Mutex
	running map[searchKey]*searchRun
	perAddr map[string]int

	runs  atomic.Int64 // searches run by the engine (not cached or followed)
	cpu   atomic.Int64 // CPU time of their work, in nanoseconds (parts' time in the pool)
	parts atomic.Int64 // parts run
	busy  atomic.Int64 // parts running now, for the tests
	most  atomic.Int64 // the most parts seen running at once
}

func newSearcher(rate float64, command SearchCommand) *searcher {
	places := max(1, runtime.GOMAXPROCS(0)-1)
	if command != nil {
		// Processes at the lowest priority take only what the server
		// leaves: as many as the cores, so an idle machine is all theirs.
		places = runtime.GOMAXPROCS(0)
	}
	return &searcher{
		command: command,
		slots:   make(chan struct{}, places),
		budgets: newAddrBudgets(rate, addrBurst),
		cache:   newLRU[searchKey](64, 64, func(*searchDone) int { return 1 }),
		running: map[searchKey]*searchRun{},
		perAddr: map[string]int{},
	}
}

// searchError is a search refused, said in the student's language.
type searchError struct {
	key  string
	args []any
	msg  string
}

func (e *searchError) Error() string { return e.msg }

// Key is the catalog's text for it.
func (e *searchError) Key() string { return e.key }

// Args fill the text.
func (e *searchError) Args() []any { return e.args }

// searchAsk is what a request asks to search, read from its query.
type searchAsk struct {
	key  searchKey
	lab  *labs.Lab
	goal *labs.Goal
	used int                // a goal's: faults the student's session used
	opt  labs.SearchOptions // what is searched: Faults and Set only
}

// askFor reads what the request asks to search.
func askFor(c echo.Context, lab *labs.Lab) (*searchAsk, error) {
	q := c.QueryParams()
	if lab.Search() == nil {
		return nil, &searchError{"err.search.none", nil, "this lab has no search bounds"}
	}
	if gid := q.Get("goal"); gid != "" {
		g := lab.Goal(gid)
		if g == nil || g.BreakFaults() == 0 {
			return nil, &searchError{"err.search.goal", []any{labsession.Clip(gid)}, "no break it goal " + labsession.Clip(gid)}
		}
		// A goal's shortest is the lab's search with the goal's faults
		// (Goal.Shortest).
		a := &searchAsk{key: searchKey{lab: lab, what: "goal:" + g.ID}, lab: lab, goal: g, opt: labs.SearchOptions{Faults: g.BreakFaults()}}
		if sess, _, err := labsession.FromQuery(lab, q); err == nil {
			a.used, _ = lab.Faults(sess.Commands())
		}
		return a, nil
	}
	ch := lab.Challenge()
	if q.Get("prove") == "" || ch == nil {
		return nil, &searchError{"err.search.none", nil, "say what to search: prove=1 for the design challenge, or goal=ID"}
	}
	values := policyValues(ch, q.Get)
	// faults=K searches fewer faults than the lab's bounds allow: a
	// quicker first look (one fault is decided in a blink).
	faults := 0
	if f := q.Get("faults"); f != "" {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > lab.Search().Bounds.Faults {
			return nil, &searchError{"err.search.faults", []any{lab.Search().Bounds.Faults}, "faults: want 1 to the lab's own bound"}
		}
		faults = n
	}
	set, err := ch.ProveSet(values)
	if err != nil {
		return nil, err
	}
	return &searchAsk{
		key: searchKey{lab: lab, what: "prove:" + strconv.Itoa(faults), policy: policyKey(values)},
		lab: lab, opt: labs.SearchOptions{Faults: faults, Set: set},
	}, nil
}

// follow returns the search's run, starting it when none is going, and
// counts the caller among its followers; leave uncounts it, and the run
// stops when its last follower leaves before it ends. ok is false when
// the address runs too many searches already.
func (s *searcher) follow(ctx context.Context, a *searchAsk, addr string) (r *searchRun, leave func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r = s.running[a.key]
	if r != nil {
		r.mu.Lock()
		if r.stopped { // stopping: a new one starts
			r = nil
		}
		if r != nil {
			r.followers++
		}
		r.mu.Unlock()
	}
	if r == nil {
		if s.perAddr[addr] >= maxSearchesPerAddr {
			return nil, nil, false
		}
		s.perAddr[addr]++
		rctx, cancel := context.WithCancel(ctx)
		r = &searchRun{done: make(chan struct{}), cancel: cancel}
		s.running[a.key] = r
		s.runs.Add(1)
		r.followers = 1
		go s.run(rctx, r, a, addr)
	}
	return r, func() {
		r.mu.Lock()
		r.followers--
		last := r.followers == 0
		r.stopped = r.stopped || last
		r.mu.Unlock()
		if last {
			r.cancel()
		}
	}, true
}

// run runs a search, in a process of its own when the server has a
// command for it and in the pool otherwise, and keeps its verdict.
func (s *searcher) run(ctx context.Context, r *searchRun, a *searchAsk, addr string) {
	b := s.budgets.get(addr)
	start := time.Now()
	var v *labs.SearchVerdict
	var err error
	if s.command != nil {
		v, err = s.runProcess(ctx, r, a, b)
	} else {
		v, err = s.runHere(ctx, r, a, b)
	}
	if err == nil {
		r.res = &searchDone{v: v, took: time.Since(start)}
		s.cache.put(a.key, r.res)
	}
	r.err = err
	s.mu.Lock()
	if s.running[a.key] == r {
		delete(s.running, a.key)
	}
	s.perAddr[addr]--
	if s.perAddr[addr] == 0 {
		delete(s.perAddr, addr)
	}
	s.mu.Unlock()
	close(r.done)
	r.cancel()
}

// runHere runs a search's parts in the server's pool, each part resting
// searchRest times what it worked.
func (s *searcher) runHere(ctx context.Context, r *searchRun, a *searchAsk, b *budget.Work) (*labs.SearchVerdict, error) {
	opt := a.opt
	opt.Context = ctx
	opt.Progress = r.setProgress
	opt.Part = func(part func()) {
		if !s.turn(ctx, b) {
			return
		}
		defer func() { <-s.slots }()
		r.begin()
		defer s.count()()
		start := time.Now()
		part()
		took := time.Since(start)
		budget.Charge(start, b)
		s.cpu.Add(int64(took))
		// Rest, holding its place (searchRest).
		t := time.NewTimer(searchRest * took)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return a.lab.RunSearch(opt)
}

// writeMetrics writes the searches' counters for /metrics.
func (s *searcher) writeMetrics(w io.Writer) {
	where := "server"
	if s.command != nil {
		where = "process"
	}
	fmt.Fprintf(w, "# HELP leaselab_searches_total Schedule searches run for pages (not answered from the cache), by where they ran: in a process of their own at the lowest CPU priority, or in the server's pool.\n# TYPE leaselab_searches_total counter\nleaselab_searches_total{where=%q} %d\n", where, s.runs.Load())
	fmt.Fprintf(w, "# HELP leaselab_search_places_busy Places of the search pool taken now: parts running in the server's pool, or search processes not yet ended.\n# TYPE leaselab_search_places_busy gauge\nleaselab_search_places_busy %d\n", s.busy.Load())
	fmt.Fprintf(w, "# HELP leaselab_search_cpu_seconds_total CPU time the searches used, as their processes report it (or their parts' time in the server's pool).\n# TYPE leaselab_search_cpu_seconds_total counter\nleaselab_search_cpu_seconds_total %.3f\n", time.Duration(s.cpu.Load()).Seconds())
}

// count counts a part (or a search's process) running; the function it
// returns uncounts it.
func (s *searcher) count() func() {
	n := s.busy.Add(1)
	for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
	}
	s.parts.Add(1)
	return func() { s.busy.Add(-1) }
}

func (r *searchRun) setProgress(p labs.SearchProgress) {
	r.mu.Lock()
	r.prog = p
	r.mu.Unlock()
}

// begin notes when the search's work began: its wait in line ended.
func (r *searchRun) begin() {
	r.mu.Lock()
	if r.started.IsZero() {
		r.started = time.Now()
	}
	r.mu.Unlock()
}

// turn waits for the address's search budget to be out of debt and for a
// free place in the pool; false when ctx ended first.
func (s *searcher) turn(ctx context.Context, b *budget.Work) bool {
	for {
		var busy *budget.Busy
		if err := budget.Wait(b); !errors.As(err, &busy) {
			break
		}
		t := time.NewTimer(busy.Retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
	select {
	case s.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// searchShow answers a page's search: a stream of events with script, a
// page without.
func (s *Server) searchShow(c echo.Context) error {
	lang, _, lab, err := s.labFor(c)
	if err != nil {
		return err
	}
	stream := strings.Contains(c.Request().Header.Get("Accept"), "text/event-stream")
	if q := c.QueryParams(); !stream && q.Get("goal") == "" && q.Get("prove") == "" {
		// The search's address alone (a form's action, copied): the lab.
		return c.Redirect(http.StatusSeeOther, s.base+"/"+lang+"/labs/"+lab.ID)
	}
	a, err := askFor(c, lab)
	if err != nil {
		if stream {
			return sendFailed(c, lang, err)
		}
		return &pageError{status: http.StatusNotFound, lang: lang, key: "error.notfound"}
	}
	if done, ok := s.searches.cache.get(a.key); ok {
		return s.searchAnswer(c, lang, lab, a, done, true, stream)
	}
	// A search's budget and limit are its student's (or browser's), not
	// their whole room's behind one address (issue 43).
	addr := clientTag(s.clientAddr(c.Request()), clientKey(c.Request()))
	ctx := c.Request().Context()
	r, leave, ok := s.searches.follow(s.ctx, a, addr)
	if !ok {
		s.refused(live.ErrBudget, "a client asked for more searches at once than one address may run", "client", addr)
		err := &searchError{"err.search.busy", nil, "too many searches are running from your address"}
		if stream {
			return sendFailed(c, lang, err)
		}
		c.Response().Header().Set("Retry-After", "5")
		return &pageError{status: http.StatusTooManyRequests, lang: lang, key: "busy.text", title: "busy.title"}
	}
	defer leave()
	if !stream {
		select {
		case <-r.done:
		case <-ctx.Done():
			return nil
		}
		var se *searchError
		if errors.As(r.err, &se) {
			// Said in the student's language, as the stream says it.
			return &pageError{status: http.StatusServiceUnavailable, lang: lang, key: se.key, args: se.args}
		}
		if r.err != nil {
			return r.err
		}
		return s.searchAnswer(c, lang, lab, a, r.res, false, false)
	}
	startStream(c)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	asked := time.Now()
	var sent labs.SearchProgress
	for first := true; ; first = false {
		select {
		case <-r.done:
			if r.err != nil {
				return sendFailed(c, lang, r.err)
			}
			return s.searchAnswer(c, lang, lab, a, r.res, false, true)
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		p, started := r.progress()
		if !first && p == sent {
			continue
		}
		sent = p
		if err := sendEvent(c, "progress", progressData(lang, p, asked, started)); err != nil {
			return nil
		}
	}
}

// progressData is a progress event: how far, and the sentence the bar
// reads out.
func progressData(lang string, p labs.SearchProgress, asked, started time.Time) []byte {
	var text string
	if started.IsZero() || p.Parts == 0 {
		text = catalog.T(lang, "search.queued")
	} else {
		left := engine.Never
		if p.Done > 0 {
			spent := time.Since(started)
			left = engine.Time((spent * time.Duration(p.Parts-p.Done) / time.Duration(p.Done)).Milliseconds())
			left = max(engine.Second/10, left/(engine.Second/10)*(engine.Second/10))
		}
		text = string(catalog.Append(nil, lang, "search.progress",
			catalog.Count(int64(p.Done)), catalog.Count(int64(p.Parts)), catalog.Count(int64(p.Schedules)), catalog.Time(left)))
	}
	b, _ := json.Marshal(struct {
		Done  int    `json:"done"`
		Parts int    `json:"parts"`
		Text  string `json:"text"`
	}{p.Done, p.Parts, text})
	return b
}

// sendEvent writes one server-sent event and flushes it.
func sendEvent(c echo.Context, name string, data []byte) error {
	w := c.Response()
	var b []byte
	b = append(b, "event: "...)
	b = append(b, name...)
	for _, line := range strings.Split(string(data), "\n") {
		b = append(b, "\ndata: "...)
		b = append(b, line...)
	}
	b = append(b, "\n\n"...)
	if _, err := w.Write(b); err != nil {
		return err
	}
	w.Flush()
	return nil
}

// startStream begins an answer of server-sent events, once.
func startStream(c echo.Context) {
	if c.Response().Committed {
		return
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	c.Response().WriteHeader(http.StatusOK)
}

// sendFailed ends a stream with a sentence saying why, in lang's words.
func sendFailed(c echo.Context, lang string, err error) error {
	startStream(c)
	_ = sendEvent(c, "failed", []byte(errorText(lang, err)))
	return nil
}

// searchAnswer answers a finished search: its verdict's markup as the
// stream's last event, or a page.
func (s *Server) searchAnswer(c echo.Context, lang string, lab *labs.Lab, a *searchAsk, done *searchDone, cached, stream bool) error {
	v := newSearchView(lang, lab, a, done, cached, s.base)
	if stream {
		var b strings.Builder
		if err := searchVerdict(v).Render(c.Request().Context(), &b); err != nil {
			return err
		}
		startStream(c)
		_ = sendEvent(c, "verdict", []byte(b.String()))
		return nil
	}
	p := s.newPage(lang, "/labs/"+lab.ID+"/search", lab.Title(lang), "lab")
	return render(c, http.StatusOK, searchPage(p, lab, v))
}

// searchView is a search's verdict as a page shows it.
type searchView struct {
	Lang   string
	Lab    *labs.Lab
	V      *labs.SearchVerdict
	Took   time.Duration
	Cached bool
	// Goal is the "break it" goal searched, nil for a proof; Used is how
	// many faults the student's own schedule used (0: none yet).
	Goal *labs.Goal
	Used int
	// Link replays the shortest breaking schedule in the lab's page.
	Link    string
	Diagram *draw.Diagram
	Events  *draw.Events
}

func newSearchView(lang string, lab *labs.Lab, a *searchAsk, done *searchDone, cached bool, base string) *searchView {
	v := &searchView{Lang: lang, Lab: lab, V: done.v, Took: done.took, Cached: cached, Goal: a.goal, Used: a.used}
	if br := done.v.Shortest; br != nil && done.v.World != nil {
		if done.v.Query != "" {
			v.Link = base + "/" + lang + "/labs/" + lab.ID + "/at?" + done.v.Query
		}
		hl := map[int]bool{}
		for i, e := range done.v.World.Events() {
			if e == br.Harm {
				hl[i] = true
			}
		}
		v.Diagram = draw.ZoomedDiagram("search", done.v.World, lang, hl)
		v.Events = &draw.Events{ID: "search-events", Lang: lang, Events: done.v.World.Events(), Names: done.v.World.Names(), Highlight: hl, Only: hl}
	}
	return v
}

// Bounds says what was searched.
func (v *searchView) Bounds() string {
	b := v.V.Bounds
	var kinds []string
	for _, k := range b.Kinds {
		kinds = append(kinds, catalog.T(v.Lang, "search.kind."+string(k.Name)))
	}
	return string(catalog.Append(nil, v.Lang, "search.bounds", catalog.Count(int64(b.Faults)), catalog.Str(strings.Join(kinds, ", ")), catalog.Time(b.Horizon)))
}

// Summary is the verdict in one sentence: safe within the bounds, broken
// (the schedule follows), or bounds too large.
func (v *searchView) Summary() string {
	r := v.V.SearchResult
	took := catalog.Time(max(engine.Millisecond, engine.Time(v.Took.Milliseconds())))
	n, st := catalog.Count(int64(r.Schedules)), catalog.Count(int64(r.States))
	switch {
	case r.Shortest != nil:
		return string(catalog.Append(nil, v.Lang, "search.broken", n, st, took))
	case r.TooLarge:
		return string(catalog.Append(nil, v.Lang, "search.toolarge", st))
	}
	return string(catalog.Append(nil, v.Lang, "search.safe", n, st, took))
}

// Broken reports a schedule that breaks the design.
func (v *searchView) Broken() bool { return v.V.Shortest != nil }

// Faults is the shortest breaking schedule, one fault a line.
func (v *searchView) Faults() []string {
	var out []string
	if br := v.V.Shortest; br != nil {
		for _, f := range br.Faults {
			out = append(out, labs.FaultText(v.Lang, f))
		}
	}
	return out
}

// Harm is the violation the schedule reaches, in words.
func (v *searchView) Harm() string {
	br := v.V.Shortest
	if br == nil || v.V.World == nil {
		return ""
	}
	return catalog.MomentText(v.Lang, br.Harm.T) + ": " + labs.DescribeEvent(br.Harm, v.V.World.Names(), v.Lang)
}

// Compare sets a "break it" student's schedule beside the engine's.
func (v *searchView) Compare() string {
	if v.Goal == nil || v.Used == 0 {
		return ""
	}
	return labs.CompareBreak(v.Lang, v.Used, v.V.Shortest)
}

// searchURL is the address a page asks a search at.
func searchURL(p *page, lab *labs.Lab) string { return p.Href("/labs/" + lab.ID + "/search") }
