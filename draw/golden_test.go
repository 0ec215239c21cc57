package draw

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"leaselab/content"
	"leaselab/labs"
	"leaselab/labsession"
)

// rewrite makes TestGolden write what draw draws now into its files.
var rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata/")

// embeddedCourse is the embedded course, loaded once for the package's
// tests: a load runs every question, goal and measured exercise in the
// engine, and four tests read it; a course is only read once loaded.
var embeddedCourse = sync.OnceValues(func() (*labs.Course, error) { return labs.Load(content.FS) })

// TestGolden pins the markup draw writes: pictures, panels, charts,
// pairs and the edits of live frames, for a few labs and states, each in
// its file under testdata/, byte for byte. A change to the markup shows up
// here, to be read, rather than in a browser. Rewrite them after an
// intended change with
//
//	go test ./draw -run TestGolden -rewrite
//
// and read every changed line before committing it.
//
// A case names a lab, a language and its session's commands, one a line;
// its kind says what is drawn:
//
//	svg       the standalone picture (leaselab run --format svg)
//	figure    the picture as a lab page shows it
//	status    the status panel
//	signals   the renewal signals panel
//	chart     the remaining-time chart (leaselab run --format chart)
//	pair      a what-if at vs-at, its change the line after "--": both
//	          runs as the pair page shows them
//	frames    a live page's frames: a whole one, then one after each
//	          line after the "--" line
func TestGolden(t *testing.T) {
	course, err := embeddedCourse()
	if err != nil {
		t.Fatal(err)
	}
	const freezeFenced = "fencing on\nuntil 4s\nfreeze W1 for=25s\nadvance 40s"
	for _, c := range []goldenCase{
		// W1 freezes holding the lease, W2 takes over, and fencing rejects
		// W1's stale write when it wakes.
		{"w1-w2-fenced.svg", "svg", "w1-w2", "id", "", freezeFenced},
		{"w1-w2-fenced-figure.html", "figure", "w1-w2", "en", "", freezeFenced},
		{"w1-w2-fenced-status.html", "status", "w1-w2", "id", "", freezeFenced},
		// Without fencing the stale write is accepted: harm, pinned in red.
		{"w1-w2-harm-figure.html", "figure", "w1-w2", "id", "", "until 4s\nfreeze W1 for=25s\nadvance 40s"},
		// A playing page: the frames after the first send only what
		// changed; a reset starts a new world, drawn whole.
		{"w1-w2-frames.txt", "frames", "w1-w2", "id", "", "until 4s\n--\nfencing on\nfreeze W1 for=25s\nadvance 1s\nadvance 1s\nadvance 25s\nreset\nadvance 2s"},
		// Renewals under load: the remaining time at each renewal sinks.
		{"renew-load-figure.html", "figure", "renew-load", "id", "", "advance 60s"},
		{"renew-load-chart.svg", "chart", "renew-load", "en", "", "advance 60s"},
		{"renew-load-frames.txt", "frames", "renew-load", "en", "", "advance 20s\n--\nadvance 1s\nadvance 1s\nadvance 10s"},
		// Renewals: a lease and a belief that only grew are set in place
		// (their rectangle's width, their title), not swapped.
		{"renew-load-renewals-frames.txt", "frames", "renew-load", "id", "", "advance 8s\n--\nadvance 200ms\nadvance 200ms\nadvance 200ms"},
		{"renewal-signals-id.html", "signals", "renewal-signals", "id", "", "advance 60s"},
		{"renewal-signals-en.html", "signals", "renewal-signals", "en", "", "advance 60s"},
		// The same run, with fencing turned on at 4s; and with W1 crashed.
		{"w1-w2-whatif-fencing.html", "pair", "w1-w2", "id", "4s", "until 4s\nfreeze W1 for=25s\nuntil 30s\n--\nfencing on"},
		{"w1-w2-whatif-crash.html", "pair", "w1-w2", "en", "3s", "until 10s\n--\ncrash W1"},
	} {
		t.Run(c.file, func(t *testing.T) {
			got := golden(t, course, c)
			path := filepath.Join("testdata", c.file)
			if *rewrite {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./draw -run TestGolden -rewrite writes it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from what draw draws now, first at: %s", path, firstDifference(got, string(want)))
			}
		})
	}
}

