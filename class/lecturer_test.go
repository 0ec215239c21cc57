package class

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestProjectorToken: a class's projector token finds it and only it; it
// is not its instructor token, does not run the class (ByToken), and the
// instructor token cannot be read from it. A rotated class's old links,
// both, lead nowhere.
func TestProjectorToken(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		ctx := context.Background()
		s := open(t, d, Config{Now: newClock().Now})
		c, token, err := s.Create(ctx, "Sistem Terdistribusi", "id")
		if err != nil {
			t.Fatal(err)
		}
		other, otherToken, err := s.Create(ctx, "Lain", "id")
		if err != nil {
			t.Fatal(err)
		}
		pt := ProjectorToken(token)
		if pt == token || pt == ProjectorToken(otherToken) || len(pt) < 30 {
			t.Fatalf("projector token %q of %q", pt, token)
		}
		got, err := s.ByProjector(ctx, pt)
		if err != nil || got.ID != c.ID {
			t.Fatalf("ByProjector: %v %v, want %s", got.ID, err, c.ID)
		}
		if got, err := s.ByProjector(ctx, ProjectorToken(otherToken)); err != nil || got.ID != other.ID {
			t.Fatalf("the other class's projector: %v %v", got.ID, err)
		}
		if _, err := s.ByToken(ctx, pt); !errors.Is(err, ErrNoClass) {
			t.Errorf("a projector token runs the class: %v", err)
		}
		if _, err := s.ByProjector(ctx, token); !errors.Is(err, ErrNoClass) {
			t.Errorf("the instructor token is a projector token: %v", err)
		}
		newToken, err := s.Rotate(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, old := range []func() error{
			func() error { _, err := s.ByToken(ctx, token); return err },
			func() error { _, err := s.ByProjector(ctx, pt); return err },
		} {
			if err := old(); !errors.Is(err, ErrNoClass) {
				t.Errorf("an old link after rotating: %v, want ErrNoClass", err)
			}
		}
		if got, err := s.ByToken(ctx, newToken); err != nil || got.ID != c.ID {
			t.Errorf("the new instructor token: %v %v", got.ID, err)
		}
		if got, err := s.ByProjector(ctx, ProjectorToken(newToken)); err != nil || got.ID != c.ID {
			t.Errorf("the new projector token: %v %v", got.ID, err)
		}
	})
}

// TestLecturerKey: a lecturer key lists the classes opened with it, newest
// first, ended ones too, each with an instructor token that runs it, a
// rotated one's new token included; another key, or a mistyped one, lists
// nothing of them. The database keeps neither the key nor a token.
func TestLecturerKey(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		ctx := context.Background()
		clk := newClock()
		s := open(t, d, Config{Now: clk.Now})
		key, l, err := s.NewLecturer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(key) != LecturerKeyLength || FormatLecturerKey(key)[5] != '-' {
			t.Fatalf("key %q, written %q", key, FormatLecturerKey(key))
		}
		a, ta, err := s.CreateFor(ctx, "Pagi", "id", l)
		if err != nil {
			t.Fatal(err)
		}
		clk.Add(time.Minute)
		b, _, err := s.CreateFor(ctx, "Siang", "en", l)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Create(ctx, "Bukan milikku", "id"); err != nil {
			t.Fatal(err)
		}
		if err := s.End(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		tb, err := s.Rotate(ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		// Typed as a person would: lower case, in groups.
		got, err := s.ClassesOf(ctx, "  "+lower(FormatLecturerKey(key)))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ID != b.ID || got[1].ID != a.ID || got[1].Ended == nil {
			t.Fatalf("listed %+v, want Siang then Pagi (ended)", got)
		}
		for i, want := range []string{tb, ta} {
			if got[i].Token != want {
				t.Errorf("%s: token %q, want %q", got[i].Name, got[i].Token, want)
			}
			if c, err := s.ByToken(ctx, got[i].Token); err != nil || c.ID != got[i].ID {
				t.Errorf("%s: its token runs %v (%v)", got[i].Name, c.ID, err)
			}
		}
		other, _, err := s.NewLecturer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.ClassesOf(ctx, other); err != nil || len(got) != 0 {
			t.Errorf("another key lists %v (%v)", got, err)
		}
		wrong := []byte(key)
		wrong[0] = CodeAlphabet[(indexOf(CodeAlphabet, wrong[0])+1)%len(CodeAlphabet)]
		for _, k := range []string{string(wrong), "", "not a key", key + "A"} {
			if _, err := s.ClassesOf(ctx, k); !errors.Is(err, ErrNoLecturer) {
				t.Errorf("key %q: %v, want ErrNoLecturer", k, err)
			}
		}
		// What the database holds: no key, no token in the clear.
		var n int
		if err := s.db.QueryRow(inDialect(s, "SELECT COUNT(*) FROM classes WHERE token_sealed LIKE ? OR token_sealed LIKE ? OR lecturer = ?",
			"SELECT COUNT(*) FROM classes WHERE token_sealed LIKE $1 OR token_sealed LIKE $2 OR lecturer = $3"),
			"%"+ta+"%", "%"+tb+"%", key).Scan(&n); err != nil || n != 0 {
			t.Errorf("the database holds a token or the key in the clear: %d rows (%v)", n, err)
		}
	})
}

