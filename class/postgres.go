package class

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
)

// postgresBackend keeps the classes in PostgreSQL (Config.DatabaseURL),
// which several replicas may share: each tells the others what it changed
// (NOTIFY on notifyChannel, inside the transaction that changed it) and
// hears theirs (LISTEN, watch).
type postgresBackend struct{ url string }

// notifyChannel is the PostgreSQL channel every replica listens on; a
// payload is "origin class what round".
const notifyChannel = "leaselab_class"

// open opens one pool, for writes and reads alike.
func (b postgresBackend) open() (db, rdb *sql.DB, err error) {
	if db, err = sql.Open("pgx", b.url); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	return db, db, nil
}

func (postgresBackend) sql() *queries { return &postgresSQL }

// lockMigrations: two replicas starting together, one migrates, the
// other waits and then finds nothing left to do.
func (postgresBackend) lockMigrations(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(2701)")
	return err
}

// notify asks PostgreSQL to tell the other replicas the payloads when tx
// commits: one statement for all.
func (postgresBackend) notify(ctx context.Context, tx *sql.Tx, payloads []string) error {
	if len(payloads) == 0 {
		return nil
	}
	var q strings.Builder
	args := []any{notifyChannel}
	q.WriteString("SELECT ")
	for i, p := range payloads {
		if i > 0 {
			q.WriteString(", ")
		}
		args = append(args, p)
		q.WriteString("pg_notify($1, $" + strconv.Itoa(len(args)) + ")")
	}
	_, err := tx.ExecContext(ctx, q.String(), args...)
	return err
}

// watch starts listening for the other replicas' changes until the
// service closes; until the listener listens, changes may be missed, and
// the hub keeps no answer.
func (b postgresBackend) watch(s *Service) {
	s.hub.forget(false)
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.listening.Add(1)
	go b.listen(ctx, s)
}

