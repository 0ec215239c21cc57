package labsession

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"leaselab/engine"
)

// referenceQuery is Query as it was written before AppendQuery, with
// url.QueryEscape: AppendQuery is held to it.
func referenceQuery(s *Session) string {
	var b strings.Builder
	if s.seed != 0 {
		b.WriteString("seed=" + strconv.FormatUint(s.seed, 10))
	}
	for _, c := range s.cmds {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString("do=" + url.QueryEscape(c.String()))
	}
	return b.String()
}

func TestQueryEscapesAsURL(t *testing.T) {
	s := &Session{seed: 42}
	for _, src := range []string{"fencing on", "freeze W1 for=25s on=acquired", "link W1->coord delay=250ms loss=0.125",
		"clock W1 skew=-1.5s rate=1.05", "partition L1 coord", "advance 90s", "advance 1.5s", "until 2.125s", "replica 2 up"} {
		c, err := engine.ParseCommand(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		s.cmds = append(s.cmds, c)
	}
	if got, want := s.Query(), referenceQuery(s); got != want {
		t.Errorf("Query %q, want %q", got, want)
	}
	s = &Session{cmds: s.cmds} // no seed; a session's seed never changes
	if got, want := string(s.AppendQuery([]byte("x?"))), "x?"+referenceQuery(s); got != want {
		t.Errorf("AppendQuery %q, want %q", got, want)
	}
}

func FuzzQueryEscape(f *testing.F) {
	f.Add("freeze W1 for=25s")
	f.Add("link a->b ~_.- %+&=/?é\x00\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendQueryEscape(nil, []byte(s))), url.QueryEscape(s); got != want {
			t.Fatalf("%q: %q, want %q", s, got, want)
		}
	})
}

// referencePairQuery is a pair's query as it was written before
// AppendQuery, with url.Values: AppendQuery is held to it.
func referencePairQuery(p *Pair) string {
	pq := url.Values{"vs": {p.src}, "vs-at": {p.fork.At.String()}}.Encode()
	if sq := referenceQuery(p.a); sq != "" {
		return sq + "&" + pq
	}
	return pq
}

func TestPairQueryEscapesAsURL(t *testing.T) {
	for _, c := range []struct {
		lab string
		q   url.Values
	}{
		{"w1-w2", w1w2Fork()},
		{"w1-w2", url.Values{"vs": {"fencing on"}}},
		{"w1-w2", url.Values{"seed": {"7"}, "do": {"until 2s"}, "vs": {"freeze W1 for=25s"}, "vs-at": {"1.25s"}}},
		{"renewal-signals", url.Values{"do": {"until 3s"}, "vs": {"link A coord delay=1s"}, "vs-at": {"2.5s"}}},
	} {
		p, refused, err := OpenPair(courseLab(t, c.lab), c.q)
		if err != nil || refused != nil {
			t.Fatal(c.q, err, refused)
		}
		for range 3 {
			if got, want := p.Query(), referencePairQuery(p); got != want {
				t.Errorf("Query %q, want %q", got, want)
			}
			if got, want := string(p.AppendQuery([]byte("x?"))), "x?"+referencePairQuery(p); got != want {
				t.Errorf("AppendQuery %q, want %q", got, want)
			}
			if err := p.Do("advance 1.5s"); err != nil {
				t.Fatal(err)
			}
		}
	}
}
