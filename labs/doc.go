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
//
// # Reading content
//
// Load reads any fs.FS laid out as docs/authoring.md describes: the
// embedded course (package content) or a folder, os.DirFS(dir). Files
// are read as UTF-8 with a leading byte order mark dropped. The error, when
// there is one, is a Problems list, each file:line:col; warnings alone are
// no error and are in Course.Problems. LoadWith takes Options: Link maps
// lab: and lesson: links to URLs (a server under a base path prefixes
// DefaultLink's), and Root is the folder as the author named it, so that
// a command a message suggests ("leaselab run DIR/labs/ID/lab.yaml
// --question Q") can be typed as shown. LoadLabFile reads one lab.yaml on
// its own, for a headless run, without its words or its questions run.
//
// Lab.Lesson is the lesson of course.yaml that lists the lab. The keys a
// lab file may have are the keys of content/lab.schema.json; a test holds
// the two together.
//
// # Seeds
//
// A question's run uses its variant's seed (the scenario's seed:, 0 by
// default), so CheckQuestion has one answer; goals are checked on a world
// from NewWorld(0); a live session passes its own seed (web uses 1).
package labs
