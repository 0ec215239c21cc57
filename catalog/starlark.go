package catalog

import (
	"fmt"
	"regexp"
	"strings"
)

// The Starlark interpreter speaks English. Its common messages about a
// student's program (a name not defined, a bracket not closed, an
// operation between the wrong types) are said here in the reader's
// language; the interpreter's own words stay beside them, quoted, as the
// detail (program.detail). A message not listed keeps the generic text of
// its kind (program.err.syntax, program.err.runtime).

// starlarkSaying is one message of the interpreter: what it looks like,
// the key of its text, and which of its parts fill the text, in order.
type starlarkSaying struct {
	re    *regexp.Regexp
	key   string
	parts []int
}

var starlarkSayings = []starlarkSaying{
	{regexp.MustCompile(`^undefined: (\w+)$`), "starlark.undefined", []int{1}},
	{regexp.MustCompile(`^(.+): for parameter (\S+): got (\w+), want (\w+)$`), "starlark.param-type", []int{1, 2, 4, 3}},
	{regexp.MustCompile(`^(\w+) index: got (\w+), want (\w+)$`), "starlark.index-type", []int{1, 3, 2}},
	{regexp.MustCompile(`^got (.+), want (.+)$`), "starlark.got-want", []int{1, 2}},
	{regexp.MustCompile(`^unindent does not match any outer indentation level$`), "starlark.unindent", nil},
	{regexp.MustCompile(`^unknown binary op: (\S+) (\S+) (\S+)$`), "starlark.binary", []int{2, 1, 3}},
	{regexp.MustCompile(`^unknown unary op: (\S+) (\S+)$`), "starlark.unary", []int{1, 2}},
	{regexp.MustCompile(`^(\S+) (<|<=|>|>=) (\S+) not implemented$`), "starlark.compare", []int{1, 3, 2}},
	{regexp.MustCompile(`^key (.+) not in dict$`), "starlark.key", []int{1}},
	{regexp.MustCompile(`^(\w+) index (-?\d+) out of range`), "starlark.range", []int{2, 1}},
	{regexp.MustCompile(`(division|modulo) by zero$`), "starlark.zero", nil},
	{regexp.MustCompile(`^(\w+): value of type (\w+) has no len$`), "starlark.len", []int{1, 2}},
	{regexp.MustCompile(`^invalid call of non-function \((\w+)\)$`), "starlark.call", []int{1}},
	{regexp.MustCompile(`^(\w+): missing argument for (\w+)$`), "starlark.missing", []int{1, 2}},
	{regexp.MustCompile(`^function (\w+) missing (\d+) arguments? \((.+)\)$`), "starlark.missing-n", []int{1, 2, 3}},
	{regexp.MustCompile(`^function (\w+) accepts (\d+) positional arguments? \((\d+) given\)$`), "starlark.too-many", []int{1, 2, 3}},
	{regexp.MustCompile(`^(\w+): got (\d+) arguments?, want (at most|exactly|at least) (\d+)$`), "starlark.args", []int{1, 2, 3, 4}},
	{regexp.MustCompile(`^this Starlark dialect does not support while loops$`), "starlark.while", nil},
	{regexp.MustCompile(`^(\w+) value is not iterable$`), "starlark.iterable", []int{1}},
	{regexp.MustCompile(`^unhashable type: (\w+)$`), "starlark.unhashable", []int{1}},
	{regexp.MustCompile(`^local variable (\w+) referenced before assignment$`), "starlark.before", []int{1}},
	{regexp.MustCompile(`^(\w+) has no \.(\w+) field or method$`), "starlark.field", []int{1, 2}},
	{regexp.MustCompile(`^can't assign to \.(\w+) field of (\w+)$`), "starlark.assign-field", []int{1, 2}},
	{regexp.MustCompile(`^(\w+) value does not support item assignment$`), "starlark.assign-item", []int{1}},
	{regexp.MustCompile(`^unexpected newline in string$`), "starlark.string", nil},
	{regexp.MustCompile(`^invalid (int|float) literal$`), "starlark.number", nil},
	{regexp.MustCompile(`^cannot reassign global (\w+) declared at (.+)$`), "starlark.reassign", []int{1, 2}},
	{regexp.MustCompile(`^conditional expression without else clause$`), "starlark.else", nil},
	{regexp.MustCompile(`^int: invalid literal with base \d+: (.*)$`), "starlark.int", []int{1}},
}

