package labsession

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"leaselab/catalog"
	"leaselab/labs"
)

// englishWords are words of the engine's, the lab's and the session's
// English messages that an Indonesian sentence never needs. Quoted parts
// (what the student wrote, a command's form) are taken out first.
var englishWords = regexp.MustCompile(`(?i)\b(the|is|not|no|called|must|expected|unknown|command|commands|duration|frozen|running|offer|does|positive|between|already|holds|most|session|want|option|number|cannot|there|are|replicas|stops|time|link|longer|characters|nothing|happen|first|crash it)\b`)

var quoted = regexp.MustCompile(`"[^"]*"|«[^»]*»`)

// Every kind of bad command a student can send, through the session,
// reads in Indonesian with no English words and no hole in its text.
func TestBadCommandsSpeakIndonesian(t *testing.T) {
	w1w2 := courseLab(t, "w1-w2")
	chubby := courseLab(t, "chubby-sequencer")
	for _, tc := range []struct {
		name string
		do   func() error
	}{
		{"unknown verb", do(t, w1w2, "fly W1")},
		{"empty", do(t, w1w2, "   ")},
		{"missing argument", do(t, w1w2, "advance")},
		{"bad duration", do(t, w1w2, "advance 30")},
		{"bad freeze duration", do(t, w1w2, "freeze W1 for=soon")},
		{"zero duration", do(t, w1w2, "advance 0s")},
		{"unknown option", do(t, w1w2, "freeze W1 at=3s")},
		{"bad moment", do(t, w1w2, "freeze W1 on=write")},
		{"fencing word", do(t, w1w2, "fencing maybe")},
		{"storage mode", do(t, w1w2, "storage paper")},
		{"unknown worker", do(t, w1w2, "freeze W9")},
		{"unknown node", do(t, w1w2, "partition nobody")},
		{"not frozen", do(t, w1w2, "thaw W1")},
		{"running", do(t, w1w2, "restart W2")},
		{"in the past", do(t, w1w2, "advance 5s", "until 1s")},
		{"negative time", do(t, w1w2, "until -1s")},
		{"link out of range", do(t, w1w2, "link W1 coord delay=2h")},
		{"link loss", do(t, w1w2, "link W1 coord loss=3")},
		{"clock out of range", do(t, w1w2, "clock W1 skew=2h")},
		{"clock rate", do(t, w1w2, "clock W1 rate=fast")},
		{"replica number", do(t, chubby, "replica one down")},
		{"replica word", do(t, chubby, "replica 1 sideways")},
		{"replica out of range", do(t, chubby, "replica 9 down")},
		{"replica already up", do(t, chubby, "replica 1 up")},
		{"not offered", do(t, w1w2, "replica 1 down")},
		{"not offered lease", do(t, w1w2, "lease 5s")},
		{"over the time cap", do(t, w1w2, "until 11m")},
		{"too long", do(t, w1w2, "advance "+strings.Repeat("9", MaxCommandLen))},
		{"refused in a link", func() error {
			_, refused, _ := FromQuery(w1w2, url.Values{"do": {"thaw W1"}})
			return refused
		}},
		{"too many in a link", func() error {
			_, refused, _ := FromQuery(w1w2, url.Values{"do": slicesOf("advance 1ms", MaxCommands+maxHead+1)})
			return refused
		}},
		{"bad seed", func() error {
			_, _, err := FromQuery(w1w2, url.Values{"seed": {"soon"}})
			return err
		}},
		{"what-if of time", func() error {
			_, _, err := OpenPair(w1w2, url.Values{"vs": {"advance 1s"}})
			return err
		}},
	} {
		err := tc.do()
		if err == nil {
			t.Errorf("%s: not refused", tc.name)
			continue
		}
		id, en := catalog.Error("id", err), catalog.Error("en", err)
		if id == catalog.T("id", "err.generic") {
			t.Errorf("%s: %v is not Readable, or has no text", tc.name, err)
		}
		if w := englishWords.FindString(quoted.ReplaceAllString(id, "")); w != "" {
			t.Errorf("%s: %q has the English %q", tc.name, id, w)
		}
		if strings.Contains(id+en, "%!") || strings.Contains(id+en, catalog.Missing) {
			t.Errorf("%s: a text and its arguments disagree: %q / %q", tc.name, id, en)
		}
		if id == en {
			t.Errorf("%s: Indonesian and English say the same: %q", tc.name, id)
		}
	}
}

// do is a step of the table above: the session's refusal of the last of
// cmds, the ones before applied.
func do(t *testing.T, lab *labs.Lab, cmds ...string) func() error {
	return func() error {
		s, err := New(lab, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cmds[:len(cmds)-1] {
			mustDo(t, s, c)
		}
		return s.Do(cmds[len(cmds)-1])
	}
}

func slicesOf(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
