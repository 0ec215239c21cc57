package class

import (
	"encoding/csv"
	"io"
	"strconv"
)

// The export in the shape Moodle's gradebook import takes (Grade
// administration › Import › CSV file), as its importer reads a file:
//
//   - UTF-8 (the importer's default encoding; a BOM it would strip is not
//     written), comma separated, fields quoted with " where needed (it
//     reads with PHP's fgetcsv, enclosure ");
//   - a head row of unique, non-empty column names (trimmed, each a "new
//     grade item" named by it, or mapped onto an existing one), and every
//     row exactly as many fields as the head ("csvweirdcolumns" otherwise);
//   - one identifier column, "ID number", which the lecturer maps from to
//     the user field "ID number" (useridnumber): a row whose identifier is
//     empty or matches no user aborts the whole import, so only students
//     who gave their NIM are written, and when the class has a class list,
//     only those on it;
//   - one column per graded item, each a plain number (whole points, no
//     decimal separator to misread); a new grade item's maximum is 100
//     unless the site raised it, far above what a class scores.
//
// moodle_test.go reads a written file back by these rules.

// moodleHeads are the graded items' column names, by the class's
// language; the class's name goes before each, so that two classes'
// items stay apart in one gradebook.
var moodleHeads = map[string][4]string{
	"id": {"soal benar", "tugas tercapai", "program lulus", "total"},
	"en": {"questions right", "goals reached", "programs passed", "total"},
}

// MoodleID is the head of the identifier column, as Moodle's own grade
// export names the user's ID number.
const MoodleID = "ID number"

// writeMoodle writes the scores of the students with a NIM (on the class
// list, if it has one) in Moodle's import shape.
func writeMoodle(w io.Writer, g *Grades, list []Listed) error {
	names, ok := moodleHeads[g.Class.Lang]
	if !ok {
		names = moodleHeads["en"]
	}
	head := []string{MoodleID}
	for _, n := range names {
		head = append(head, g.Class.Name+": "+n)
	}
	listed := map[string]bool{}
	for _, l := range list {
		listed[l.NIM] = true
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(safeCells(head)); err != nil {
		return err
	}
	for _, st := range g.Students {
		if st.NIM == "" || len(listed) > 0 && !listed[st.NIM] {
			continue
		}
		row := []string{st.NIM}
		for _, n := range []int{st.QuestionsRight, st.GoalsReached, st.ProgramsPassed, st.Total} {
			row = append(row, strconv.Itoa(n))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
