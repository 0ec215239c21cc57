package labs

import (
	"fmt"
	"strings"
	"testing"
)

// TestCompareInExplanation: {{compare fencing on at 4s}} in W1/W2's
// storage-blind explanation tells, in each language, where the question's
// run and its fenced twin part: W1's write at 29 s.
func TestCompareInExplanation(t *testing.T) {
	c := SharedCourse(t)
	q := c.Lab("w1-w2").Question("storage-blind")
	for lang, want := range map[string]string{
		"id": "Pada detik ke-29 kedua simulasi mulai berbeda: di simulasi soal ini, penyimpanan menerima file dari W1 dengan token 7",
		"en": "At 29s the runs part: in this question's run, the storage accepts file from W1 with token 7",
	} {
		x := string(q.Explanation(lang))
		if !strings.Contains(x, want) || !strings.Contains(x, "token") {
			t.Errorf("%s explanation lacks %q:\n%s", lang, want, x)
		}
	}
}

// TestCompareErrors: a bad change is an error at the explanation; a change
// that changes nothing is a warning.
func TestCompareErrors(t *testing.T) {
	for _, tt := range []struct{ compare, want string }{
		{"{{compare fly away}}", `compare "fly away": unknown command`},
		{"{{compare fencing on at soon}}", `after "at" comes a time`},
		{"{{compare advance 3s}}", "the change must alter the world"},
		{"{{compare fencing on at 99s}}", "has not reached 99s yet"},
		{"{{compare thaw W2 at 1s}}", "thaw: W2 is not frozen"},
		{"{{compare clock W2 skew=1ms at 30s}}", "warning: question storage-blind: compare"},
	} {
		m := courseCopy(t)
		replaceIn(t, m, "labs/w1-w2/en.md", "{{compare fencing on at 4s}}", tt.compare)
		c, err := loadCopy(m)
		if err == nil && c != nil {
			err = fmt.Errorf("%v", c.Problems)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.compare, err, tt.want)
		}
	}
}
