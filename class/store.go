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
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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

// backend is the database under a Service: SQLite (sqlite.go), one
// file in the data folder, or PostgreSQL (postgres.go), which replicas
// share. Each writes its own SQL (queries); the rest of what differs
// between them is here. The Service's logic is the same over both, and
// so are its tests (eachStore).
type backend interface {
	// open opens the pool that writes and the pool that reads (they may
	// be one); a database it cannot open is ErrUnavailable.
	open() (db, rdb *sql.DB, err error)
	// sql is the text of every statement, in the backend's dialect.
	sql() *queries
	// lockMigrations, first in the migrations' transaction, keeps other
	// processes from migrating at the same time.
	lockMigrations(ctx context.Context, tx *sql.Tx) error
	// notify asks, inside tx, that the other replicas be told the
	// payloads ("origin class what round") once tx commits.
	notify(ctx context.Context, tx *sql.Tx, payloads []string) error
	// watch starts hearing the other replicas' changes (Service.received)
	// until the service closes, and tells s's hub whether every change
	// reaches this process now (hub.forget).
	watch(s *Service)
	// brokeReference reports whether err is a row naming a row missing
	// from another table, not the database being down.
	brokeReference(err error) bool
}

// backendOf is the backend cfg names.
func backendOf(cfg Config) (backend, error) {
	switch u := cfg.DatabaseURL; {
	case strings.HasPrefix(u, "postgres://"), strings.HasPrefix(u, "postgresql://"):
		return postgresBackend{url: u}, nil
	case u != "":
		return nil, fmt.Errorf("%w: a database URL starts with postgres:// (got %q)", ErrBadInput, redact(u))
	}
	return sqliteBackend{dir: cfg.Data}, nil
}

// Service is the classes of one server process over one database. It is
// safe for concurrent use.
type Service struct {
	// closed is set by Close: what still calls the store after it (a vote
	// timer firing at shutdown) is told ErrClosed, and nothing is logged.
	closed    atomic.Bool
	db        *sql.DB // transactions and writes
	rdb       *sql.DB // reads: on SQLite a pool of read-only connections beside the one writer
	back      backend
	sql       *queries // back's statements
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

// stmt is query (one of s.sql's) as a statement of tx: the one prepared at
// start (prepareStmts) if there is one, else prepared in tx alone. (It is
// never prepared on the database inside a transaction: SQLite's writer
// has one connection, which the transaction holds.)
func (s *Service) stmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	if st := s.stmts[query]; st != nil {
		return tx.StmtContext(ctx, st), nil
	}
	s.txPrepares.Add(1)
	return tx.PrepareContext(ctx, query)
}

// prepareStmts prepares the vote writer's statements once, at start; one
// that fails (a database not up yet) is prepared in each transaction
// instead.
func (s *Service) prepareStmts(ctx context.Context) {
	s.stmts = map[string]*sql.Stmt{}
	for _, q := range s.voteStmts() {
		if st, err := s.db.PrepareContext(ctx, q); err == nil {
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
	back, err := backendOf(cfg)
	if err != nil {
		return nil, err
	}
	s := &Service{back: back, sql: back.sql(), now: cfg.Now, retention: cfg.Retention, logf: cfg.Logf}
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
	if s.db, s.rdb, err = back.open(); err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.closeDB()
		return nil, err
	}
	s.prepareStmts(ctx)
	s.startVotes()
	s.startSteps()
	back.watch(s)
	return s, nil
}

// Close stops listening and closes the database.
func (s *Service) Close() error {
	s.closed.Store(true)
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
	if err := s.back.lockMigrations(ctx, tx); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if _, err := tx.ExecContext(ctx, s.sql.createSchemaVersion); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	have, err := s.schemaVersions(ctx, tx)
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
		if _, err := tx.ExecContext(ctx, s.sql.insertSchemaVersion, m.version); err != nil {
			return fmt.Errorf("class: migration %03d: %w", m.version, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
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
		ErrNoLecturer, ErrUndoLate, ErrCodeTaken, ErrNoProgram} {
		if errors.Is(err, own) {
			return err
		}
	}
	if s.closed.Load() {
		// Unavailable to whoever asks (a page says votes cannot be saved
		// now), but closed by us: nothing to log.
		return fmt.Errorf("%w (%w): %w", ErrUnavailable, ErrClosed, err)
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
func (s *Service) schemaVersions(ctx context.Context, tx *sql.Tx) ([]int, error) {
	rows, err := tx.QueryContext(ctx, s.sql.schemaVersions)
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