// TestReopen: ending a class is undone within UndoEnd, and its code joins
// again; later it is not; a class that took the code meanwhile keeps it.
func TestReopen(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		ctx := context.Background()
		clk := newClock()
		s := open(t, d, Config{Now: clk.Now})
		c, _, err := s.Create(ctx, "Kelas", "id")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Join(ctx, c.Code, "", "ani"); err != nil {
			t.Fatal(err)
		}
		if err := s.Reopen(ctx, c.ID); !errors.Is(err, ErrUndoLate) {
			t.Errorf("reopening a running class: %v", err)
		}
		if err := s.End(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Join(ctx, c.Code, "", "budi"); !errors.Is(err, ErrEnded) {
			t.Fatalf("joining an ended class: %v", err)
		}
		clk.Add(UndoEnd - time.Second)
		if err := s.Reopen(ctx, c.ID); err != nil {
			t.Fatalf("undo within %v: %v", UndoEnd, err)
		}
		if _, err := s.Join(ctx, c.Code, "", "budi"); err != nil {
			t.Errorf("joining after the undo: %v", err)
		}
		if n, _ := s.StudentCount(ctx, c.ID); n != 2 {
			t.Errorf("%d students after the undo, want 2", n)
		}
		if err := s.End(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		clk.Add(UndoEnd + time.Second)
		if err := s.Reopen(ctx, c.ID); !errors.Is(err, ErrUndoLate) {
			t.Errorf("undo after %v: %v, want ErrUndoLate", UndoEnd+time.Second, err)
		}
		// A class whose code a newer class took cannot come back.
		d2, _, err := s.Create(ctx, "Lagi", "id")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.End(ctx, d2.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.Exec(inDialect(s, "INSERT INTO classes (id, code, token_hash, name, lang, created) VALUES (?, ?, ?, ?, ?, ?)",
			"INSERT INTO classes (id, code, token_hash, name, lang, created) VALUES ($1, $2, $3, $4, $5, $6)"),
			"taker", d2.Code, "h", "Pengambil", "id", clk.Now().UnixMilli()); err != nil {
			t.Fatal(err)
		}
		if err := s.Reopen(ctx, d2.ID); !errors.Is(err, ErrCodeTaken) {
			t.Errorf("undo of a class whose code was taken: %v, want ErrCodeTaken", err)
		}
	})
}

// TestMigrationToLectureHall: a database at schema 1 with a class in it
// opens at schema 2; the class has no projector token until its dashboard
// keeps one (KeepProjector), with its instructor token only.
func TestMigrationToLectureHall(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		raw := rawDB(t, d)
		ms := must(migrations())
		token := newToken()
		for _, q := range []string{
			"CREATE TABLE schema_version (version INTEGER NOT NULL)", ms[0].sql, "INSERT INTO schema_version VALUES (1)",
			"INSERT INTO classes (id, code, token_hash, name, lang, created) VALUES ('old', 'ACEFGH', '" + tokenHash(token) + "', 'Lama', 'id', 1)",
		} {
			_, err := raw.Exec(q)
			ok(t, err)
		}
		raw.Close()
		s := open(t, d, Config{})
		if _, err := s.ByProjector(ctx, ProjectorToken(token)); !errors.Is(err, ErrNoClass) {
			t.Fatalf("an old class has a projector before its dashboard: %v", err)
		}
		ok(t, s.KeepProjector(ctx, "old", "forged-token-forged-token"))
		if _, err := s.ByProjector(ctx, ProjectorToken("forged-token-forged-token")); !errors.Is(err, ErrNoClass) {
			t.Fatal("a token that is not the class's gave it a projector")
		}
		ok(t, s.KeepProjector(ctx, "old", token))
		if c, err := s.ByProjector(ctx, ProjectorToken(token)); err != nil || c.Name != "Lama" {
			t.Fatalf("the old class's projector: %+v %v", c, err)
		}
	})
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func indexOf(s string, c byte) int {
	for i := range len(s) {
		if s[i] == c {
			return i
		}
	}
	return -1
}
