package class

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // registers the pure-Go "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema step; migrations run in order of their
// numbers, together in one transaction, and schema_version keeps a row for
// each one run. Numbers may have gaps: two changes made side by side take
// numbers of their own (002_…, 003_…), and a database that has 003 but
// not 002 gets 002 when a leaselab that has it starts.
type migration struct {
	version int
	sql     string
}

// migrations reads the embedded NNN_name.sql files in order of their
// numbers, each number once.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []migration
	for _, name := range names {
		base := filepath.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || len(num) != 3 || v < 1 || len(out) > 0 && v <= out[len(out)-1].version {
			return nil, fmt.Errorf("class: migration %s is not named NNN_name.sql with a number of its own", base)
		}
		b, err := migrationFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, sql: string(b)})
	}
	return out, nil
}

// Service is the classes of one server process over one database. It is
// safe for concurrent use.
type Service struct {
	db        *sql.DB // transactions and writes
	rdb       *sql.DB // reads: on SQLite a pool of read-only connections beside the one writer
	pg        bool    // PostgreSQL: $n placeholders, NOTIFY, an advisory lock
	url       string
	now       func() time.Time
	retention time.Duration
	origin    string // this process, so its own notifications are not delivered twice

	hub hub

	logMu     sync.Mutex
	logf      func(string, ...any)
	lastLog   time.Time
	unlogged  int
	listening sync.WaitGroup
	stop      context.CancelFunc

	votes       chan *voteReq
	voteTold    voteTelling
	votesMu     sync.RWMutex // Vote sends under R, Close closes votes under W
	votesClosed bool
	voting      sync.WaitGroup

	steps steps

	// stmts are the vote writer's statements by their text, prepared once
	// at start (stmt): a flood of votes writes a transaction every
	// voteGather, and SQLite parsing the same few statements anew in each
	// was a fifth of the server's CPU in the second a lecture room voted.
	// Read-only after Open. txPrepares counts the statements prepared in
	// a transaction instead.
	stmts      map[string]*sql.Stmt
	txPrepares atomic.Int64
	members    memberCache // students known to have joined
	typed      typedCache  // typed questions read (clicker.go)
	// failing: the last write failed for the store's sake (saving.go).
	failing atomic.Bool
}

// stmt is query (in ? form) as a statement of tx: the one prepared at
// start (prepareStmts) if there is one, else prepared in tx alone. (It is
// never prepared on the database inside a transaction: SQLite's writer
// has one connection, which the transaction holds.)
func (s *Service) stmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	if st := s.stmts[query]; st != nil {
		return tx.StmtContext(ctx, st), nil
	}
	s.txPrepares.Add(1)
	return tx.PrepareContext(ctx, s.q(query))
}

// prepareStmts prepares the vote writer's statements once, at start; one
// that fails (a database not up yet) is prepared in each transaction
// instead.
func (s *Service) prepareStmts(ctx context.Context) {
	s.stmts = map[string]*sql.Stmt{}
	for _, q := range voteStmts() {
		if st, err := s.db.PrepareContext(ctx, s.q(q)); err == nil {
			s.stmts[q] = st
		}
	}
}

// chunks splits n into parts whose sizes are powers of two no larger than
// most (a power of two), the largest first: lists of n values in
// statements of a few texts only.
func chunks(n, most int) []int {
	var out []int
	for size := most; n > 0; size /= 2 {
		for n >= size {
			out = append(out, size)
			n -= size
		}
	}
	return out
}

