package program

import (
	"errors"
	"fmt"
	"strings"

	"leaselab/catalog"
	"leaselab/engine"
)

// Describe says what is wrong with a program in the student's language:
// where (line and column, the handler), what, and the interpreter's own
// words when they add something. err is a *Error or an
// *engine.ActionError; anything else is said as it is.
func Describe(err error, lang string) string {
	var b strings.Builder
	var pe *Error
	var ae *engine.ActionError
	switch {
	case errors.As(err, &pe):
		if pe.Line > 0 {
			fmt.Fprintf(&b, catalog.T(lang, "program.at"), pe.Line, pe.Col)
		}
		if pe.Handler != "" {
			fmt.Fprintf(&b, catalog.T(lang, "program.in"), pe.Handler)
		}
		text := catalog.T(lang, "program.err."+pe.Code)
		if strings.Contains(text, "%s") {
			arg := pe.Arg
			if arg != "" && strings.Trim(arg, "0123456789") == "" {
				arg = string(catalog.AppendNumber(nil, lang, []byte(arg))) // 10.000 in id
			}
			text = fmt.Sprintf(text, arg)
		}
		if said, ok := catalog.InterpreterText(lang, pe.Detail); ok && (pe.Code == "syntax" || pe.Code == "runtime") {
			text = said // what the interpreter said, in lang; its own words follow as the detail
		}
		b.WriteString(text)
		if pe.Hint != "" {
			fmt.Fprintf(&b, catalog.T(lang, "program.hint"), pe.Hint)
		}
		if pe.Detail != "" {
			fmt.Fprintf(&b, catalog.T(lang, "program.detail"), pe.Detail)
		}
	case errors.As(err, &ae):
		if ae.Action.Line > 0 {
			fmt.Fprintf(&b, catalog.T(lang, "program.at"), ae.Action.Line, ae.Action.Col)
		}
		b.WriteString(catalog.T(lang, "program.act."+ae.Code))
	default:
		b.WriteString(err.Error())
	}
	return b.String()
}
