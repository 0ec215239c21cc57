package web

import (
	"errors"
	"fmt"

	"leaselab/engine"
	"leaselab/labs"
)

// refusedError is a command of a session's address the world refused.
type refusedError struct {
	src string
	err error
}

func (e *refusedError) Error() string { return fmt.Sprintf("%q: %v", e.src, e.err) }
func (e *refusedError) Unwrap() error { return e.err }

// notOfferedError is a command the lab's page does not offer.
type notOfferedError struct {
	cmd engine.Command
	err error
}

func (e *notOfferedError) Error() string { return e.err.Error() }
func (e *notOfferedError) Unwrap() error { return e.err }

// errorText says err in lang. The engine's refusals and the session's
// limits have catalog texts; anything else is said in English only to an
// English page, and elsewhere as "this command cannot be carried out", so
// that no English shows through another language's page.
func errorText(lang string, err error) string {
	if err == nil {
		return ""
	}
	var re *refusedError
	if errors.As(err, &re) {
		return fmt.Sprintf("«%s»: %s", commandText(lang, re.src), errorText(lang, re.err))
	}
	var ce *engine.CommandError
	if errors.As(err, &ce) {
		if f, ok := lookup(lang, "err."+ce.Kind); ok {
			args := make([]any, len(ce.Args))
			for i, a := range ce.Args {
				args[i] = a
			}
			return fmt.Sprintf(f, args...)
		}
	}
	var no *notOfferedError
	if errors.As(err, &no) {
		return fmt.Sprintf(T(lang, "err.not-offered"), commandText(lang, no.cmd.String()))
	}
	var ve *labs.ValueError
	if errors.As(err, &ve) && lang != "en" {
		if ve.Value == "" {
			return fmt.Sprintf(T(lang, "err.param"), ve.Param)
		}
		return fmt.Sprintf(T(lang, "err.value"), ve.Value, ve.Param)
	}
	var le *limitError
	if errors.As(err, &le) {
		return fmt.Sprintf(T(lang, le.key), le.arg)
	}
	if lang == "en" {
		return err.Error()
	}
	return T(lang, "err.generic")
}
