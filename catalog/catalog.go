// Package catalog holds every text a student reads, one map per
// language. They are the pages' words, control names, commands as the
// student reads them, refusals, event sentences, verdicts and what a goal
// still lacks, one file per language (id.go, en.go). Adding a language is one more file
// that registers its map, plus the content's Markdown in that language; a
// test fails while any key of one language is missing in another.
//
// Values are fmt formats where the caller fills in names, times or tokens;
// a language may reorder them with explicit indexes (%[2]s).
package catalog

import "sort"

// Default is the language every text falls back to.
const Default = "id"

// Missing prefixes the key of a text no language has; tests look for it.
const Missing = "??"

var texts = map[string]map[string]string{}

// register adds m's texts to lang's: a language's texts may come in more
// than one file (id.go and class.go), registered in any order. It
// returns true so that each file registers its table as a package-level
// declaration (var _ = register(...)) rather than in a long init function.
func register(lang string, m map[string]string) bool {
	if texts[lang] == nil {
		texts[lang] = map[string]string{}
	}
	for k, v := range m {
		texts[lang][k] = v
	}
	return true
}

// Lookup is key's text in lang, else in Default.
func Lookup(lang, key string) (string, bool) {
	if s, ok := texts[lang][key]; ok {
		return s, true
	}
	s, ok := texts[Default][key]
	return s, ok
}

// T is key's text in lang, else in Default, else Missing+key.
func T(lang, key string) string {
	if s, ok := Lookup(lang, key); ok {
		return s
	}
	return Missing + key
}

// Langs lists the languages that have a catalog, sorted.
func Langs() []string {
	out := make([]string, 0, len(texts))
	for l := range texts {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// Keys lists lang's keys, sorted.
func Keys(lang string) []string {
	out := make([]string, 0, len(texts[lang]))
	for k := range texts[lang] {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
