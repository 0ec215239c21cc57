package class

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// BenchmarkVote: one student's vote, changed again and again, on SQLite.
func BenchmarkVote(b *testing.B) {
	s, err := Open(ctx, Config{Data: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c, _, _ := s.Create(ctx, "bench", "id")
	st := must(s.Join(ctx, c.Code, "", ""))
	r := must(s.OpenRound(ctx, c.ID, "lab", "q", []string{"a", "b"}))
	b.ResetTimer()
	for i := range b.N {
		if err := s.Vote(ctx, c.ID, st.ID, r.ID, []string{"a", "b"}[i%2]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClassVotes: 300 students of one class vote at once, on SQLite.
func BenchmarkClassVotes(b *testing.B) {
	eachStoreB(b, func(b *testing.B, s *Service) {
		c, _, _ := s.Create(ctx, "bench", "id")
		var sts []Student
		for i := range 300 {
			sts = append(sts, must(s.Join(ctx, c.Code, "", fmt.Sprint("s", i))))
		}
		r := must(s.OpenRound(ctx, c.ID, "lab", "q", []string{"a", "b"}))
		b.ResetTimer()
		for i := range b.N {
			var wg sync.WaitGroup
			for _, st := range sts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := s.Vote(ctx, c.ID, st.ID, r.ID, []string{"a", "b"}[i%2]); err != nil {
						b.Error(err)
					}
				}()
			}
			wg.Wait()
		}
	})
}

// eachStoreB runs a benchmark on SQLite and, with LEASELAB_TEST_POSTGRES,
// on PostgreSQL.
func eachStoreB(b *testing.B, bench func(*testing.B, *Service)) {
	b.Run("sqlite", func(b *testing.B) {
		s, err := Open(ctx, Config{Data: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		bench(b, s)
	})
	b.Run("postgres", func(b *testing.B) {
		url := os.Getenv(postgresEnv)
		if url == "" {
			b.Skip(postgresEnv + " is not set")
		}
		s, err := Open(ctx, Config{DatabaseURL: url})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		bench(b, s)
	})
}