// Open opens the database cfg names, runs the migrations it lacks, and
// refuses (ErrNewerSchema) a database a newer leaselab wrote.
func Open(ctx context.Context, cfg Config) (*Service, error) {
	s := &Service{now: cfg.Now, retention: cfg.Retention, logf: cfg.Logf, url: cfg.DatabaseURL}
	if s.now == nil {
		s.now = time.Now
	}
	if s.retention <= 0 {
		s.retention = DefaultRetention
	}
	if s.logf == nil {
		s.logf = log.Printf
	}
	s.origin = randomHex(8)
	s.hub.subs = map[string]map[*subscriber]struct{}{}

	var err error
	switch {
	case strings.HasPrefix(cfg.DatabaseURL, "postgres://"), strings.HasPrefix(cfg.DatabaseURL, "postgresql://"):
		s.pg = true
		s.db, err = sql.Open("pgx", cfg.DatabaseURL)
		if err == nil {
			s.db.SetMaxOpenConns(16)
			s.db.SetMaxIdleConns(16)
			s.rdb = s.db
		}
	case cfg.DatabaseURL != "":
		return nil, fmt.Errorf("%w: a database URL starts with postgres:// (got %q)", ErrBadInput, redact(cfg.DatabaseURL))
	default:
		dir := cfg.Data
		if dir == "" {
			dir = DefaultData
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("class: data folder: %w", err)
		}
		// One connection: SQLite writes one at a time anyway, and a single
		// connection never meets "database is locked" between its own
		// transactions. WAL with synchronous=NORMAL keeps a commit cheap
		// and what was committed survives a crash of the process.
		dsn := "file:" + filepath.Join(dir, "class.db") +
			"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(5000)"
		s.db, err = sql.Open("sqlite", dsn)
		if err == nil {
			s.db.SetMaxOpenConns(1)
			// In WAL mode readers do not wait for the writer: pages that
			// read a class do not queue behind a flood of votes.
			s.rdb, err = sql.Open("sqlite", dsn+"&_pragma=query_only(1)")
		}
		if err == nil {
			s.rdb.SetMaxOpenConns(4)
			s.rdb.SetMaxIdleConns(4)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if err := s.migrate(ctx); err != nil {
		s.closeDB()
		return nil, err
	}
	s.prepareStmts(ctx)
	s.startVotes()
	s.startSteps()
	s.hub.hears = !s.pg // PostgreSQL: once the listener listens
	if s.pg {
		lctx, cancel := context.WithCancel(context.Background())
		s.stop = cancel
		s.listening.Add(1)
		go s.listen(lctx)
	}
	return s, nil
}

// Close stops listening and closes the database.
func (s *Service) Close() error {
	s.stopVotes()
	s.stopSteps()
	if s.stop != nil {
		s.stop()
		s.listening.Wait()
	}
	s.hub.closeAll()
	return s.closeDB()
}

func (s *Service) closeDB() error {
	err := s.db.Close()
	if s.rdb != nil && s.rdb != s.db {
		err = errors.Join(err, s.rdb.Close())
	}
	return err
}

// migrate brings the schema to the newest embedded version.
func (s *Service) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer tx.Rollback()
	if s.pg {
		// Two replicas starting together: one migrates, the other waits
		// and then finds nothing left to do.
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(2701)"); err != nil {
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
	}
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	have, err := schemaVersions(ctx, tx)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	known := map[int]bool{}
	for _, m := range ms {
		known[m.version] = true
	}
	for _, v := range have {
		if !known[v] {
			return fmt.Errorf("%w: the class database has schema %d, a step this leaselab does not know; run the newer leaselab, or give this one another --data folder or --database", ErrNewerSchema, v)
		}
	}
	for _, m := range ms {
		if slices.Contains(have, m.version) {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("class: migration %03d: %w", m.version, err)
		}
		if _, err := tx.ExecContext(ctx, s.q("INSERT INTO schema_version (version) VALUES (?)"), m.version); err != nil {
			return fmt.Errorf("class: migration %03d: %w", m.version, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

// q writes a query for the database: the queries of this package use ?
// placeholders and never a ? inside a literal; PostgreSQL wants $1, $2, ….
func (s *Service) q(query string) string {
	if !s.pg {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

// fail turns a database error into ErrUnavailable, logging it at most
// once a minute; the package's own errors and a caller's cancelled
// context pass through.
func (s *Service) fail(err error) error {
	if err == nil {
		return nil
	}
	for _, own := range []error{ErrNoClass, ErrEnded, ErrNotJoined, ErrNoKey, ErrClassFull, ErrNoRound,
		ErrRoundClosed, ErrRoundLimit, ErrBadChoice, ErrBadInput, ErrUnavailable, context.Canceled, context.DeadlineExceeded,
		ErrNoLecturer, ErrUndoLate, ErrCodeTaken} {
		if errors.Is(err, own) {
			return err
		}
	}
	s.logMu.Lock()
	now := s.now()
	if s.lastLog.IsZero() || now.Sub(s.lastLog) >= time.Minute {
		if s.unlogged > 0 {
			s.logf("class: database unavailable: %v (and %d more errors in the last minute)", err, s.unlogged)
		} else {
			s.logf("class: database unavailable: %v", err)
		}
		s.lastLog, s.unlogged = now, 0
	} else {
		s.unlogged++
	}
	s.logMu.Unlock()
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// inTx runs f in one transaction and commits it; on any error nothing of
// f is kept. Every write goes through it: its outcome says whether the
// store saves (saved).
func (s *Service) inTx(ctx context.Context, f func(*sql.Tx) error) (err error) {
	defer func() { s.saved(err) }()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(err)
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return s.fail(err)
	}
	return s.fail(tx.Commit())
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// schemaVersions lists the schema steps the database has run.
func schemaVersions(ctx context.Context, tx *sql.Tx) ([]int, error) {
	rows, err := tx.QueryContext(ctx, "SELECT version FROM schema_version")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// redact hides a password in a database URL for messages.
func redact(url string) string {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return "…"
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		return scheme + "://…@" + rest[at+1:]
	}
	return url
}