// goldenCase is one golden file: what it draws (kind), of which lab, in
// which language, after which commands; a pair's change lands at vsAt.
type goldenCase struct {
	file, kind, lab, lang, vsAt, cmds string
}

// firstDifference is a little of got around where it first differs from
// want.
func firstDifference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo, hi := max(i-80, 0), min(i+80, len(got))
	return fmt.Sprintf("byte %d: …%s…", i, got[lo:hi])
}

func golden(t *testing.T, course *labs.Course, c goldenCase) string {
	lab := course.Lab(c.lab)
	if lab == nil {
		t.Fatalf("no lab %q", c.lab)
	}
	lang := c.lang
	before, after, _ := strings.Cut(c.cmds, "--")
	sess, err := labsession.New(lab, 1)
	if err != nil {
		t.Fatalf("%v", err)
	}
	do := func(s *labsession.Session, lines string) {
		for _, line := range strings.Split(lines, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				if err := s.Do(line); err != nil {
					t.Fatalf("%s: %v", line, err)
				}
			}
		}
	}
	do(sess, before)
	w := sess.World()
	var b strings.Builder
	render := func(p Part) {
		if err := p.Render(context.Background(), &b); err != nil {
			t.Fatalf("%v", err)
		}
	}
	switch c.kind {
	case "svg":
		if err := RenderDiagramSVG(&b, w, lang); err != nil {
			t.Fatalf("%v", err)
		}
	case "figure":
		render(Figure(PageDiagram("g", w, lang, nil)))
	case "status":
		render(StatusPanel(NewStatus(w, lang)))
	case "signals":
		render(SignalsBlock(NewSignals("g-signals", w, lang)))
	case "chart":
		if err := RenderChartSVG(&b, "c", lang, []ChartRun{{Label: "run", World: w}}); err != nil {
			t.Fatalf("%v", err)
		}
	case "pair":
		q := url.Values{"vs": {strings.TrimSpace(after)}, "vs-at": {c.vsAt}}
		q["do"] = sess.Strings()
		p, refused, err := labsession.OpenPair(lab, q)
		if err != nil || refused != nil {
			t.Fatalf("pair: %v %v", err, refused)
		}
		diff, found := p.Difference()
		v := &Pair{Lang: lang, Base: "", Lab: lab, Query: p.Session().Query(), ChangeIn: CommandText(lang, p.Change()),
			At: p.Fork().At, Runs: p.Engine(), PairPictures: LayoutPair(p.Engine(), lang, diff, found, nil)}
		defer v.Release()
		render(PairCrumb(v))
		b.WriteString("\n")
		render(PairLive(v))
	case "frames":
		v := &Live{Lang: lang, Lab: lab, Session: sess}
		var out Edits
		page := Whole(&out, v)
		defer page.Release()
		writeEdits(&b, "whole", &out)
		for _, line := range strings.Split(after, "\n") {
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			do(sess, line)
			out.Reset()
			if page.Shows(sess.World()) {
				if err := page.Next(&out, v); err != nil {
					t.Fatalf("%s: %v", line, err)
				}
			} else {
				page.Release()
				page = Whole(&out, v)
			}
			writeEdits(&b, line, &out)
		}
	default:
		t.Fatalf("unknown kind %q", c.kind)
	}
	return b.String()
}

// writeEdits writes one frame's edits, an op a line.
func writeEdits(b *strings.Builder, title string, e *Edits) {
	fmt.Fprintf(b, "# %s\n", title)
	if e.Moved {
		fmt.Fprintf(b, "x %d\n", e.NowX)
	}
	if e.Clock.To > e.Clock.From {
		fmt.Fprintf(b, "at %s\n", e.Text(e.Clock))
	}
	for _, o := range e.Ops {
		fmt.Fprintf(b, "%s #%s", o.Kind, e.Text(o.Target))
		if o.Kind == OpAttr {
			fmt.Fprintf(b, " %s=", e.Text(o.Attr))
		}
		fmt.Fprintf(b, " %s\n", e.Text(o.HTML))
	}
}
