package web

import (
	"slices"

	"leaselab/catalog"
	"leaselab/labs"
)

// missingPrefix marks a text with no translation; tests look for it.
const missingPrefix = catalog.Missing

// T is the text for key in lang, falling back to Indonesian.
func T(lang, key string) string { return catalog.T(lang, key) }

// knownLang reports whether the site is offered in lang.
func knownLang(lang string) bool { return slices.Contains(labs.Langs, lang) }

// otherLang is the language the switch leads to.
func otherLang(lang string) string {
	for _, l := range labs.Langs {
		if l != lang {
			return l
		}
	}
	return lang
}