// starlarkTokens are the parser's names for what it found or wanted
// (got newline, want ':'), said as a reader says them; any other is
// quoted as written.
var starlarkTokens = map[string]string{
	"newline": "starlark.token.newline", "outdent": "starlark.token.outdent", "indent": "starlark.token.indent",
	"primary expression": "starlark.token.expression", "int literal": "starlark.token.number",
	"float literal": "starlark.token.number", "string literal": "starlark.token.string", "identifier": "starlark.token.name",
	"at most": "starlark.token.at-most", "exactly": "starlark.token.exactly", "at least": "starlark.token.at-least",
}

// InterpreterText says in lang what one of the Starlark interpreter's
// common messages means; false for a message it does not know.
func InterpreterText(lang, msg string) (string, bool) {
	for _, s := range starlarkSayings {
		m := s.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		args := make([]any, len(s.parts))
		for i, p := range s.parts {
			args[i] = starlarkPart(lang, s.key, m[p])
		}
		return fmt.Sprintf(T(lang, s.key), args...), true
	}
	return "", false
}

// starlarkPart is one part of a message: a token of the parser in lang's
// words, else as written ('x' without its quotes).
func starlarkPart(lang, key, part string) string {
	if k, ok := starlarkTokens[part]; ok {
		return T(lang, k)
	}
	if key == "starlark.got-want" {
		if lang == "en" {
			return "'" + strings.Trim(part, "'") + "'"
		}
		return "«" + strings.Trim(part, "'") + "»"
	}
	return part
}

