package web

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"leaselab/class"
	"leaselab/draw"
	"leaselab/labs"
)

// voteKey is the bar's words for an open vote: the first, or the second
// after discussion.
func voteKey(n int) string {
	if n >= 2 {
		return "bar.vote2"
	}
	return "bar.vote"
}

// roundTitle names a round on the dashboard.
func roundTitle(n int) string {
	if n >= 2 {
		return "teach.second"
	}
	return "teach.first"
}

// questionLabel is "Question 2" for a lab's question, as the lab page
// numbers it.
func questionLabel(p *page, lab *labs.Lab, qid string) string {
	if n := questionNumber(lab, qid); n > 0 {
		return fmt.Sprintf(p.T("lab.question"), n)
	}
	return p.T("teach.question")
}

// percent is n of all, in whole percent; 0 of none.
func percent(n, all int) int {
	if all <= 0 {
		return 0
	}
	return (n*100 + all/2) / all
}

func projectorQuery(on bool) string {
	if on {
		return "?view=projector"
	}
	return ""
}

var tags = regexp.MustCompile(`<[^>]*>`)

// plainText is rendered prose as one short line of text: for an option
// of a select, which holds no markup.
func plainText(h string, n int) string {
	s := strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(h, ""))), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// revealedRight is the right choice once the engine's answer is shown.
func revealedRight(v *teachView) string {
	if v.Reveal == nil {
		return ""
	}
	return v.Reveal.Verdict.Right
}

// shareText says how much of the class was right, before and after the
// discussion.
func shareText(v *teachView) string {
	right := revealedRight(v)
	share := func(t class.Tally) string { return fmt.Sprintf("%d%%", percent(t.Counts[right], t.Voters)) }
	var first, second *class.Tally
	for i := range v.Rounds {
		if v.Rounds[i].Round.N >= 2 {
			second = &v.Rounds[i]
		} else {
			first = &v.Rounds[i]
		}
	}
	switch {
	case first != nil && second != nil:
		return fmt.Sprintf(v.T("teach.share"), share(*first), share(*second))
	case first != nil:
		return fmt.Sprintf(v.T("teach.share1"), share(*first))
	case second != nil:
		return fmt.Sprintf(v.T("teach.share1"), share(*second))
	}
	return ""
}

// goalText is a goal's prompt as one line.
func goalText(v *teachView, id string) string {
	if v.Lab == nil || v.Lab.Goal(id) == nil {
		return id
	}
	return plainText(string(v.Lab.Goal(id).Prompt(v.Lang)), 140)
}

// rosterName is how the dashboard names a student: the nickname, or the
// start of the anonymous id (the export has it whole). The whole id is
// not shown: with the join code it is what the student's browser holds.
func rosterName(v *teachView, r class.RosterRow) string {
	if r.Nick != "" && !v.Class.Settings.HideNames {
		return r.Nick
	}
	return fmt.Sprintf(v.T("teach.roster.anon"), r.ID[:min(6, len(r.ID))])
}

// reachedText is how many of the lab's goals a student reached, and
// which, by their numbers: "2/3: 1, 3".
func reachedText(v *teachView, r class.RosterRow) string {
	var nums []string
	for i, g := range v.Lab.Goals {
		if slices.Contains(r.Reached, g.ID) {
			nums = append(nums, strconv.Itoa(i+1))
		}
	}
	t := fmt.Sprintf("%d/%d", len(nums), len(v.Lab.Goals))
	if len(nums) > 0 {
		t += ": " + strings.Join(nums, ", ")
	}
	return t
}

// lastStepText is a student's last command in words, "–" if none.
func lastStepText(v *teachView, r class.RosterRow) string {
	if r.LastStep == "" {
		return "–"
	}
	return draw.CommandText(v.Lang, r.LastStep)
}
