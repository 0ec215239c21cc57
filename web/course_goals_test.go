package web

import (
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/goccy/go-yaml"

	"leaselab/content"
	"leaselab/live"
)

// labGoals is the part of a lab.yaml these tests need: each goal's proof
// and each question's pinned answer.
type labGoals struct {
	ID    string `yaml:"id"`
	Goals []struct {
		ID    string   `yaml:"id"`
		Proof []string `yaml:"proof"`
	} `yaml:"goals"`
	Questions []struct {
		ID     string `yaml:"id"`
		Answer string `yaml:"answer"`
	} `yaml:"questions"`
}

// courseGoals reads every lab.yaml of the embedded course, by lab id.
func courseGoals(t *testing.T) map[string]labGoals {
	t.Helper()
	files, err := fs.Glob(content.FS, "labs/*/lab.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no labs in the course: %v", err)
	}
	out := make(map[string]labGoals)
	for _, f := range files {
		b, err := fs.ReadFile(content.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		var lg labGoals
		if err := yaml.Unmarshal(b, &lg); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[lg.ID] = lg
	}
	return out
}

// TestCourseGoalsLive plays each goal of the first and the real-systems
// lessons' labs through the live websocket, a student's way: the goal's
// own proof from lab.yaml, one command at a time, each of which the lab's
// page must offer (the socket refuses any other), then the session's goal
// check. The goal must not hold before the proof, and must after.
func TestCourseGoalsLive(t *testing.T) {
	t.Parallel()
	all := courseGoals(t)
	for _, tc := range []struct {
		lab   string
		goals []string // every goal of the lab, so that a new one is not left untested
	}{
		{"lock-vs-lease", []string{"stuck-forever", "take-over"}},
		{"leader-failover", []string{"fast-failover", "failover"}},
		{"flapping", []string{"stop-flapping", "lose-leadership"}},
		{"split-brain", []string{"two-leaders", "fenced"}},
		{"quorum-loss", []string{"stop-at-deadline", "new-token"}},
		{"storage-options", []string{"by-lease", "by-version", "by-key"}},
		{"idempotent-work", []string{"thumb-twice", "cleanup-twice", "report-twice"}},
		{"clock-trouble", []string{"fool-w1", "fenced"}},
		{"delayed-packet", []string{"late-overwrite"}},
		// The margin covers a service's queue, the holder's pause, and
		// named parts of a delay.
		{"margin-budget", []string{"pause-in-queue", "named-parts"}},
		// Wall-clock stamps compared across hosts, and answers slowed.
		{"clock-stamp", []string{"stamp-skew", "late-answers"}},
		// The jitter switch of the second lesson.
		{"renew-load", []string{"spread"}},
		// A long job cancelled, or refused at the resource, when the lease is lost.
		{"long-job", []string{"cancelled", "revalidated"}},
		// A request timeout longer than the lease left, beside a safe one.
		{"request-timeout", []string{"unsafe-beside-safe"}},
		// Duplicate renewal loops the student starts, and the generation check.
		{"renew-state", []string{"drop-the-stale", "roll-back"}},
		// A renewed token published after its expiry, as a switch.
		{"publish-token", []string{"own-write-refused"}},
		// Check-then-write, both halves: a pause before the check is
		// caught, one between the check and the write is not.
		{"break-check", []string{"caught-by-check", "past-the-check"}},
		// The real-systems lesson.
		{"kubernetes-election", []string{"two-leaders"}},
		{"etcd-keepalive", []string{"fenced"}},
		{"consul-session", []string{"lockindex"}},
		{"zookeeper-session", []string{"stale-writes"}},
		{"chubby-sequencer", []string{"sequencer"}},
		{"redlock-pause", []string{"two-writers", "forgotten", "clock-jump"}},
		{"juliet-pause", []string{"fenced"}},
		{"github-2018", []string{"diverge", "fenced-one-copy"}},
	} {
		lg, ok := all[tc.lab]
		if !ok {
			t.Errorf("no lab %q in the course", tc.lab)
			continue
		}
		var ids []string
		for _, g := range lg.Goals {
			ids = append(ids, g.ID)
		}
		if !slices.Equal(ids, tc.goals) {
			t.Errorf("%s: goals %v, want %v", tc.lab, ids, tc.goals)
		}
		for _, g := range lg.Goals {
			t.Run(tc.lab+"/"+g.ID, func(t *testing.T) {
				if len(g.Proof) == 0 {
					t.Fatal("the goal has no proof to play")
				}
				_, ts := newTestServer(t, Config{})
				c := dialLab(t, ts.URL, "/en/labs/"+tc.lab+"/ws")
				target := "goal-verdict-" + g.ID
				ask := func() string {
					t.Helper()
					m := c.call(live.ClientMsg{Type: "goal", Goal: g.ID})
					if m.Type != "ack" {
						t.Fatalf("goal check: %s %s", m.Type, m.Error)
					}
					v := opHTML(m, target)
					if v == "" {
						t.Fatalf("goal check sent no %s", target)
					}
					return v
				}
				if v := ask(); strings.Contains(v, `data-correct="true"`) {
					t.Fatalf("goal reached before any command:\n%s", v)
				}
				for _, cmd := range g.Proof {
					c.do(cmd)
				}
				if v := ask(); !strings.Contains(v, `data-correct="true"`) {
					t.Errorf("goal not reached after %q:\n%s", g.Proof, v)
				}
			})
		}
	}
}

