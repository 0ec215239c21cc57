package classroom

import "leaselab/class"

// Voter takes the votes a student's lab page sends over its socket
// (live.Voter): a lecture room's votes come over the connections its
// pages hold, not as a request each, and wait for the store without a
// goroutine each. The class is the one the student was in when the
// socket opened; a class ended since refuses the vote.
type Voter struct {
	r    *Room
	m    Member
	lang string
}

// Voter is the voter of a student's lab socket whose page is in lang.
func (r *Room) Voter(m Member, lang string) *Voter { return &Voter{r: r, m: m, lang: lang} }

// Vote hands the vote to the store's writer; then gets the words that say
// it was kept, or why not, in the page's language.
func (v *Voter) Vote(round int64, choice, sure string, then func(string, error)) {
	v.r.cfg.Classes.CastThen(v.m.ClassID, v.m.StudentID, round, choice, class.ParseConfidence(sure), func(choices []string, err error) {
		if err != nil {
			then("", v.r.cfg.Pages.Refused(v.lang, v.m.Code, err))
			return
		}
		then(v.r.cfg.Pages.Voted(v.lang, choices, choice), nil)
	})
}
