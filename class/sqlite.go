package class

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// sqliteBackend keeps the classes in one SQLite file, class.db in the
// data folder (Config.Data): one server, nothing to set up. No other
// process writes it, so this one hears every change it makes and needs
// no notification.
type sqliteBackend struct{ dir string }

// open opens the file with one writing connection and a pool of readers.
// One connection writes: SQLite writes one at a time anyway, and a
// single connection never meets "database is locked" between its own
// transactions. WAL with synchronous=NORMAL keeps a commit cheap and
// what was committed survives a crash of the process; in WAL mode the
// readers do not wait for the writer, so pages that read a class do not
// queue behind a flood of votes.
func (b sqliteBackend) open() (db, rdb *sql.DB, err error) {
	dir := b.dir
	if dir == "" {
		dir = DefaultData
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("class: data folder: %w", err)
	}
	dsn := "file:" + filepath.Join(dir, "class.db") +
		"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(5000)"
	if db, err = sql.Open("sqlite", dsn); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	db.SetMaxOpenConns(1)
	if rdb, err = sql.Open("sqlite", dsn+"&_pragma=query_only(1)"); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	rdb.SetMaxOpenConns(4)
	rdb.SetMaxIdleConns(4)
	return db, rdb, nil
}

func (sqliteBackend) sql() *queries { return &sqliteSQL }

// lockMigrations: one process writes the file.
func (sqliteBackend) lockMigrations(context.Context, *sql.Tx) error { return nil }

// notify: there is no other replica to tell.
func (sqliteBackend) notify(context.Context, *sql.Tx, []string) error { return nil }

// watch: every change is this process's own, and it hears them all.
func (sqliteBackend) watch(s *Service) { s.hub.forget(true) }

// brokeReference: SQLite's "FOREIGN KEY constraint failed".
func (sqliteBackend) brokeReference(err error) bool {
	return err != nil && strings.Contains(err.Error(), "FOREIGN KEY constraint failed")
}

