package web

import (
	"unicode/utf8"

	"leaselab/catalog"
)

// errorText says err in lang (catalog.Error): every error a page shows is
// Readable, a catalog key and its arguments, so no English shows through
// another language's page.
func errorText(lang string, err error) string { return catalog.Error(lang, err) }

// webError is something a student asked that the server refuses, said
// in the student's language: a catalog key and what it names. msg is
// for the log.
type webError struct {
	key  string
	args []any
	msg  string
}

func (e *webError) Error() string { return e.msg }

// Key is the catalog's text for it.
func (e *webError) Key() string { return e.key }

// Args fill the text.
func (e *webError) Args() []any { return e.args }

// shortText is a name a student sent, cut to what an error repeats.
func shortText(s string) string {
	const n = 40
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
