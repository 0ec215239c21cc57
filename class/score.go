package class

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"time"
)

// A score per student (issue 44). What a student scores, each as a
// column and all added up in a total, one point each:
//
//   - a question answered right in its final vote: the last vote on the
//     question that is no longer open (the second, after discussion, once
//     it has closed), right as the engine decides it — never a stored key;
//     a typed question counts only when its instructor marked a choice;
//   - a goal of a lab reached, as the engine checked it in the student's
//     own world;
//   - a program lab passed, as the engine judged the student's program.
//
// docs/teaching.md says the same to the instructor.

// Course is what grading asks of the course the class works in: the
// engine's answer to a question, a lab's goals, whether a lab is one
// where the student writes the worker. The web layer answers from the
// course it serves, running the engine.
type Course interface {
	// Right is the choice the engine decides right for a lab's
	// question; ok is false when the course has no such question.
	Right(lab, question string) (choice string, ok bool)
	// Goals are a lab's goals in order, none for a lab the course lacks.
	Goals(lab string) []string
	// Program says whether a lab is one where the student writes the
	// worker (its pass is scored).
	Program(lab string) bool
}

// Question is one question a class voted on, as graded: its rounds, the
// final one, and its right choice ("" when none decides it).
type Question struct {
	Lab      string // "" for a typed question
	Question string // a lab's question id, or a typed question's
	Typed    *Typed // the typed question, nil for a lab's
	Choices  []string
	Rounds   []Round // oldest first
	Final    int64   // the round graded: the last one not open; 0 none yet
	Right    string  // the right choice; "" ungraded
}

// Graded says whether the question counts in the scores.
func (q Question) Graded() bool { return q.Right != "" && q.Final != 0 }

// Letter is a choice as the students saw it: A, B, C…; "" for none.
func Letter(choices []string, id string) string {
	for i, c := range choices {
		if c == id && i < 26 {
			return string(rune('A' + i))
		}
	}
	return ""
}

// GoalKey is one goal of one lab.
type GoalKey struct{ Lab, Goal string }

// Answer is a student's vote in one round.
type Answer struct {
	Round  int64
	Choice string
	At     time.Time
	Sure   Confidence
}

// StudentGrade is one student's answers, goals, programs and score.
type StudentGrade struct {
	ID, Nick, NIM string
	Joined        time.Time
	Answers       map[int64]Answer // by round id
	Goals         map[GoalKey]time.Time
	Programs      map[string]time.Time  // program labs passed, by lab
	Last          map[string]Submission // the last program submitted, by lab (issue 49)
	// The score: questions right in their final vote, goals reached,
	// program labs passed, and their sum.
	QuestionsRight, GoalsReached, ProgramsPassed, Total int
}

// Grades are a class's gradebook: what it voted on, the goals and
// program labs of the labs it worked in, and each student's score.
type Grades struct {
	Class     Class
	Questions []Question // in the order first voted on
	Goals     []GoalKey  // every goal of every lab the class worked in, then any other reached
	Programs  []string   // the program labs the class worked in
	Students  []StudentGrade
	// scored are the goals that score: those the course still has (a
	// goal reached in a lab since taken out of the course is listed, and
	// scores nothing).
	scored map[GoalKey]bool
	// Confidence: some vote was sent with how sure its student was.
	Confidence bool
}

// Grades reads a class's gradebook, deciding each right answer with
// course (the engine).
func (s *Service) Grades(ctx context.Context, classID string, course Course) (*Grades, error) {
	if err := s.flushSteps(ctx, classID); err != nil {
		return nil, err
	}
	c, err := s.ByID(ctx, classID)
	if err != nil {
		return nil, err
	}
	tallies, err := s.Rounds(ctx, classID)
	if err != nil {
		return nil, err
	}
	g := &Grades{Class: c}
	labs := map[string]bool{}
	if c.Now.Lab != "" {
		labs[c.Now.Lab] = true
	}
	if err := g.questions(ctx, s, tallies, course, labs); err != nil {
		return nil, err
	}
	at, err := s.gradeStudents(ctx, g)
	if err != nil {
		return nil, err
	}
	if err := s.gradeAnswers(ctx, g, at); err != nil {
		return nil, err
	}
	if err := s.gradeWork(ctx, g, at, labs); err != nil {
		return nil, err
	}
	if err := s.gradePrograms(ctx, g, at, labs); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(labs))
	for l := range labs {
		names = append(names, l)
	}
	sort.Strings(names)
	g.scored = map[GoalKey]bool{}
	for _, l := range names {
		for _, goal := range course.Goals(l) {
			g.Goals = append(g.Goals, GoalKey{l, goal})
			g.scored[GoalKey{l, goal}] = true
		}
		if course.Program(l) {
			g.Programs = append(g.Programs, l)
		}
	}
	var other []GoalKey
	for _, st := range g.Students {
		for k := range st.Goals {
			if !g.scored[k] && !slices.Contains(other, k) {
				other = append(other, k)
			}
		}
	}
	slices.SortFunc(other, func(a, b GoalKey) int { return cmp.Or(cmp.Compare(a.Lab, b.Lab), cmp.Compare(a.Goal, b.Goal)) })
	g.Goals = append(g.Goals, other...)
	g.score()
	return g, nil
}

