// Package labs reads the course content — lessons and labs as files —
// checks it, builds a lab's engine world, and judges answers by running
// the engine.
//
// A lab is a language-neutral lab.yaml (scenario, questions, choices with
// outcome predicates, goals) and one Markdown file per language holding
// every word a student reads. docs/authoring.md is the format reference.
//
// No answer is stored: a predict question runs its own variant of the
// scenario, and the choice whose predicate holds on that run's event log
// is the right one. A goal holds when its predicate holds on the log of the
// student's own session.
//
//	course, err := labs.Load(content.FS) // err: a Problems list, file:line:col each
//	lab := course.Lab("w1-w2")
//	v, err := lab.CheckQuestion("storage-checks", "rejected", "en")
//	// v.Correct, v.Right, v.Summary, v.Evidence (events in the student's language)
//
//	w, err := lab.NewWorld(seed) // a live session's world
//	w.Do("fencing on")
//	v, err = lab.CheckGoal("reject-stale", w, "id")
//
// A loaded Course is never changed, so one may serve many goroutines.
package labs