// listen receives the other replicas' changes until ctx ends, connecting
// again after a lost connection.
func (b postgresBackend) listen(ctx context.Context, s *Service) {
	defer s.listening.Done()
	first := true
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, b.url)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+notifyChannel)
		}
		if err == nil {
			s.hub.forget(true)
			if !first {
				s.hub.publishAll(ChangedActivity)
			}
			first = false
			for {
				n, werr := conn.WaitForNotification(ctx)
				if werr != nil {
					err = werr
					break
				}
				s.received(n.Payload)
			}
		}
		s.hub.forget(false) // deaf until listening again: changes may be missed
		if conn != nil {
			conn.Close(context.Background())
		}
		if ctx.Err() != nil {
			return
		}
		s.fail(err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// brokeReference: SQLSTATE 23503, foreign_key_violation.
func (postgresBackend) brokeReference(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23503"
}

// postgresSQL are the statements in PostgreSQL's dialect: $n placeholders.
var postgresSQL = queries{
	setTimer: "UPDATE rounds SET closes = $1 WHERE class_id = $2 AND id = $3 AND state = $4",
	timedRounds: `SELECT r.class_id, r.id, r.closes FROM rounds r JOIN classes c ON c.id = r.class_id
		WHERE r.state = $1 AND r.closes IS NOT NULL AND c.ended IS NULL`,
	closeDue:      "UPDATE rounds SET state = $1 WHERE class_id = $2 AND id = $3 AND state = $4 AND closes IS NOT NULL AND closes <= $5",
	countTyped:    "SELECT COUNT(*) FROM typed WHERE class_id = $1",
	insertTyped:   "INSERT INTO typed (class_id, id, text, choices, right_choice, created) VALUES ($1, $2, $3, $4, $5, $6)",
	setQuestion:   "UPDATE classes SET question = $1 WHERE id = $2",
	typedQuestion: "SELECT text, choices, right_choice FROM typed WHERE class_id = $1 AND id = $2",
	votedRoundState: `SELECT r.state FROM votes v JOIN rounds r ON r.class_id = v.class_id AND r.id = v.round_id
		WHERE v.class_id = $1 AND v.round_id = $2 AND v.student_id = $3`,
	deleteWhy: "DELETE FROM whys WHERE class_id = $1 AND round_id = $2 AND student_id = $3",
	upsertWhy: `INSERT INTO whys (class_id, round_id, student_id, text, at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (class_id, round_id, student_id) DO UPDATE SET text = excluded.text, at = excluded.at`,
	whys: `SELECT COALESCE(v.choice, ''), w.text, w.at FROM whys w
		LEFT JOIN votes v ON v.class_id = w.class_id AND v.round_id = w.round_id AND v.student_id = w.student_id
		WHERE w.class_id = $1 AND w.round_id = $2 ORDER BY w.at, w.text LIMIT $3`,
	showWhy: "UPDATE classes SET shown_why = $1 WHERE id = $2",
	insertPassed: `INSERT INTO passed (class_id, lab, student_id, at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (class_id, lab, student_id) DO NOTHING`,
	classByProjector:  "SELECT " + classColumns + " FROM classes WHERE projector_hash = $1",
	keepProjector:     "UPDATE classes SET projector_hash = $1 WHERE id = $2 AND projector_hash = '' AND token_hash = $3",
	insertLecturer:    "INSERT INTO lecturers (id, pub, created) VALUES ($1, $2, $3)",
	lecturerPub:       "SELECT pub FROM lecturers WHERE id = $1",
	classesOfLecturer: "SELECT " + baseClassColumns + ", token_sealed FROM classes WHERE lecturer = $1 ORDER BY created DESC, id LIMIT 500",
	classLecturer:     "SELECT lecturer FROM classes WHERE id = $1",
	rotateTokens:      "UPDATE classes SET token_hash = $1, projector_hash = $2, token_sealed = $3 WHERE id = $4",
	classCodeEnded:    "SELECT code, ended FROM classes WHERE id = $1",
	runningWithCode:   "SELECT COUNT(*) FROM classes WHERE code = $1 AND ended IS NULL",
	reopenClass:       "UPDATE classes SET ended = NULL WHERE id = $1",
	deleteStudent:     "DELETE FROM students WHERE class_id = $1 AND id = $2",
	deleteRoster:      "DELETE FROM roster WHERE class_id = $1",
	classList: `SELECT r.nim, r.name, r.line, EXISTS (SELECT 1 FROM students s WHERE s.class_id = r.class_id AND s.nim = r.nim)
		FROM roster r WHERE r.class_id = $1 ORDER BY r.line`,
	gradeStudents: "SELECT id, nick, nim, joined FROM students WHERE class_id = $1 ORDER BY joined, id",
	gradeAnswers:  "SELECT round_id, student_id, choice, at, sure FROM votes WHERE class_id = $1",
	gradeReached:  "SELECT student_id, lab, goal, at FROM reached WHERE class_id = $1",
	gradePassed:   "SELECT student_id, lab, at FROM passed WHERE class_id = $1",
	gradeLabs:     "SELECT DISTINCT lab FROM steps WHERE class_id = $1",
	insertClass: `INSERT INTO classes (id, code, token_hash, name, lang, created, projector_hash, lecturer, token_sealed)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
	classByCode:   "SELECT " + classColumns + " FROM classes WHERE code = $1 ORDER BY ended IS NULL DESC, created DESC LIMIT 1",
	classByToken:  "SELECT " + classColumns + " FROM classes WHERE token_hash = $1",
	classByID:     "SELECT " + classColumns + " FROM classes WHERE id = $1",
	classEnded:    "SELECT ended FROM classes WHERE id = $1",
	studentToJoin: "SELECT nick, restore_key, nim FROM students WHERE class_id = $1 AND id = $2",
	countStudents: "SELECT COUNT(*) FROM students WHERE class_id = $1",
	insertStudent: `INSERT INTO students (class_id, id, nick, restore_key, joined, nim)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
	studentByKey:    "SELECT id, nick FROM students WHERE class_id = $1 AND restore_key = $2",
	student:         "SELECT nick, restore_key FROM students WHERE class_id = $1 AND id = $2",
	setActivity:     "UPDATE classes SET lesson = $1, lab = $2, question = $3, goal = $4 WHERE id = $5",
	countRounds:     "SELECT COUNT(*) FROM rounds WHERE class_id = $1 AND lab = $2 AND question = $3",
	lastRound:       "SELECT MAX(id) FROM rounds WHERE class_id = $1",
	closeOpenRounds: "UPDATE rounds SET state = $1 WHERE class_id = $2 AND state = $3",
	insertRound: `INSERT INTO rounds (class_id, id, lab, question, choices, n, state, shown, opened)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8)`,
	votesOf: "SELECT round_id, choice FROM votes WHERE class_id = $1 AND student_id = $2",
	roundsOf: `SELECT id, lab, question, choices, n, state, shown, opened, closes
		FROM rounds WHERE class_id = $1 ORDER BY id`,
	voteCounts: "SELECT round_id, choice, sure, COUNT(*) FROM votes WHERE class_id = $1 GROUP BY round_id, choice, sure",
	isMember:   "SELECT 1 FROM students WHERE class_id = $1 AND id = $2",
	insertReached: `INSERT INTO reached (class_id, lab, goal, student_id, at)
		SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM students st JOIN classes c ON c.id = st.class_id
		WHERE st.class_id = $6 AND st.id = $7 AND c.ended IS NULL)
		ON CONFLICT (class_id, lab, goal, student_id) DO NOTHING`,
	countReached: "SELECT COUNT(*) FROM reached WHERE class_id = $1 AND lab = $2 AND goal = $3",
	lastStepsNotReached: `SELECT command, COUNT(*) FROM steps s
		WHERE class_id = $1 AND lab = $2 AND NOT EXISTS (SELECT 1 FROM reached r
		WHERE r.class_id = s.class_id AND r.lab = s.lab AND r.student_id = s.student_id AND r.goal = $3)
		GROUP BY command ORDER BY COUNT(*) DESC, command`,
	rosterSteps: `SELECT s.id, s.nick, COALESCE(st.command, '') FROM students s
		LEFT JOIN steps st ON st.class_id = s.class_id AND st.student_id = s.id AND st.lab = $1
		WHERE s.class_id = $2 ORDER BY s.joined, s.id LIMIT $3`,
	rosterReached:  "SELECT student_id, goal FROM reached WHERE class_id = $1 AND lab = $2 ORDER BY at, goal",
	setPushed:      "UPDATE classes SET pushed = $1 WHERE id = $2",
	endClass:       "UPDATE classes SET ended = $1 WHERE id = $2 AND ended IS NULL",
	purgeClasses:   "DELETE FROM classes WHERE ended IS NOT NULL AND ended < $1",
	purgeLecturers: "DELETE FROM lecturers WHERE created < $1 AND NOT EXISTS (SELECT 1 FROM classes WHERE lecturer = lecturers.id)",
	setSettings: `UPDATE classes SET nim_mode = $1, zone = $2, hide_names = $3, confidence = $4, ask_why = $5
		WHERE id = $6`,
	nimTaken: "SELECT id FROM students WHERE class_id = $1 AND nim = $2 AND id <> $3",
	setNIM:   "UPDATE students SET nim = $1 WHERE class_id = $2 AND id = $3",
	setNick:  "UPDATE students SET nick = $1 WHERE class_id = $2 AND id = $3",
	upsertStep: `INSERT INTO steps (class_id, lab, student_id, command, at)
		SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM students st JOIN classes c ON c.id = st.class_id
		WHERE st.class_id = $6 AND st.id = $7 AND c.ended IS NULL)
		ON CONFLICT (class_id, lab, student_id) DO UPDATE SET command = excluded.command, at = excluded.at`,
	insertSchemaVersion: "INSERT INTO schema_version (version) VALUES ($1)",
	closeRound:          "UPDATE rounds SET state = CASE WHEN state = $1 THEN $2 ELSE state END WHERE class_id = $3 AND id = $4",
	showCounts:          "UPDATE rounds SET shown = $1 WHERE class_id = $2 AND id = $3",
	reveal:              "UPDATE rounds SET state = $1, shown = 1 WHERE class_id = $2 AND id = $3",
	roundOfVote: `SELECT c.ended, COALESCE(r.state, ''), COALESCE(r.choices, ''), r.closes
		FROM classes c LEFT JOIN rounds r ON r.class_id = c.id AND r.id = $1 WHERE c.id = $2`,
	upsertProgram: `INSERT INTO programs (class_id, lab, student_id, text, verdict, schedule, line, moment, submits, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9) ON CONFLICT (class_id, lab, student_id) DO UPDATE SET
		submits = programs.submits + CASE WHEN programs.text = excluded.text THEN 0 ELSE 1 END, text = excluded.text,
		verdict = excluded.verdict, schedule = excluded.schedule, line = excluded.line, moment = excluded.moment, at = excluded.at`,
	programVerdicts: "SELECT verdict, COUNT(*) FROM programs WHERE class_id = $1 AND lab = $2 GROUP BY verdict",
	programSchedules: `SELECT schedule, COUNT(*) FROM programs WHERE class_id = $1 AND lab = $2 AND verdict = $3
		GROUP BY schedule ORDER BY COUNT(*) DESC, schedule COLLATE "C" LIMIT $4`,
	failingPrograms: `SELECT student_id FROM (SELECT student_id, schedule, at, COUNT(*) OVER (PARTITION BY schedule) AS n
		FROM programs WHERE class_id = $1 AND lab = $2 AND verdict = $3) f ORDER BY n DESC, schedule COLLATE "C", at, student_id COLLATE "C"`,
	programOf:           "SELECT text, verdict, schedule, line, moment FROM programs WHERE class_id = $1 AND lab = $2 AND student_id = $3",
	shownPick:           "SELECT lab, pick FROM shown_programs WHERE class_id = $1",
	deleteShown:         "DELETE FROM shown_programs WHERE class_id = $1",
	insertShown:         "INSERT INTO shown_programs (class_id, lab, text, verdict, schedule, line, moment, pick, of_n) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
	shownProgram:        "SELECT lab, text, verdict, schedule, line, moment, pick, of_n FROM shown_programs WHERE class_id = $1",
	gradePrograms:       "SELECT student_id, lab, text, verdict, schedule, line, moment, submits, at FROM programs WHERE class_id = $1",
	createSchemaVersion: "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
	schemaVersions:      "SELECT version FROM schema_version",
	joinedOf: func(n int) string {
		return "SELECT id FROM students WHERE class_id = $1 AND id IN (" + pgList(2, n, 1) + ")"
	},
	insertVotes: func(n int) string {
		return "INSERT INTO votes (class_id, round_id, student_id, choice, at, sure) VALUES " + pgList(1, n, 6) +
			" ON CONFLICT (class_id, round_id, student_id) DO UPDATE SET choice = excluded.choice, at = excluded.at, sure = excluded.sure"
	},
	insertRoster: func(n int) string {
		return "INSERT INTO roster (class_id, nim, name, line) VALUES " + pgList(1, n, 4)
	},
}

// pgList is n groups of width placeholders numbered from first: "$2, $3"
// for one value each, "($1, $2), ($3, $4)" for rows of two.
func pgList(first, n, width int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		if width > 1 {
			b.WriteByte('(')
		}
		for j := range width {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("$" + strconv.Itoa(first+i*width+j))
		}
		if width > 1 {
			b.WriteByte(')')
		}
	}
	return b.String()
}
