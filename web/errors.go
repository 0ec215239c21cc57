package web

import "leaselab/catalog"

// errorText says err in lang (catalog.Error): every error a page shows is
// Readable, a catalog key and its arguments, so no English shows through
// another language's page.
func errorText(lang string, err error) string { return catalog.Error(lang, err) }

// wireError is a refusal the web layer finds itself (a message over the
// rate, a message that is not one, a panic): Readable, like every other.
type wireError struct {
	key  string
	args []any
	msg  string // in English, for logs and tests
}

func (e *wireError) Error() string { return e.msg }

// Key is the catalog's text for the refusal.
func (e *wireError) Key() string { return e.key }

// Args are what the text names.
func (e *wireError) Args() []any { return e.args }
