package catalog

import "strings"

// untranslated are words that give away English left in a language's
// text: the words the course's events, signals log and answers used
// before they spoke Indonesian, English's small words (of, to, is, …),
// the words of the course's pages and class mode as English says them
// (goal, vote, student, …), and log keys written the English way
// ("lease="). Words the course keeps as its own terms (lease, token,
// worker, fencing, split brain, crash, lock) are not among them; the
// glossary (content/lessons/glosarium) lists those. Nor are words an
// Indonesian text holds in its own right: "as" (Amerika Serikat), a
// name such as Consul's lock-delay or HBase's Juliet pause.
var untranslated = map[string]*giveaways{
	"id": newGiveaways(
		"never renew renews renewed renewal lost error errors deadline report request requests timeout timed_out transient definitive thumb orders state the and with until stale expired write writes frozen play check freeze result "+
			"of to is are was were be been being for from at by this that these those which who whom when where what how not if or but has have had it its they them their you your we our can could will would should may might must into onto over under after before than then only also each every any some there here does did an in on off because while between without again both other such very just now up new old last next done see try use stop start reset step show hide open close please "+
			"send sent receive received link event events restart update goal goals question questions choice choices hint hints answer answers lesson lessons page join joined vote votes voted round reveal student students teacher instructor lecturer dashboard projector grades reached working wait waiting holds holder granted grant denied rejected accepted refused failed fail success expires expiry storage coordinator partition heal healed thaw thawed crashed schedule schedules search found shortest faults fault harm violation verdict passed seconds minutes evidence proof right wrong correct yes copy copies replica replicas down up all none first",
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
// word right after "=" is a command's value, and one right before it a
// command's option (for=25s), and neither is counted; nor is what stands
// between « and », quoted as the reader types it.
func Untranslated(lang, text string) []string {
	g := untranslated[lang]
	if g == nil {
		return nil
	}
	var out []string
	var low [16]byte // no word of a list is longer
	for i := 0; i < len(text); {
		if strings.HasPrefix(text[i:], "«") {
			if k := strings.Index(text[i+len("«"):], "»"); k >= 0 {
				// Quoted: what the reader types or a name on a
				// button (tulis «on» atau «off»), not a word of the text.
				i += len("«") + k + len("»")
				continue
			}
		}
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
		if j < len(text) && text[j] == '=' && !g.keys[strings.ToLower(text[i:j])] {
			// A command's option (for=25s): syntax too, unless it is a
			// log key written the English way (lease=).
			i = j + 1
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
			if j == len(text) || text[j] != '=' {
				out = append(out, text[i:j])
			}
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
