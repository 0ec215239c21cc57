package web

import (
	"errors"
	"fmt"
	"time"

	"leaselab/draw"
	"leaselab/engine"
	"leaselab/labs"
	"leaselab/labsession"
)

// errorText says err in lang. The engine's refusals and the session's
// limits have catalog texts; anything else is said in English only to an
// English page, and elsewhere as "this command cannot be carried out", so
// that no English shows through another language's page.
func errorText(lang string, err error) string {
	if err == nil {
		return ""
	}
	var re *labsession.RefusedError
	if errors.As(err, &re) {
		src := re.Src
		if len(src) > 60 {
			src = labsession.Clip(src)
		}
		return fmt.Sprintf("«%s»: %s", draw.CommandText(lang, src), errorText(lang, re.Err))
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
	var no *labsession.NotOfferedError
	if errors.As(err, &no) {
		return fmt.Sprintf(T(lang, "err.not-offered"), draw.CommandText(lang, no.Cmd.String()))
	}
	var ve *labs.ValueError
	if errors.As(err, &ve) && lang != "en" {
		if ve.Value == "" {
			return fmt.Sprintf(T(lang, "err.param"), ve.Param)
		}
		return fmt.Sprintf(T(lang, "err.value"), ve.Value, ve.Param)
	}
	var be *busyError
	if errors.As(err, &be) {
		return fmt.Sprintf(T(lang, "err.busy"), be.retry.Round(100*time.Millisecond))
	}
	var fe *labsession.ForkError
	if errors.As(err, &fe) && fe.Key != "" {
		return T(lang, fe.Key)
	}
	var le *labsession.LimitError
	if errors.As(err, &le) && le.Key != "" {
		return fmt.Sprintf(T(lang, le.Key), le.Arg)
	}
	if lang == "en" {
		return err.Error()
	}
	return T(lang, "err.generic")
}
