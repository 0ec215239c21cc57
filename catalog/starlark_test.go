package catalog

import (
	"strings"
	"testing"
)

// starlarkSamples are messages the Starlark interpreter gives for a
// student's common mistakes, one for each saying (program's
// TestCommonMistakesSaidInIndonesian makes them from real programs).
var starlarkSamples = []string{
	"undefined: y",
	"range: for parameter 1: got string, want int",
	"list index: got string, want int",
	"got newline, want ':'",
	"got outdent, want primary expression",
	"unindent does not match any outer indentation level",
	"unknown binary op: string + int",
	"unknown unary op: - string",
	"int < string not implemented",
	`key "k" not in dict`,
	"list index 3 out of range [-1:0]",
	"floating-point division by zero",
	"integer modulo by zero",
	"len: value of type int has no len",
	"invalid call of non-function (int)",
	"set_timer: missing argument for at",
	"function g missing 1 argument (a)",
	"function g accepts 1 positional argument (2 given)",
	"acquire: got 1 arguments, want at most 0",
	"this Starlark dialect does not support while loops",
	"int value is not iterable",
	"unhashable type: list",
	"local variable y referenced before assignment",
	"string has no .foo field or method",
	"can't assign to .y field of int",
	"tuple value does not support item assignment",
	"unexpected newline in string",
	"invalid int literal",
	"cannot reassign global on_start declared at worker.star:1:5",
	"conditional expression without else clause",
	"int: invalid literal with base 10: a",
}

// TestInterpreterText: each common message of the interpreter is said in
// every language, whole (no verb left unfilled), and in Indonesian with no
// English word outside what it quotes; each saying has its sample.
func TestInterpreterText(t *testing.T) {
	used := map[string]bool{}
	for _, msg := range starlarkSamples {
		for _, lang := range Langs() {
			said, ok := InterpreterText(lang, msg)
			if !ok {
				t.Errorf("%s: %q is not said", lang, msg)
				continue
			}
			if strings.Contains(said, "%!") || said == "" {
				t.Errorf("%s: %q: %q", lang, msg, said)
			}
			if lang == "id" {
				if words := Untranslated("id", said); len(words) > 0 {
					t.Errorf("%q: English %q in %q", msg, words, said)
				}
			}
		}
		for _, s := range starlarkSayings {
			if s.re.MatchString(msg) {
				used[s.key] = true
				break
			}
		}
	}
	for _, s := range starlarkSayings {
		if !used[s.key] {
			t.Errorf("no sample for %s", s.key)
		}
	}
	if _, ok := InterpreterText("id", "%d format requires integer: cannot convert string to int"); ok {
		t.Error("a message no saying knows is said")
	}
}
