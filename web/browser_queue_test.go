package web

import (
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowserQueuedSubmit: a Submit that waits in the judgements' queue
// shows its place, and then its verdict. With script the page asks for
// the verdict box alone and stays the same page (a mark left on it is
// still there, no refresh is pending); without script the page's meta
// refresh loads it anew.
func TestBrowserQueuedSubmit(t *testing.T) {
	t.Parallel() // a browser context of its own in the shared Chromium
	for _, script := range []bool{true, false} {
		name := map[bool]string{true: "script", false: "no-script"}[script]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, ts := newTestServer(t, Config{})
			gate := make(chan struct{})
			s.judging.gate = gate // every judgement waits until the gate opens
			ctx := browser(t, 390, 844)
			if !script {
				if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
					t.Fatal(err)
				}
			}
			// The course's cheapest judgement (a storage's program, about
			// 15 ms of CPU): the queue's page is any program lab's.
			if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/id/labs/write-idempotency-key")); err != nil {
				t.Fatal(err)
			}
			clickNav(t, ctx, `#program button[name="submit"]`)
			waitJS(t, ctx, "the place in the queue", `document.querySelector("#program-queued") !== null`)
			refresh := `document.querySelector('meta[http-equiv="refresh"]') !== null`
			if got := evalBool(t, ctx, refresh); got == script {
				t.Errorf("%s: a meta refresh on the queued page: %v", name, got)
			}
			evalBool(t, ctx, `(window.__same = true)`)
			close(gate)
			waitJS(t, ctx, "the verdict", `document.querySelector('#program-verdict .verdict[data-correct]') !== null && document.querySelector("#program-queued") === null`)
			if same := evalBool(t, ctx, `window.__same === true`); same != script {
				t.Errorf("%s: the same page after the verdict came: %v", name, same)
			}
			if script {
				if evalBool(t, ctx, refresh) {
					t.Errorf("the verdict box brought a meta refresh")
				}
				if !evalBool(t, ctx, `document.querySelector("#conn.on") !== null`) {
					t.Errorf("the lab's socket is not on after the verdict came")
				}
			}
		})
	}
}
