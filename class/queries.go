package class

// queries are the text of every statement a Service runs, written for
// its backend: sqliteSQL (sqlite.go) and postgresSQL (postgres.go) say
// the same things, each in its database's own dialect. A Service runs
// its backend's (Service.sql); the arguments of each are in the order
// its comment gives.
type queries struct {
	setTimer            string // a timed round: when it closes (closes, class, round, open)
	timedRounds         string // the open timed rounds of running classes (open)
	closeDue            string // closes a timed round whose time came (closed, class, round, open, now)
	countTyped          string // a class's typed questions (class)
	insertTyped         string // a typed question (class, id, text, choices, right, created)
	setQuestion         string // the question a class works on (question, class)
	typedQuestion       string // a typed question (class, id)
	votedRoundState     string // the state of the round a student's vote is in (class, round, student)
	deleteWhy           string // a "why?" taken back (class, round, student)
	upsertWhy           string // a "why?" kept or replaced (class, round, student, text, at)
	whys                string // a round's "why?"s with their choices (class, round, limit)
	showWhy             string // the "why?" on the projector (why, class)
	insertPassed        string // a program lab passed, the first time (class, lab, student, at)
	classByProjector    string // a class by its projector token's hash
	keepProjector       string // the projector token of a class opened before them (hash, class, token hash)
	insertLecturer      string // a lecturer key (hash, public key, created)
	lecturerPub         string // a lecturer key's public key (hash)
	classesOfLecturer   string // a lecturer key's classes, newest first (hash)
	classLecturer       string // a class's lecturer key hash (class)
	rotateTokens        string // a class's new tokens (token hash, projector hash, sealed, class)
	classCodeEnded      string // a class's code and end (class)
	runningWithCode     string // the running classes of a code (code)
	reopenClass         string // the end of a class undone (class)
	deleteStudent       string // a student taken out of a class (class, student)
	deleteRoster        string // a class's list emptied (class)
	classList           string // a class's list, each row saying whether its NIM joined (class)
	gradeStudents       string // the students of a class in the order they joined (class)
	gradeAnswers        string // a class's votes (class)
	gradeReached        string // a class's goals reached (class)
	gradePassed         string // a class's program labs passed (class)
	gradeLabs           string // the labs a class sent commands in (class)
	insertClass         string // a class, unless its code is taken (id, code, token hash, name, lang, created, projector hash, lecturer, sealed)
	classByCode         string // a code's running class, else its newest (code)
	classByToken        string // a class by its instructor token's hash
	classByID           string // a class by its id
	classEnded          string // when a class ended, NULL while it runs (class)
	studentToJoin       string // a student joining again (class, student)
	countStudents       string // a class's students (class)
	insertStudent       string // a student, unless their key is taken (class, student, nick, key, joined, NIM)
	studentByKey        string // the student of a key (class, key)
	student             string // a student of a class (class, student)
	setActivity         string // what a class works on (lesson, lab, question, goal, class)
	countRounds         string // a question's rounds (class, lab, question)
	lastRound           string // a class's newest round id (class)
	closeOpenRounds     string // a class's open rounds closed (closed, class, open)
	insertRound         string // a round (class, id, lab, question, choices, n, state, opened)
	votesOf             string // a student's votes (class, student)
	roundsOf            string // a class's rounds, oldest first (class)
	voteCounts          string // a class's votes counted per round, choice and confidence (class)
	isMember            string // whether a student joined a class (class, student)
	insertReached       string // a goal reached, the first time, for a student of a running class (class, lab, goal, student, at, class, student)
	countReached        string // the students who reached a goal (class, lab, goal)
	lastStepsNotReached string // the last commands of the students who have not reached a goal, commonest first (class, lab, goal)
	rosterSteps         string // a class's students with their last command in a lab (lab, class, limit)
	rosterReached       string // the goals of a lab each student reached (class, lab)
	setPushed           string // the world a class was pushed (link, class)
	endClass            string // a running class ended (now, class)
	purgeClasses        string // the classes ended before a time deleted (cutoff)
	purgeLecturers      string // the lecturer keys left without a class deleted (cutoff)
	setSettings         string // a class's settings (NIM mode, zone, hide names, confidence, why, class)
	nimTaken            string // another student who gave a NIM (class, NIM, student)
	setNIM              string // a student's NIM (NIM, class, student)
	setNick             string // a student's nickname (nick, class, student)
	upsertStep          string // a student's last command in a lab, for a student of a running class (class, lab, student, command, at, class, student)
	insertSchemaVersion string // a schema step run (version)
	closeRound          string // a round's votes stopped, a revealed round left so (open, closed, class, round)
	showCounts          string // a round's counts shown or hidden (shown, class, round)
	reveal              string // a round closed and revealed (revealed, class, round)
	roundOfVote         string // what a vote needs of its class and round (round, class)

	createSchemaVersion string // the table of the schema steps run
	schemaVersions      string // the schema steps run

	// Statements of n rows or values, n from 1.
	joinedOf     func(n int) string // which of n students joined a class (class, n students)
	insertVotes  func(n int) string // n votes, each replacing the student's earlier one (n × class, round, student, choice, at, sure)
	insertRoster func(n int) string // n rows of a class list (n × class, NIM, name, line)
}