// sqliteSQL are the statements in SQLite's dialect: ? placeholders.
var sqliteSQL = queries{
	setTimer: "UPDATE rounds SET closes = ? WHERE class_id = ? AND id = ? AND state = ?",
	timedRounds: `SELECT r.class_id, r.id, r.closes FROM rounds r JOIN classes c ON c.id = r.class_id
		WHERE r.state = ? AND r.closes IS NOT NULL AND c.ended IS NULL`,
	closeDue:      "UPDATE rounds SET state = ? WHERE class_id = ? AND id = ? AND state = ? AND closes IS NOT NULL AND closes <= ?",
	countTyped:    "SELECT COUNT(*) FROM typed WHERE class_id = ?",
	insertTyped:   "INSERT INTO typed (class_id, id, text, choices, right_choice, created) VALUES (?, ?, ?, ?, ?, ?)",
	setQuestion:   "UPDATE classes SET question = ? WHERE id = ?",
	typedQuestion: "SELECT text, choices, right_choice FROM typed WHERE class_id = ? AND id = ?",
	votedRoundState: `SELECT r.state FROM votes v JOIN rounds r ON r.class_id = v.class_id AND r.id = v.round_id
		WHERE v.class_id = ? AND v.round_id = ? AND v.student_id = ?`,
	deleteWhy: "DELETE FROM whys WHERE class_id = ? AND round_id = ? AND student_id = ?",
	upsertWhy: `INSERT INTO whys (class_id, round_id, student_id, text, at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (class_id, round_id, student_id) DO UPDATE SET text = excluded.text, at = excluded.at`,
	whys: `SELECT COALESCE(v.choice, ''), w.text, w.at FROM whys w
		LEFT JOIN votes v ON v.class_id = w.class_id AND v.round_id = w.round_id AND v.student_id = w.student_id
		WHERE w.class_id = ? AND w.round_id = ? ORDER BY w.at, w.text LIMIT ?`,
	showWhy: "UPDATE classes SET shown_why = ? WHERE id = ?",
	insertPassed: `INSERT INTO passed (class_id, lab, student_id, at) VALUES (?, ?, ?, ?)
		ON CONFLICT (class_id, lab, student_id) DO NOTHING`,
	classByProjector:  "SELECT " + classColumns + " FROM classes WHERE projector_hash = ?",
	keepProjector:     "UPDATE classes SET projector_hash = ? WHERE id = ? AND projector_hash = '' AND token_hash = ?",
	insertLecturer:    "INSERT INTO lecturers (id, pub, created) VALUES (?, ?, ?)",
	lecturerPub:       "SELECT pub FROM lecturers WHERE id = ?",
	classesOfLecturer: "SELECT " + baseClassColumns + ", token_sealed FROM classes WHERE lecturer = ? ORDER BY created DESC, id LIMIT 500",
	classLecturer:     "SELECT lecturer FROM classes WHERE id = ?",
	rotateTokens:      "UPDATE classes SET token_hash = ?, projector_hash = ?, token_sealed = ? WHERE id = ?",
	classCodeEnded:    "SELECT code, ended FROM classes WHERE id = ?",
	runningWithCode:   "SELECT COUNT(*) FROM classes WHERE code = ? AND ended IS NULL",
	reopenClass:       "UPDATE classes SET ended = NULL WHERE id = ?",
	deleteStudent:     "DELETE FROM students WHERE class_id = ? AND id = ?",
	deleteRoster:      "DELETE FROM roster WHERE class_id = ?",
	classList: `SELECT r.nim, r.name, r.line, EXISTS (SELECT 1 FROM students s WHERE s.class_id = r.class_id AND s.nim = r.nim)
		FROM roster r WHERE r.class_id = ? ORDER BY r.line`,
	gradeStudents: "SELECT id, nick, nim, joined FROM students WHERE class_id = ? ORDER BY joined, id",
	gradeAnswers:  "SELECT round_id, student_id, choice, at, sure FROM votes WHERE class_id = ?",
	gradeReached:  "SELECT student_id, lab, goal, at FROM reached WHERE class_id = ?",
	gradePassed:   "SELECT student_id, lab, at FROM passed WHERE class_id = ?",
	gradeLabs:     "SELECT DISTINCT lab FROM steps WHERE class_id = ?",
	insertClass: `INSERT INTO classes (id, code, token_hash, name, lang, created, projector_hash, lecturer, token_sealed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
	classByCode:   "SELECT " + classColumns + " FROM classes WHERE code = ? ORDER BY ended IS NULL DESC, created DESC LIMIT 1",
	classByToken:  "SELECT " + classColumns + " FROM classes WHERE token_hash = ?",
	classByID:     "SELECT " + classColumns + " FROM classes WHERE id = ?",
	classEnded:    "SELECT ended FROM classes WHERE id = ?",
	studentToJoin: "SELECT nick, restore_key, nim FROM students WHERE class_id = ? AND id = ?",
	countStudents: "SELECT COUNT(*) FROM students WHERE class_id = ?",
	insertStudent: `INSERT INTO students (class_id, id, nick, restore_key, joined, nim)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
	studentByKey:    "SELECT id, nick FROM students WHERE class_id = ? AND restore_key = ?",
	student:         "SELECT nick, restore_key FROM students WHERE class_id = ? AND id = ?",
	setActivity:     "UPDATE classes SET lesson = ?, lab = ?, question = ?, goal = ? WHERE id = ?",
	countRounds:     "SELECT COUNT(*) FROM rounds WHERE class_id = ? AND lab = ? AND question = ?",
	lastRound:       "SELECT MAX(id) FROM rounds WHERE class_id = ?",
	closeOpenRounds: "UPDATE rounds SET state = ? WHERE class_id = ? AND state = ?",
	insertRound: `INSERT INTO rounds (class_id, id, lab, question, choices, n, state, shown, opened)
		VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)`,
	votesOf: "SELECT round_id, choice FROM votes WHERE class_id = ? AND student_id = ?",
	roundsOf: `SELECT id, lab, question, choices, n, state, shown, opened, closes
		FROM rounds WHERE class_id = ? ORDER BY id`,
	voteCounts: "SELECT round_id, choice, sure, COUNT(*) FROM votes WHERE class_id = ? GROUP BY round_id, choice, sure",
	isMember:   "SELECT 1 FROM students WHERE class_id = ? AND id = ?",
	insertReached: `INSERT INTO reached (class_id, lab, goal, student_id, at)
		SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM students st JOIN classes c ON c.id = st.class_id
		WHERE st.class_id = ? AND st.id = ? AND c.ended IS NULL)
		ON CONFLICT (class_id, lab, goal, student_id) DO NOTHING`,
	countReached: "SELECT COUNT(*) FROM reached WHERE class_id = ? AND lab = ? AND goal = ?",
	lastStepsNotReached: `SELECT command, COUNT(*) FROM steps s
		WHERE class_id = ? AND lab = ? AND NOT EXISTS (SELECT 1 FROM reached r
		WHERE r.class_id = s.class_id AND r.lab = s.lab AND r.student_id = s.student_id AND r.goal = ?)
		GROUP BY command ORDER BY COUNT(*) DESC, command`,
	rosterSteps: `SELECT s.id, s.nick, COALESCE(st.command, '') FROM students s
		LEFT JOIN steps st ON st.class_id = s.class_id AND st.student_id = s.id AND st.lab = ?
		WHERE s.class_id = ? ORDER BY s.joined, s.id LIMIT ?`,
	rosterReached:  "SELECT student_id, goal FROM reached WHERE class_id = ? AND lab = ? ORDER BY at, goal",
	setPushed:      "UPDATE classes SET pushed = ? WHERE id = ?",
	endClass:       "UPDATE classes SET ended = ? WHERE id = ? AND ended IS NULL",
	purgeClasses:   "DELETE FROM classes WHERE ended IS NOT NULL AND ended < ?",
	purgeLecturers: "DELETE FROM lecturers WHERE created < ? AND NOT EXISTS (SELECT 1 FROM classes WHERE lecturer = lecturers.id)",
	setSettings: `UPDATE classes SET nim_mode = ?, zone = ?, hide_names = ?, confidence = ?, ask_why = ?
		WHERE id = ?`,
	nimTaken: "SELECT id FROM students WHERE class_id = ? AND nim = ? AND id <> ?",
	setNIM:   "UPDATE students SET nim = ? WHERE class_id = ? AND id = ?",
	setNick:  "UPDATE students SET nick = ? WHERE class_id = ? AND id = ?",
	upsertStep: `INSERT INTO steps (class_id, lab, student_id, command, at)
		SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM students st JOIN classes c ON c.id = st.class_id
		WHERE st.class_id = ? AND st.id = ? AND c.ended IS NULL)
		ON CONFLICT (class_id, lab, student_id) DO UPDATE SET command = excluded.command, at = excluded.at`,
	insertSchemaVersion: "INSERT INTO schema_version (version) VALUES (?)",
	closeRound:          "UPDATE rounds SET state = CASE WHEN state = ? THEN ? ELSE state END WHERE class_id = ? AND id = ?",
	showCounts:          "UPDATE rounds SET shown = ? WHERE class_id = ? AND id = ?",
	reveal:              "UPDATE rounds SET state = ?, shown = 1 WHERE class_id = ? AND id = ?",
	roundOfVote: `SELECT c.ended, COALESCE(r.state, ''), COALESCE(r.choices, ''), r.closes
		FROM classes c LEFT JOIN rounds r ON r.class_id = c.id AND r.id = ? WHERE c.id = ?`,
	upsertProgram: `INSERT INTO programs (class_id, lab, student_id, text, verdict, schedule, line, moment, submits, at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?) ON CONFLICT (class_id, lab, student_id) DO UPDATE SET
		submits = programs.submits + CASE WHEN programs.text = excluded.text THEN 0 ELSE 1 END, text = excluded.text,
		verdict = excluded.verdict, schedule = excluded.schedule, line = excluded.line, moment = excluded.moment, at = excluded.at`,
	programVerdicts: "SELECT verdict, COUNT(*) FROM programs WHERE class_id = ? AND lab = ? GROUP BY verdict",
	programSchedules: `SELECT schedule, COUNT(*) FROM programs WHERE class_id = ? AND lab = ? AND verdict = ?
		GROUP BY schedule ORDER BY COUNT(*) DESC, schedule LIMIT ?`,
	failingPrograms: `SELECT student_id FROM (SELECT student_id, schedule, at, COUNT(*) OVER (PARTITION BY schedule) AS n
		FROM programs WHERE class_id = ? AND lab = ? AND verdict = ?) f ORDER BY n DESC, schedule, at, student_id`,
	programOf:           "SELECT text, verdict, schedule, line, moment FROM programs WHERE class_id = ? AND lab = ? AND student_id = ?",
	shownPick:           "SELECT lab, pick FROM shown_programs WHERE class_id = ?",
	deleteShown:         "DELETE FROM shown_programs WHERE class_id = ?",
	insertShown:         "INSERT INTO shown_programs (class_id, lab, text, verdict, schedule, line, moment, pick, of_n) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
	shownProgram:        "SELECT lab, text, verdict, schedule, line, moment, pick, of_n FROM shown_programs WHERE class_id = ?",
	gradePrograms:       "SELECT student_id, lab, text, verdict, schedule, line, moment, submits, at FROM programs WHERE class_id = ?",
	createSchemaVersion: "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
	schemaVersions:      "SELECT version FROM schema_version",
	joinedOf: func(n int) string {
		return "SELECT id FROM students WHERE class_id = ? AND id IN (?" + strings.Repeat(", ?", n-1) + ")"
	},
	insertVotes: func(n int) string {
		return "INSERT INTO votes (class_id, round_id, student_id, choice, at, sure) VALUES (?, ?, ?, ?, ?, ?)" +
			strings.Repeat(", (?, ?, ?, ?, ?, ?)", n-1) +
			" ON CONFLICT (class_id, round_id, student_id) DO UPDATE SET choice = excluded.choice, at = excluded.at, sure = excluded.sure"
	},
	insertRoster: func(n int) string {
		return "INSERT INTO roster (class_id, nim, name, line) VALUES (?, ?, ?, ?)" + strings.Repeat(", (?, ?, ?, ?)", n-1)
	},
}
