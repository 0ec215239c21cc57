package catalog

import (
	"errors"
	"fmt"

	"leaselab/engine"
)

// Error says err in lang: the text of its key (engine.Readable), filled
// with its arguments, each said in lang in turn (a command in the reader's
// words, an error by Error again). An error that is not Readable is a bug
// of the server, not something the reader did: it is said as "this command
// cannot be carried out", in every language alike, so that no English
// shows through another language's page.
func Error(lang string, err error) string {
	if err == nil {
		return ""
	}
	var r engine.Readable
	if !errors.As(err, &r) {
		return T(lang, "err.generic")
	}
	format, ok := Lookup(lang, r.Key())
	if !ok {
		return T(lang, "err.generic")
	}
	args := r.Args()
	said := make([]any, len(args))
	for i, a := range args {
		said[i] = sayArg(lang, a)
	}
	return fmt.Sprintf(format, said...)
}

// sayArg is one argument of a Readable as lang says it.
func sayArg(lang string, a any) any {
	switch a := a.(type) {
	case engine.Command:
		return string(AppendCommand(nil, lang, a))
	case error:
		return Error(lang, a)
	case engine.Time:
		return TimeText(lang, a)
	}
	return a
}
