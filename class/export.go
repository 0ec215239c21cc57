package class

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Export formats.
const (
	CSV    = "csv"
	JSON   = "json"
	Moodle = "moodle" // a CSV in the shape Moodle's gradebook import takes (moodle.go)
)

// exportAnswer is one student's answer in one round.
type exportAnswer struct {
	Lab      string    `json:"lab,omitempty"`
	Question string    `json:"question"`
	Round    int       `json:"round"` // 1 or 2
	Choice   string    `json:"choice"`
	Letter   string    `json:"letter"`          // as the students saw it: A, B, C…
	Right    *bool     `json:"right,omitempty"` // absent: no right answer decides it
	Final    bool      `json:"final"`           // the vote the score counts
	Sure     string    `json:"sure,omitempty"`  // "sure" or "unsure", if asked
	At       time.Time `json:"at"`
}

type exportGoal struct {
	Lab  string    `json:"lab"`
	Goal string    `json:"goal"`
	At   time.Time `json:"at"`
}

type exportProgram struct {
	Lab string    `json:"lab"`
	At  time.Time `json:"at"`
}

// exportSubmission is a student's last program in a program lab and the
// engine's verdict on it (issue 49).
type exportSubmission struct {
	Lab      string    `json:"lab"`
	Program  string    `json:"program"`
	Verdict  string    `json:"verdict"`            // pass, fail, fault, slow or compile
	Schedule string    `json:"schedule,omitempty"` // a failure's deciding schedule, "none" without faults
	Line     int       `json:"line,omitempty"`     // the line that acted
	Moment   int64     `json:"moment_ms,omitempty"`
	Submits  int       `json:"submits"` // different programs submitted in the lab
	At       time.Time `json:"at"`
}

type exportScore struct {
	Questions int `json:"questions_right"`
	Goals     int `json:"goals_reached"`
	Programs  int `json:"programs_passed"`
	Total     int `json:"total"`
}

type exportStudent struct {
	ID       string          `json:"id"`
	Nick     string          `json:"nick,omitempty"`
	NIM      string          `json:"nim,omitempty"`
	Joined   time.Time       `json:"joined"`
	Answers  []exportAnswer  `json:"answers"`
	Goals    []exportGoal    `json:"goals"`
	Programs []exportProgram `json:"programs"`
	// Submitted are the last programs, one per program lab (issue 49).
	Submitted []exportSubmission `json:"submitted"`
	Score     exportScore        `json:"score"`
}

type exportQuestion struct {
	Lab      string   `json:"lab,omitempty"`
	Question string   `json:"question"`
	Text     string   `json:"text,omitempty"` // a typed question's
	Choices  []string `json:"choices"`
	Right    string   `json:"right,omitempty"`
	Letter   string   `json:"right_letter,omitempty"`
}

type exportClass struct {
	Name      string           `json:"name"`
	Code      string           `json:"code"`
	Lang      string           `json:"lang"`
	Zone      string           `json:"zone"`
	Created   time.Time        `json:"created"`
	Ended     *time.Time       `json:"ended,omitempty"`
	Questions []exportQuestion `json:"questions"`
	Rounds    []Tally          `json:"rounds"`
	Possible  exportScore      `json:"possible"`
	Students  []exportStudent  `json:"students"`
}

// Export writes a class for a spreadsheet (CSV: a row per student, the
// columns of each question's votes, the goals, the program labs and the
// score; writeCSV), as JSON, or in the shape of Moodle's gradebook import
// (writeMoodle). Right answers are the engine's, through course. Times
// are in the class's time zone, with their offset. A CSV cell that a
// spreadsheet would read as a formula gets a leading apostrophe.
func (s *Service) Export(ctx context.Context, classID string, w io.Writer, format string, course Course) error {
	if format != CSV && format != JSON && format != Moodle {
		return fmt.Errorf("%w: export format %q", ErrBadInput, format)
	}
	g, err := s.Grades(ctx, classID, course)
	if err != nil {
		return err
	}
	switch format {
	case Moodle:
		list, err := s.ClassList(ctx, classID)
		if err != nil {
			return err
		}
		return writeMoodle(w, g, list)
	case JSON:
		rounds, err := s.Rounds(ctx, classID)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(exportOf(g, rounds))
	}
	return writeCSV(w, g)
}

