package labs

// Grading answers what a class's gradebook asks of a course (issue 44,
// class.Course) from the engine: the right choice of a question is the
// one that holds in the engine's run of it, never a stored key.
type Grading struct{ Course *Course }

// Right is the choice the engine decides right for a lab's question; ok
// is false when the course has no such question or the engine cannot
// decide it.
func (g Grading) Right(lab, question string) (string, bool) {
	l := g.Course.Lab(lab)
	if l == nil {
		return "", false
	}
	q := l.Question(question)
	if q == nil || len(q.Choices) == 0 {
		return "", false
	}
	v, err := l.CheckQuestion(question, q.Choices[0].ID, DefaultLang)
	if err != nil {
		return "", false
	}
	return v.Right, true
}

// Goals are a lab's goals in order; none for a lab the course lacks.
func (g Grading) Goals(lab string) []string {
	l := g.Course.Lab(lab)
	if l == nil {
		return nil
	}
	out := make([]string, len(l.Goals))
	for i, goal := range l.Goals {
		out[i] = goal.ID
	}
	return out
}

// Program says whether a lab is one where the student writes the worker.
func (g Grading) Program(lab string) bool {
	l := g.Course.Lab(lab)
	return l != nil && l.Program() != nil
}