// questions groups the rounds by question and decides each one's right
// choice; the labs voted in join labs.
func (g *Grades) questions(ctx context.Context, s *Service, tallies []Tally, course Course, labs map[string]bool) error {
	at := map[[2]string]int{}
	for _, t := range tallies {
		k := [2]string{t.Round.Lab, t.Round.Question}
		i, ok := at[k]
		if !ok {
			i = len(g.Questions)
			at[k] = i
			q := Question{Lab: t.Round.Lab, Question: t.Round.Question, Choices: t.Round.Choices}
			if IsTyped(q.Question) {
				ty, err := s.TypedQuestion(ctx, g.Class.ID, q.Question)
				if err != nil {
					return err
				}
				q.Typed, q.Right = &ty, ty.Right
			} else {
				labs[q.Lab] = true
				if right, ok := course.Right(q.Lab, q.Question); ok {
					q.Right = right
				}
			}
			g.Questions = append(g.Questions, q)
		}
		q := &g.Questions[i]
		q.Rounds = append(q.Rounds, t.Round)
		if t.Round.State != RoundOpen {
			q.Final = t.Round.ID
		}
	}
	return nil
}

// gradeStudents lists the class's students in the order they joined; at
// is each one's place, by id.
func (s *Service) gradeStudents(ctx context.Context, g *Grades) (map[string]int, error) {
	rows, err := s.rdb.QueryContext(ctx, s.sql.gradeStudents, g.Class.ID)
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	at := map[string]int{}
	for rows.Next() {
		st := StudentGrade{Answers: map[int64]Answer{}, Goals: map[GoalKey]time.Time{}, Programs: map[string]time.Time{},
			Last: map[string]Submission{}}
		var joined int64
		if err := rows.Scan(&st.ID, &st.Nick, &st.NIM, &joined); err != nil {
			return nil, s.fail(err)
		}
		st.Joined = time.UnixMilli(joined).UTC()
		at[st.ID] = len(g.Students)
		g.Students = append(g.Students, st)
	}
	return at, s.fail(rows.Err())
}

// gradeAnswers adds each student's votes.
func (s *Service) gradeAnswers(ctx context.Context, g *Grades, at map[string]int) error {
	rows, err := s.rdb.QueryContext(ctx, s.sql.gradeAnswers, g.Class.ID)
	if err != nil {
		return s.fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		var a Answer
		var sid string
		var ms int64
		var sure *int64
		if err := rows.Scan(&a.Round, &sid, &a.Choice, &ms, &sure); err != nil {
			return s.fail(err)
		}
		a.At = time.UnixMilli(ms).UTC()
		if sure != nil {
			a.Sure, g.Confidence = Unsure, true
			if *sure != 0 {
				a.Sure = Sure
			}
		}
		if i, ok := at[sid]; ok {
			g.Students[i].Answers[a.Round] = a
		}
	}
	return s.fail(rows.Err())
}

// gradeWork adds the goals each student reached and the program labs
// they passed; the labs worked in (a command, a goal or a program) join
// labs.
func (s *Service) gradeWork(ctx context.Context, g *Grades, at map[string]int, labs map[string]bool) error {
	rows, err := s.rdb.QueryContext(ctx, s.sql.gradeReached, g.Class.ID)
	if err != nil {
		return s.fail(err)
	}
	for rows.Next() {
		var sid string
		var k GoalKey
		var ms int64
		if err := rows.Scan(&sid, &k.Lab, &k.Goal, &ms); err != nil {
			rows.Close()
			return s.fail(err)
		}
		labs[k.Lab] = true
		if i, ok := at[sid]; ok {
			g.Students[i].Goals[k] = time.UnixMilli(ms).UTC()
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return s.fail(err)
	}
	rows, err = s.rdb.QueryContext(ctx, s.sql.gradePassed, g.Class.ID)
	if err != nil {
		return s.fail(err)
	}
	for rows.Next() {
		var sid, lab string
		var ms int64
		if err := rows.Scan(&sid, &lab, &ms); err != nil {
			rows.Close()
			return s.fail(err)
		}
		labs[lab] = true
		if i, ok := at[sid]; ok {
			g.Students[i].Programs[lab] = time.UnixMilli(ms).UTC()
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return s.fail(err)
	}
	rows, err = s.rdb.QueryContext(ctx, s.sql.gradeLabs, g.Class.ID)
	if err != nil {
		return s.fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		var lab string
		if err := rows.Scan(&lab); err != nil {
			return s.fail(err)
		}
		labs[lab] = true
	}
	return s.fail(rows.Err())
}

// score adds up each student's points: only goals and program labs the
// course still has count.
func (g *Grades) score() {
	goals := g.scored
	programs := map[string]bool{}
	for _, l := range g.Programs {
		programs[l] = true
	}
	for i := range g.Students {
		st := &g.Students[i]
		for _, q := range g.Questions {
			if a, ok := st.Answers[q.Final]; ok && q.Graded() && a.Choice == q.Right {
				st.QuestionsRight++
			}
		}
		for k := range st.Goals {
			if goals[k] {
				st.GoalsReached++
			}
		}
		for l := range st.Programs {
			if programs[l] {
				st.ProgramsPassed++
			}
		}
		st.Total = st.QuestionsRight + st.GoalsReached + st.ProgramsPassed
	}
}

// Possible is the most a student could score: the questions graded, the
// goals and the program labs.
func (g *Grades) Possible() (questions, goals, programs int) {
	for _, q := range g.Questions {
		if q.Graded() {
			questions++
		}
	}
	return questions, len(g.scored), len(g.Programs)
}