// exportOf is the JSON export of a gradebook, its times in the class's
// zone.
func exportOf(g *Grades, rounds []Tally) exportClass {
	loc := g.Class.Location()
	in := func(t time.Time) time.Time { return t.In(loc) }
	c := g.Class
	x := exportClass{Name: c.Name, Code: c.Code, Lang: c.Lang, Zone: loc.String(), Created: in(c.Created), Rounds: rounds,
		Questions: []exportQuestion{}, Students: []exportStudent{}}
	if c.Ended != nil {
		t := in(*c.Ended)
		x.Ended = &t
	}
	for i := range x.Rounds {
		x.Rounds[i].Round.Opened = in(x.Rounds[i].Round.Opened)
		if !x.Rounds[i].Round.Closes.IsZero() {
			x.Rounds[i].Round.Closes = in(x.Rounds[i].Round.Closes)
		}
	}
	x.Possible.Questions, x.Possible.Goals, x.Possible.Programs = g.Possible()
	x.Possible.Total = x.Possible.Questions + x.Possible.Goals + x.Possible.Programs
	for _, q := range g.Questions {
		eq := exportQuestion{Lab: q.Lab, Question: q.Question, Choices: q.Choices, Right: q.Right, Letter: Letter(q.Choices, q.Right)}
		if q.Typed != nil {
			eq.Text, eq.Choices = q.Typed.Text, q.Typed.Choices
		}
		x.Questions = append(x.Questions, eq)
	}
	for _, st := range g.Students {
		es := exportStudent{ID: st.ID, Nick: st.Nick, NIM: st.NIM, Joined: in(st.Joined),
			Answers: []exportAnswer{}, Goals: []exportGoal{}, Programs: []exportProgram{}, Submitted: []exportSubmission{},
			Score: exportScore{st.QuestionsRight, st.GoalsReached, st.ProgramsPassed, st.Total}}
		for _, q := range g.Questions {
			for _, r := range q.Rounds {
				a, ok := st.Answers[r.ID]
				if !ok {
					continue
				}
				ea := exportAnswer{Lab: q.Lab, Question: q.Question, Round: r.N, Choice: a.Choice, Letter: Letter(q.Choices, a.Choice),
					Final: r.ID == q.Final, Sure: a.Sure.String(), At: in(a.At)}
				if q.Right != "" {
					right := a.Choice == q.Right
					ea.Right = &right
				}
				es.Answers = append(es.Answers, ea)
			}
		}
		for _, k := range g.Goals {
			if at, ok := st.Goals[k]; ok {
				es.Goals = append(es.Goals, exportGoal{Lab: k.Lab, Goal: k.Goal, At: in(at)})
			}
		}
		for _, l := range g.Programs {
			if at, ok := st.Programs[l]; ok {
				es.Programs = append(es.Programs, exportProgram{Lab: l, At: in(at)})
			}
			if sub, ok := st.Last[l]; ok {
				es.Submitted = append(es.Submitted, exportSubmission{Lab: l, Program: sub.Text, Verdict: sub.Verdict,
					Schedule: scheduleText(sub), Line: sub.Line, Moment: sub.Moment, Submits: sub.Submits, At: in(sub.At)})
			}
		}
		x.Students = append(x.Students, es)
	}
	return x
}

// questionName is how the CSV's head names a question: the lab and the
// question's id, or a typed question's number and the start of its text.
func questionName(q Question) string {
	if q.Typed != nil {
		t := []rune(q.Typed.Text)
		if len(t) > 40 {
			t = append(t[:39], '…')
		}
		return q.Question + " " + string(t)
	}
	return q.Lab + " / " + q.Question
}

// writeCSV lays the gradebook out flat: student, nickname, NIM, joined;
// for each question (in the order first voted) and each of its two
// votes, the letter the student chose, right or wrong (empty when no
// right answer decides it), how sure (when some vote said) and the
// time; a column per goal of the labs worked in and per program lab,
// with when it was reached or passed, and for each program lab the
// verdict on the student's last program, its deciding schedule and the
// program itself; then the score: questions right, goals reached,
// programs passed, total.
func writeCSV(w io.Writer, g *Grades) error {
	loc := g.Class.Location()
	stamp := func(t time.Time) string { return t.In(loc).Format(time.RFC3339) }
	head := []string{"student", "nickname", "NIM", "joined"}
	per := []string{"vote", "right", "time"}
	if g.Confidence {
		per = []string{"vote", "right", "sure", "time"}
	}
	for _, q := range g.Questions {
		for n := 1; n <= 2; n++ {
			for _, p := range per {
				head = append(head, questionName(q)+" / "+p+" "+strconv.Itoa(n))
			}
		}
	}
	for _, k := range g.Goals {
		head = append(head, k.Lab+" / "+k.Goal+" / reached")
	}
	for _, l := range g.Programs {
		head = append(head, l+" / program passed")
	}
	for _, l := range g.Programs {
		head = append(head, l+" / last verdict", l+" / schedule", l+" / last program")
	}
	head = append(head, "questions right", "goals reached", "programs passed", "total")
	cw := csv.NewWriter(w)
	if err := cw.Write(safeCells(head)); err != nil {
		return err
	}
	for _, st := range g.Students {
		row := []string{st.ID, st.Nick, st.NIM, stamp(st.Joined)}
		for _, q := range g.Questions {
			for n := 1; n <= 2; n++ {
				cells := make([]string, len(per))
				for _, r := range q.Rounds {
					a, ok := st.Answers[r.ID]
					if r.N != n || !ok {
						continue
					}
					cells[0] = Letter(q.Choices, a.Choice)
					if q.Right != "" {
						cells[1] = map[bool]string{true: "right", false: "wrong"}[a.Choice == q.Right]
					}
					if g.Confidence {
						cells[2] = a.Sure.String()
					}
					cells[len(cells)-1] = stamp(a.At)
				}
				row = append(row, cells...)
			}
		}
		for _, k := range g.Goals {
			cell := ""
			if at, ok := st.Goals[k]; ok {
				cell = stamp(at)
			}
			row = append(row, cell)
		}
		for _, l := range g.Programs {
			cell := ""
			if at, ok := st.Programs[l]; ok {
				cell = stamp(at)
			}
			row = append(row, cell)
		}
		for _, l := range g.Programs {
			sub := st.Last[l]
			row = append(row, sub.Verdict, scheduleText(sub), sub.Text)
		}
		row = append(row, strconv.Itoa(st.QuestionsRight), strconv.Itoa(st.GoalsReached), strconv.Itoa(st.ProgramsPassed), strconv.Itoa(st.Total))
		if err := cw.Write(safeCells(row)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// safeCells keeps a spreadsheet from reading a cell as a formula: a cell
// starting with = + - @ (or a tab or carriage return, which some read
// past) gets a leading apostrophe.
func safeCells(cells []string) []string {
	for i, c := range cells {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			cells[i] = "'" + c
		}
	}
	return cells
}
