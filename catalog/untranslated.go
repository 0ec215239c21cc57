package catalog

import "regexp"

// untranslated are words that give away English left in a language's
// text: the words the course's events, signals log and answers used
// before they spoke Indonesian, and log keys written the English way
// ("lease="). Words the course keeps as its own terms (lease, token,
// worker, fencing, split brain) are not among them; the glossary
// (content/lessons/glosarium) lists those.
var untranslated = map[string]*regexp.Regexp{
	"id": regexp.MustCompile(`(?i)\b(never|renew|renews|renewed|renewal|lost|error|errors|deadline|report|request|requests|timeout|timed out|transient|definitive|thumb|orders|state|the|and|with|until|stale|expired|write|writes|frozen)\b|\b(lease|gen|prev|left|class|why|current)=`),
}

// Untranslated lists the words of text that lang's text should not
// contain (untranslated): what tests of every page, frame and trace in
// lang look for. A language with no list finds none.
func Untranslated(lang, text string) []string {
	re := untranslated[lang]
	if re == nil {
		return nil
	}
	return re.FindAllString(text, -1)
}