// TestBrowserCourseLabsIndonesian walks split-brain and storage-options in
// Indonesian on a phone and on a laptop: the page opens with a goal's
// proof as its session (the address a student's own session gets), shows
// the deciding event in Indonesian, fits the screen, and its goal check and
// a predict question answer through the page's own forms.
func TestBrowserCourseLabsIndonesian(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	all := courseGoals(t)
	walks := []struct {
		lab, goal, question string
		event               string // the Indonesian sentence of the deciding event
	}{
		{"split-brain", "fenced", "with-fencing", "penyimpanan menolak log dari L1 dengan token 1"},
		{"storage-options", "by-version", "cas", "penyimpanan menolak file dari W1 dengan token 7 (versi sudah 1)"},
	}
	for _, vp := range []struct {
		name          string
		width, height int
		mobile        bool
	}{{"phone", 390, 844, true}, {"laptop", 1280, 800, false}} {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			ctx := browser(t, vp.width, vp.height)
			if vp.mobile {
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(vp.width), int64(vp.height), chromedp.EmulateScale(2), chromedp.EmulateMobile)); err != nil {
					t.Fatal(err)
				}
			}
			_, ts := newTestServer(t, Config{})
			for _, w := range walks {
				lg := all[w.lab]
				q := url.Values{"seed": {"1"}}
				for _, g := range lg.Goals {
					if g.ID == w.goal {
						q["do"] = g.Proof
					}
				}
				if len(q["do"]) == 0 {
					t.Fatalf("%s has no goal %s with a proof", w.lab, w.goal)
				}
				answer := ""
				for _, qq := range lg.Questions {
					if qq.ID == w.question {
						answer = qq.Answer
					}
				}
				if answer == "" {
					t.Fatalf("%s has no pinned question %s", w.lab, w.question)
				}
				if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/"+w.lab+"?"+q.Encode())); err != nil {
					t.Fatal(err)
				}
				waitJS(t, ctx, "the live page", `document.querySelector("#conn.on") !== null && document.documentElement.lang === "id"`)
				waitJS(t, ctx, "the deciding event in Indonesian", eventsContain(w.event))
				wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](scrollsSideways))
				if err != nil {
					t.Fatal(err)
				}
				if wide {
					t.Errorf("%s scrolls sideways at %dx%d", w.lab, vp.width, vp.height)
				}
				english, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`["the storage", "the coordinator", "Question", "Choice", "Explanation"].filter(s => document.body.innerText.includes(s))`))
				if err != nil {
					t.Fatal(err)
				}
				if len(english) > 0 {
					t.Errorf("%s in Indonesian shows English: %q", w.lab, english)
				}
				screenshot(t, ctx, fmt.Sprintf("course-%s-%s-world-id", w.lab, vp.name), false)

				click(t, ctx, fmt.Sprintf(`#goal-%s button[type="submit"]`, w.goal))
				waitJS(t, ctx, "the goal reached", fmt.Sprintf(`document.querySelector('#goal-verdict-%s [data-correct="true"]') !== null`, w.goal))

				click(t, ctx, fmt.Sprintf(`#q-%s input[value=%q]`, w.question, answer))
				click(t, ctx, fmt.Sprintf(`#q-%s button[type="submit"]`, w.question))
				waitJS(t, ctx, "the pinned answer judged right", fmt.Sprintf(`document.querySelector('#verdict-%s [data-correct="true"]') !== null`, w.question))
				if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(document.getElementById("q-%s").scrollIntoView(), true)`, w.question))); err != nil {
					t.Fatal(err)
				}
				screenshot(t, ctx, fmt.Sprintf("course-%s-%s-verdict-id", w.lab, vp.name), false)
			}
		})
	}
}

// TestStatedToleranceThroughTheForm: renew-policy's challenge form takes
// the tolerance a student states, and the verdict holds the policy to it:
// the lesson's safe policy passes with the 1 s pause the lab starts from
// and fails when the student promises to survive a 12 s pause on a 10 s
// lease. Only the page's own form fields are sent.
func TestStatedToleranceThroughTheForm(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, Config{})
	safe := url.Values{"challenge": {"1"}, "p.renew-margin": {"6s"}, "p.renew-attempt": {"2500ms"}, "p.renew-retry": {"500ms"},
		"p.renew-give-up": {"9s"}, "p.stop-at-expiry": {"on"}, "p.retry-past-deadline": {"off"}}
	page := idGet(t, ts.URL+"/id/labs/renew-policy")
	if !strings.Contains(page, `name="p.survive-pause"`) || !strings.Contains(page, `name="p.survive-partition"`) {
		t.Fatal("the challenge form has no field for the stated tolerance")
	}
	for _, tc := range []struct {
		pause string
		pass  bool
	}{{"1s", true}, {"12s", false}} {
		q := url.Values{}
		for k, v := range safe {
			q[k] = v
		}
		q.Set("p.survive-pause", tc.pause)
		page := idGet(t, ts.URL+"/id/labs/renew-policy?"+q.Encode())
		want := fmt.Sprintf(`data-correct="%t" data-challenge="1"`, tc.pass)
		if !strings.Contains(page, want) {
			t.Errorf("survive-pause=%s: the verdict is not %s", tc.pause, want)
		}
		if !strings.Contains(page, "survive-pause="+tc.pause) {
			t.Errorf("survive-pause=%s: the verdict does not say the stated tolerance", tc.pause)
		}
	}
}
