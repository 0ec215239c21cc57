package draw

import (
	"leaselab/catalog"
	"leaselab/engine"
)

// CommandText is a session's command in the student's words
// (catalog.CommandText).
func CommandText(lang, src string) string { return catalog.CommandText(lang, src) }

// appendCommandText appends command c in the student's words
// (catalog.AppendCommand).
func appendCommandText(b []byte, lang string, c engine.Command) []byte {
	return catalog.AppendCommand(b, lang, c)
}
