package draw

import (
	"context"
	"strings"
	"testing"

	"leaselab/catalog"
	"leaselab/labsession"
)

// A lab whose storage is the student's program says so on its status
// line: the program decides each write, not "no checks" (the scenario's
// mode, which decides nothing then). A lab with the engine's storage
// still says its mode.
func TestStatusSaysTheProgramDecides(t *testing.T) {
	course, err := embeddedCourse()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lab, want, not, mode string
	}{
		{"write-fencing-check", "mode.program", "mode.none", "program"},
		{"write-idempotency-key", "mode.program", "mode.none", "program"},
		{"w1-w2", "mode.none", "mode.program", "none"},
	} {
		sess, err := labsession.New(course.Lab(tc.lab), 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.Do("advance 5s"); err != nil {
			t.Fatal(err)
		}
		for _, lang := range []string{"id", "en"} {
			var b strings.Builder
			if err := StatusPanel(NewStatus(sess.World(), lang)).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			if !strings.Contains(got, catalog.T(lang, tc.want)) || strings.Contains(got, catalog.T(lang, tc.not)) || !strings.Contains(got, `data-mode="`+tc.mode+`"`) {
				t.Errorf("%s (%s): the status says\n%s\nwant %q (%s), not %q", tc.lab, lang, got, catalog.T(lang, tc.want), tc.mode, catalog.T(lang, tc.not))
			}
		}
	}
}
