package catalog

import "strings"

// untranslated are words that give away English left in a language's
// text: the words the course's events, signals log and answers used
// before they spoke Indonesian, and log keys written the English way
// ("lease="). Words the course keeps as its own terms (lease, token,
// worker, fencing, split brain) are not among them; the glossary
// (content/lessons/glosarium) lists those.
var untranslated = map[string]*giveaways{
	"id": newGiveaways(
		"never renew renews renewed renewal lost error errors deadline report request requests timeout timed_out transient definitive thumb orders state the and with until stale expired write writes frozen play check freeze result",
		"lease gen prev left class why current"),
}

// giveaways are a language's words, found whole and in any case; a word
// with "_" is two, one space apart ("timed out"); keys are found as a
// word followed by "=".
type giveaways struct {
	words map[string]bool
	pairs map[string]string // first word: second
	keys  map[string]bool
}

func newGiveaways(words, keys string) *giveaways {
	g := &giveaways{words: map[string]bool{}, pairs: map[string]string{}, keys: map[string]bool{}}
	for _, w := range strings.Fields(words) {
		if a, b, ok := strings.Cut(w, "_"); ok {
			g.pairs[a] = b
		} else {
			g.words[w] = true
		}
	}
	for _, k := range strings.Fields(keys) {
		g.keys[k] = true
	}
	return g
}

// Untranslated lists the words of text that lang's text should not
// contain (untranslated): what tests of every page, frame and trace in
// lang look for. A language with no list finds none. A word is a run of
// ASCII letters, digits and "_", as a regular expression's \b sees it; a
// word right after "=" is a command's value and is not counted.
func Untranslated(lang, text string) []string {
	g := untranslated[lang]
	if g == nil {
		return nil
	}
	var out []string
	var low [16]byte // no word of a list is longer
	for i := 0; i < len(text); {
		j := wordEnd(text, i)
		if j == i {
			i++
			continue
		}
		if j-i > len(low) || (i > 0 && text[i-1] == '=') {
			// Too long for the list, or a command's value as the engine
			// reads it (generation=check, on=check): syntax, not a word.
			i = j
			continue
		}
		w := low[:j-i]
		for k := range w {
			w[k] = lower(text[i+k])
		}
		switch second, pair := g.pairs[string(w)]; {
		case g.words[string(w)]:
			out = append(out, text[i:j])
		case pair && j < len(text) && text[j] == ' ' && strings.EqualFold(text[j+1:wordEnd(text, j+1)], second):
			j = wordEnd(text, j+1)
			out = append(out, text[i:j])
		case g.keys[string(w)] && j < len(text) && text[j] == '=':
			j++
			out = append(out, text[i:j])
		}
		i = j
	}
	return out
}

// wordEnd is where the word at text[i:] ends: i when none starts there.
func wordEnd(text string, i int) int {
	for i < len(text) && isWordByte(text[i]) {
		i++
	}
	return i
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
