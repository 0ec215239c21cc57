package catalog

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEveryKeyInEveryLanguage fails on a key one language has and another
// lacks.
func TestEveryKeyInEveryLanguage(t *testing.T) {
	langs := Langs()
	if len(langs) < 2 {
		t.Fatalf("catalogs: %v", langs)
	}
	for _, a := range langs {
		for _, k := range Keys(a) {
			for _, b := range langs {
				if _, ok := texts[b][k]; !ok {
					t.Errorf("%s has %q, %s lacks it", a, k, b)
				}
			}
		}
	}
}

var verbs = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]`)

// TestSameArguments: a text's translations take the same fmt arguments,
// so that one call fills any language.
func TestSameArguments(t *testing.T) {
	for _, k := range Keys(Default) {
		want := argKinds(texts[Default][k])
		for _, l := range Langs() {
			if got := argKinds(texts[l][k]); got != want {
				t.Errorf("%s %q takes %s, %s takes %s", l, k, got, Default, want)
			}
		}
	}
}

// argKinds is the verbs of a format by argument position.
func argKinds(f string) string {
	byArg := map[int]byte{}
	n := 0
	for _, m := range verbs.FindAllStringSubmatch(f, -1) {
		v := m[0][len(m[0])-1]
		if v == '%' {
			continue
		}
		if m[1] != "" {
			fmt.Sscanf(m[1], "[%d]", &n)
			n--
		}
		byArg[n] = v
		n++
	}
	s := ""
	for i := 0; i < len(byArg)+1; i++ {
		if v, ok := byArg[i]; ok {
			s += string(v)
		}
	}
	return s
}

// TestIndonesianTextsSpeakIndonesian: no Indonesian text in the catalog
// has a word Untranslated finds, once its format verbs are filled.
func TestIndonesianTextsSpeakIndonesian(t *testing.T) {
	for _, k := range Keys("id") {
		if words := Untranslated("id", T("id", k)); len(words) > 0 {
			t.Errorf("id %q: %q has %q", k, T("id", k), words)
		}
	}
	if len(Untranslated("id", "W1 renewed lease=x")) != 2 {
		t.Error("Untranslated misses what it is for")
	}
}

// quotedRE is what Untranslated passes over: «quoted» text.
var quotedRE = regexp.MustCompile(`«[^»]*»`)

// untranslatedRE is what Untranslated finds, as a regular expression: the
// words and pairs of the list, whole, and its keys followed by "=".
func untranslatedRE(g *giveaways) *regexp.Regexp {
	var words, keys []string
	for w := range g.words {
		words = append(words, w)
	}
	for a, b := range g.pairs {
		words = append(words, a+" "+b)
	}
	for k := range g.keys {
		keys = append(keys, k)
	}
	return regexp.MustCompile(`\b(` + strings.Join(words, "|") + `)\b|\b(` + strings.Join(keys, "|") + `)=`)
}

// asciiLower is s with A-Z made a-z: Untranslated's case, without (?i)'s
// folding of ſ into s and K into k.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// Untranslated finds what the regular expression finds, on texts made of
// its words, their near misses and the marks around them.
func TestUntranslatedIsTheExpression(t *testing.T) {
	parts := []string{"renew", "Renewed", "renewal", "renewer", "THE", "then", "timed", "out", "Timed out", "timed  out", "lease", "lease=", "Lease=", "leases=", "state=", "why=", "x", "_", "9", "é", "ſ", " ", "  ", "=", ".", "-", "\n", "<b>", "kini", "W1", "gen=3", "prev=", "current", "frozen", "writes", "with", "Play", "check", "checks", "freeze", "freezes", "on=check", "=lease=", "for=25s", "for", "of", "offer", "goal", "vote=", "as", "AS", "«", "»", "«on»", "why"}
	re := untranslatedRE(untranslated["id"])
	r := rand.New(rand.NewPCG(7, 11))
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		var want []string
		text := quotedRE.ReplaceAllString(b.String(), "\x00")
		for _, m := range re.FindAllStringSubmatchIndex(asciiLower(text), -1) {
			// A command's value (=check) and option (for=) are syntax.
			value := m[0] > 0 && text[m[0]-1] == '='
			option := m[2] >= 0 && m[1] < len(text) && text[m[1]] == '='
			if !value && !option {
				want = append(want, text[m[0]:m[1]])
			}
		}
		got := Untranslated("id", b.String())
		if !slices.Equal(got, want) {
			t.Fatalf("%q: found %q, the expression %q", b.String(), got, want)
		}
	}
}

// A count is written with the language's thousands separator, and every
// text that takes counts says them with %d.
func TestCountGroupsThousands(t *testing.T) {
	for _, tc := range []struct {
		lang string
		n    int64
		want string
	}{{"en", 1149332, "1,149,332"}, {"id", 1149332, "1.149.332"}, {"id", 999, "999"}, {"en", 1000, "1,000"}, {"id", -12345, "-12.345"}} {
		if got := string(Append(nil, tc.lang, "search.progress", Count(tc.n), Count(1), Count(0), Time(0))); len(got) <= len(tc.want) || got[:len(tc.want)+1] != tc.want+" " {
			t.Errorf("%s %d: %q", tc.lang, tc.n, got)
		}
	}
}