var (
	_ = register("id", map[string]string{
		"starlark.undefined":        "nama «%s» belum didefinisikan: beri nilai dulu, atau periksa ejaannya",
		"starlark.param-type":       "«%s»: parameter %s harus bertipe «%s», bukan «%s»",
		"starlark.index-type":       "indeks «%s» harus bertipe «%s», bukan «%s»",
		"starlark.got-want":         "di sini ada %s, padahal yang diharapkan %s: periksa tanda kurung, titik dua dan indentasi sampai baris ini",
		"starlark.unindent":         "indentasi baris ini tidak sejajar dengan blok mana pun di atasnya",
		"starlark.binary":           "operasi «%s» tidak bisa dipakai antara «%s» dan «%s»",
		"starlark.unary":            "operasi «%s» tidak bisa dipakai pada «%s»",
		"starlark.compare":          "«%s» dan «%s» tidak bisa dibandingkan dengan «%s»",
		"starlark.key":              "kunci %s tidak ada di dict: periksa dulu dengan «in», atau pakai «.get»",
		"starlark.range":            "indeks %s di luar jangkauan «%s» ini",
		"starlark.zero":             "pembagian dengan nol",
		"starlark.len":              "«%s»: nilai bertipe «%s» tidak punya panjang",
		"starlark.call":             "nilai bertipe «%s» bukan fungsi, jadi tidak bisa dipanggil",
		"starlark.missing":          "«%s» butuh argumen «%s»",
		"starlark.missing-n":        "fungsi «%s» masih butuh %s argumen: «%s»",
		"starlark.too-many":         "fungsi «%s» menerima %s argumen, tetapi diberi %s",
		"starlark.args":             "«%s» diberi %s argumen, padahal ia menerima %s %s",
		"starlark.while":            "Starlark di lab ini tidak punya «while»: pakai «for» dengan «range(...)»",
		"starlark.iterable":         "nilai bertipe «%s» tidak bisa diulang dengan «for»",
		"starlark.unhashable":       "nilai bertipe «%s» tidak bisa menjadi kunci dict",
		"starlark.before":           "«%s» dipakai sebelum diberi nilai",
		"starlark.field":            "«%s» tidak punya «.%s»",
		"starlark.assign-field":     "«.%s» milik «%s» tidak bisa diubah",
		"starlark.assign-item":      "isi «%s» tidak bisa diubah",
		"starlark.string":           "teks belum ditutup di akhir baris: tambahkan tanda kutip penutupnya",
		"starlark.number":           "angka ini tidak bisa dibaca",
		"starlark.reassign":         "«%s» sudah didefinisikan di %s: satu nama hanya boleh didefinisikan sekali",
		"starlark.else":             "ekspresi «if» di sini butuh «else»",
		"starlark.int":              "«int»: «%s» bukan angka",
		"starlark.token.newline":    "akhir baris",
		"starlark.token.outdent":    "akhir blok",
		"starlark.token.indent":     "blok yang menjorok ke dalam",
		"starlark.token.expression": "sebuah nilai atau nama",
		"starlark.token.number":     "angka",
		"starlark.token.string":     "teks",
		"starlark.token.name":       "sebuah nama",
		"starlark.token.at-most":    "paling banyak",
		"starlark.token.exactly":    "tepat",
		"starlark.token.at-least":   "paling sedikit",
	})
	_ = register("en", map[string]string{
		"starlark.undefined":        "the name %s is not defined: give it a value first, or check its spelling",
		"starlark.param-type":       "%s: parameter %s must be of type %s, not %s",
		"starlark.index-type":       "a %s index must be of type %s, not %s",
		"starlark.got-want":         "here is %s where %s was expected: check the brackets, colons and indentation up to this line",
		"starlark.unindent":         "this line's indentation lines up with no block above it",
		"starlark.binary":           "the operation %s cannot be used between %s and %s",
		"starlark.unary":            "the operation %s cannot be used on %s",
		"starlark.compare":          "%s and %s cannot be compared with %s",
		"starlark.key":              "the key %s is not in the dict: check first with in, or use .get",
		"starlark.range":            "index %s is out of this %s's range",
		"starlark.zero":             "division by zero",
		"starlark.len":              "%s: a value of type %s has no length",
		"starlark.call":             "a value of type %s is not a function, so it cannot be called",
		"starlark.missing":          "%s needs the argument %s",
		"starlark.missing-n":        "the function %s is missing %s argument(s): %s",
		"starlark.too-many":         "the function %s takes %s arguments, but was given %s",
		"starlark.args":             "%s was given %s argument(s), and it takes %s %s",
		"starlark.while":            "Starlark here has no while: use for with range(...)",
		"starlark.iterable":         "a value of type %s cannot be looped over with for",
		"starlark.unhashable":       "a value of type %s cannot be a dict key",
		"starlark.before":           "%s is used before it is given a value",
		"starlark.field":            "%s has no .%s",
		"starlark.assign-field":     "the .%s of %s cannot be changed",
		"starlark.assign-item":      "the items of a %s cannot be changed",
		"starlark.string":           "a text is not closed at the end of the line: add its closing quote",
		"starlark.number":           "this number cannot be read",
		"starlark.reassign":         "%s is defined already at %s: a name may be defined once",
		"starlark.else":             "the if expression here needs an else",
		"starlark.int":              "int: %s is not a number",
		"starlark.token.newline":    "the end of the line",
		"starlark.token.outdent":    "the end of a block",
		"starlark.token.indent":     "an indented block",
		"starlark.token.expression": "a value or a name",
		"starlark.token.number":     "a number",
		"starlark.token.string":     "a text",
		"starlark.token.name":       "a name",
		"starlark.token.at-most":    "at most",
		"starlark.token.exactly":    "exactly",
		"starlark.token.at-least":   "at least",
	})
)
