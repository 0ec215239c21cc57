package class

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Export formats.
const (
	CSV  = "csv"
	JSON = "json"
)

// exportAnswer is one student's answer in one round.
type exportAnswer struct {
	Lab      string    `json:"lab"`
	Question string    `json:"question"`
	Round    int       `json:"round"` // 1 or 2
	Choice   string    `json:"choice"`
	At       time.Time `json:"at"`
}

type exportGoal struct {
	Lab  string    `json:"lab"`
	Goal string    `json:"goal"`
	At   time.Time `json:"at"`
}

type exportStudent struct {
	ID      string         `json:"id"`
	Nick    string         `json:"nick,omitempty"`
	Joined  time.Time      `json:"joined"`
	Answers []exportAnswer `json:"answers"`
	Goals   []exportGoal   `json:"goals"`
}

type exportClass struct {
	Name     string          `json:"name"`
	Code     string          `json:"code"`
	Lang     string          `json:"lang"`
	Created  time.Time       `json:"created"`
	Ended    *time.Time      `json:"ended,omitempty"`
	Rounds   []Tally         `json:"rounds"`
	Students []exportStudent `json:"students"`
}

// Export writes a class for a spreadsheet (CSV: a row per student, a pair
// of columns per question and round, a column per goal) or as JSON. A CSV
// cell that a spreadsheet would read as a formula gets a leading quote.
func (s *Service) Export(ctx context.Context, classID string, w io.Writer, format string) error {
	if format != CSV && format != JSON {
		return fmt.Errorf("%w: export format %q", ErrBadInput, format)
	}
	c, err := s.ByID(ctx, classID)
	if err != nil {
		return err
	}
	rounds, err := s.Rounds(ctx, classID)
	if err != nil {
		return err
	}
	x := exportClass{Name: c.Name, Code: c.Code, Lang: c.Lang, Created: c.Created, Ended: c.Ended, Rounds: rounds}
	at, err := s.exportStudents(ctx, classID, &x)
	if err != nil {
		return err
	}
	if err := s.exportVotes(ctx, classID, &x, at); err != nil {
		return err
	}
	if err := s.exportGoals(ctx, classID, &x, at); err != nil {
		return err
	}
	if format == JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(x)
	}
	return writeCSV(w, x)
}

// exportStudents adds the class's students to x, in the order they
// joined; at is each one's place in x.Students, by id.
func (s *Service) exportStudents(ctx context.Context, classID string, x *exportClass) (map[string]int, error) {
	at := map[string]int{}
	rows, err := s.rdb.QueryContext(ctx, s.q("SELECT id, nick, joined FROM students WHERE class_id = ? ORDER BY joined, id"), classID)
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		var st exportStudent
		var joined int64
		if err := rows.Scan(&st.ID, &st.Nick, &joined); err != nil {
			return nil, s.fail(err)
		}
		st.Joined = time.UnixMilli(joined).UTC()
		st.Answers, st.Goals = []exportAnswer{}, []exportGoal{}
		at[st.ID] = len(x.Students)
		x.Students = append(x.Students, st)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(err)
	}
	return at, nil
}

// exportVotes adds each student's votes, with their round's question.
func (s *Service) exportVotes(ctx context.Context, classID string, x *exportClass, at map[string]int) error {
	byRound := map[int64]Round{}
	for _, t := range x.Rounds {
		byRound[t.Round.ID] = t.Round
	}
	rows, err := s.rdb.QueryContext(ctx, s.q("SELECT round_id, student_id, choice, at FROM votes WHERE class_id = ? ORDER BY round_id, student_id"), classID)
	if err != nil {
		return s.fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, ms int64
		var sid, ch string
		if err := rows.Scan(&id, &sid, &ch, &ms); err != nil {
			return s.fail(err)
		}
		r := byRound[id]
		if i, ok := at[sid]; ok {
			x.Students[i].Answers = append(x.Students[i].Answers, exportAnswer{Lab: r.Lab, Question: r.Question, Round: r.N, Choice: ch, At: time.UnixMilli(ms).UTC()})
		}
	}
	if err := rows.Err(); err != nil {
		return s.fail(err)
	}
	return nil
}

// exportGoals adds the goals each student reached.
func (s *Service) exportGoals(ctx context.Context, classID string, x *exportClass, at map[string]int) error {
	rows, err := s.rdb.QueryContext(ctx, s.q("SELECT student_id, lab, goal, at FROM reached WHERE class_id = ? ORDER BY lab, goal, student_id"), classID)
	if err != nil {
		return s.fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		var sid string
		var g exportGoal
		var ms int64
		if err := rows.Scan(&sid, &g.Lab, &g.Goal, &ms); err != nil {
			return s.fail(err)
		}
		g.At = time.UnixMilli(ms).UTC()
		if i, ok := at[sid]; ok {
			x.Students[i].Goals = append(x.Students[i].Goals, g)
		}
	}
	if err := rows.Err(); err != nil {
		return s.fail(err)
	}
	return nil
}

// writeCSV lays the export out flat: student, nickname, joined; then for
// each question (in the order first voted) answer 1, time 1, answer 2,
// time 2; then for each goal any student reached, the time reached.
func writeCSV(w io.Writer, x exportClass) error {
	type question struct{ lab, q string }
	var questions []question
	qi := map[question]int{}
	for _, t := range x.Rounds {
		k := question{t.Round.Lab, t.Round.Question}
		if _, ok := qi[k]; !ok {
			qi[k] = len(questions)
			questions = append(questions, k)
		}
	}
	type goal struct{ lab, g string }
	gi := map[goal]int{}
	var goals []goal
	for _, st := range x.Students {
		for _, g := range st.Goals {
			k := goal{g.Lab, g.Goal}
			if _, ok := gi[k]; !ok {
				gi[k] = 0
				goals = append(goals, k)
			}
		}
	}
	sort.Slice(goals, func(i, j int) bool {
		return goals[i].lab < goals[j].lab || goals[i].lab == goals[j].lab && goals[i].g < goals[j].g
	})
	for i, g := range goals {
		gi[g] = i
	}
	head := []string{"student", "nickname", "joined"}
	for _, q := range questions {
		for n := 1; n <= 2; n++ {
			head = append(head, q.lab+" / "+q.q+" / vote "+strconv.Itoa(n), q.lab+" / "+q.q+" / time "+strconv.Itoa(n))
		}
	}
	for _, g := range goals {
		head = append(head, g.lab+" / "+g.g+" / reached")
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(safeCells(head)); err != nil {
		return err
	}
	for _, st := range x.Students {
		row := make([]string, len(head))
		row[0], row[1], row[2] = st.ID, st.Nick, stamp(st.Joined)
		for _, a := range st.Answers {
			col := 3 + 4*qi[question{a.Lab, a.Question}] + 2*(a.Round-1)
			row[col], row[col+1] = a.Choice, stamp(a.At)
		}
		for _, g := range st.Goals {
			row[3+4*len(questions)+gi[goal{g.Lab, g.Goal}]] = stamp(g.At)
		}
		if err := cw.Write(safeCells(row)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

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
