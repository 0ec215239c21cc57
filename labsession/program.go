package labsession

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"io"
	"net/url"
	"strconv"

	"leaselab/labs"
	"leaselab/program"
)

// A lab where the student writes the worker carries the program in its
// links: "program" as a form sends it, or "prog", the same text deflated
// and in URL-safe base64, as a session writes it (Query). A shared link
// and a reconnect run the same program.

// Program is the written worker's program the session runs, "" when it
// runs the lab's starting program.
func (s *Session) Program() string { return s.program }

// errProgramLink is a "prog" parameter that does not unpack to a program.
var errProgramLink = &program.Error{Code: "link"}

func programOf(lab *labs.Lab, q url.Values) (string, error) {
	if lab.Program() == nil {
		return "", nil
	}
	if src := q.Get("program"); src != "" {
		return src, nil
	}
	packed := q.Get("prog")
	if packed == "" {
		return "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(packed)
	if err != nil {
		return "", errProgramLink
	}
	// Unpack at most one byte more than a program may be: a small link
	// cannot make the server inflate a large one.
	lim := program.DefaultLimits.Source + 1
	out, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), int64(lim)))
	if err != nil {
		return "", errProgramLink
	}
	if len(out) >= lim {
		return "", &program.Error{Code: "size-source", Arg: strconv.Itoa(program.DefaultLimits.Source)}
	}
	return string(out), nil
}

func compressProgram(src string) string {
	var b bytes.Buffer
	zw, _ := flate.NewWriter(&b, flate.BestCompression) // a valid level: no error
	_, _ = zw.Write([]byte(src))
	_ = zw.Close()
	return base64.RawURLEncoding.EncodeToString(b.Bytes())
}
