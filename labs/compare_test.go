package labs_test

import (
	"errors"
	"strings"
	"testing"

	"leaselab/labs"
)

// Compare with the reference (issue 49): refused to a program that has
// not passed; the reference beside itself is the same in every schedule
// tried; a program that passes another way (write-renewal's reference
// with a wider margin) differs, and the engine names the first event
// that tells them apart, in both languages.
func TestCompareWithTheReference(t *testing.T) {
	t.Parallel()
	p, ref := programLab(t, "write-renewal")
	if _, err := p.Compare(p.Start, judged(t, p, p.Start)); !errors.Is(err, labs.ErrNotPassed) {
		t.Fatalf("the start, which fails: %v, want ErrNotPassed", err)
	}
	same, err := p.Compare(ref, judged(t, p, ref))
	if err != nil || !same.Same || same.Tried != 21 {
		t.Fatalf("the reference beside itself: %+v %v", same, err)
	}
	other := strings.Replace(ref, "MARGIN = 3 * SECOND", "MARGIN = 4 * SECOND", 1)
	v := judged(t, p, other)
	if !v.Pass {
		t.Fatalf("a margin of 4 s should pass: %+v", v.Result)
	}
	c, err := p.Compare(other, v)
	if err != nil || c.Same || c.Mine == nil || c.Ref == nil {
		t.Fatalf("a wider margin: %+v %v", c, err)
	}
	// Before the first difference both worlds did the same.
	if c.Diff.A < 0 || c.Diff.B < 0 || c.At() <= 0 {
		t.Fatalf("difference %+v at %s", c.Diff, c.At())
	}
	for _, tc := range []struct{ lang, mine, ref string }{{"id", "programmu", "program rujukan"}, {"en", "your program", "the reference"}} {
		s := c.Text(tc.lang)
		t.Log(s)
		if !strings.Contains(s, tc.mine) || !strings.Contains(s, tc.ref) || !strings.Contains(s, "W1") {
			t.Errorf("%s: %q", tc.lang, s)
		}
	}
}
