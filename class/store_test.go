package class

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// postgresEnv names the PostgreSQL the tests use; .ci/run starts one and
// sets it (.ci/postgres).
const postgresEnv = "LEASELAB_TEST_POSTGRES"

// clock is a hand-moved clock for Config.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// db is one database a test runs on: it gives the Config that reaches
// it, the same each time, so a test can close and open again.
type db struct {
	name string
	cfg  func(Config) Config
}

// eachStore runs a test on SQLite and on PostgreSQL (skipped with a
// message when LEASELAB_TEST_POSTGRES is not set).
func eachStore(t *testing.T, test func(t *testing.T, d db)) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		test(t, db{"sqlite", func(c Config) Config { c.Data = dir; return c }})
	})
	t.Run("postgres", func(t *testing.T) {
		url := postgresURL(t)
		test(t, db{"postgres", func(c Config) Config { c.DatabaseURL = url; return c }})
	})
}

// inDialect is a test's own statement in the dialect of s's backend.
func inDialect(s *Service, sqlite, postgres string) string {
	if _, ok := s.back.(postgresBackend); ok {
		return postgres
	}
	return sqlite
}

// rawDB opens the database d names as it is, without a Service (no
// migration): a test writes an older schema into it.
func rawDB(t *testing.T, d db) *sql.DB {
	t.Helper()
	back, err := backendOf(d.cfg(Config{}))
	if err != nil {
		t.Fatal(err)
	}
	w, r, err := back.open()
	if err != nil {
		t.Fatal(err)
	}
	if r != w {
		r.Close()
	}
	return w
}

// postgresURL gives the test a schema of its own in the test PostgreSQL,
// dropped at the end, and the URL that makes it the search path.
func postgresURL(t *testing.T) string {
	t.Helper()
	base := os.Getenv(postgresEnv)
	if base == "" {
		t.Skip(postgresEnv + " is not set: no PostgreSQL to test against (.ci/run starts one with .ci/postgres)")
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	schema := "t_" + randomHex(6)
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		admin.Close()
		t.Fatalf("PostgreSQL at %s: %v", redact(base), err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP SCHEMA " + schema + " CASCADE")
		admin.Close()
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

func open(t *testing.T, d db, cfg Config) *Service {
	t.Helper()
	s, err := Open(context.Background(), d.cfg(cfg))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
