package web

import "leaselab/catalog"

// errorText says err in lang (catalog.Error): every error a page shows is
// Readable, a catalog key and its arguments, so no English shows through
// another language's page.
func errorText(lang string, err error) string { return catalog.Error(lang, err) }
