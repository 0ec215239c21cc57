package program

import (
	"strings"
	"testing"

	"leaselab/catalog"
	"leaselab/engine"
)

// TestCommonMistakesSaidInIndonesian: the interpreter's messages for a
// student's common mistakes are said in Indonesian (catalog's
// InterpreterText knows each), with the interpreter's own words kept
// after them, quoted; a new interpreter that words one differently fails
// here rather than showing a generic sentence.
func TestCommonMistakesSaidInIndonesian(t *testing.T) {
	for _, body := range []string{
		"    w.acquire(\n",
		"    if True\n        pass\n",
		"    x = 1\n   y = 2\n",
		"    return y\n",
		"    x = \"a\" + 1\n",
		"    x = {}[\"k\"]\n",
		"    x = [1][3]\n",
		"    x = 1 / 0\n",
		"    x = len(1)\n",
		"    f = 1\n    f()\n",
		"    w.set_timer(\"a\")\n",
		"    while True:\n        pass\n",
		"    for i in 5:\n        pass\n",
		"    def g(a):\n        pass\n    g()\n",
		"    x = 1 < \"a\"\n",
		"    if False:\n        y = 1\n    z = y\n",
		"    x = \"a\".foo()\n",
		"    x = (1, 2)\n    x[0] = 3\n",
		"    x = 'abc\n",
		"    w.acquire(1)\n",
		"    x = 1 if True\n",
	} {
		src := "def on_start(w, ev):\n" + body
		c, err := Compile(src, nil, Limits{})
		if err == nil {
			_, err = c.Start().Handle(engine.Moment{Kind: engine.MomentStart})
		}
		pe, ok := err.(*Error)
		if !ok || pe.Detail == "" {
			t.Errorf("%q: %v: want an error with the interpreter's words", body, err)
			continue
		}
		if _, ok := catalog.InterpreterText("id", pe.Detail); !ok {
			t.Errorf("%q: the interpreter's %q is not said in Indonesian", body, pe.Detail)
			continue
		}
		said := Describe(err, "id")
		if !strings.Contains(said, "(kata interpreter: «"+pe.Detail+"»)") {
			t.Errorf("%q: %q keeps no quoted detail", body, said)
		}
		if words := catalog.Untranslated("id", said); len(words) > 0 {
			t.Errorf("%q: English %q in %q", body, words, said)
		}
	}
}
