package class

import "testing"

// TestRemove: an instructor removes a join that is no student: its seat,
// its vote, its goal go; the class's watchers hear of it; a vote of the
// removed is refused, also through a service that had seen them join (a
// replica whose cache still holds them), while another student's vote
// there is kept.
func TestRemove(t *testing.T) {
	eachStore(t, func(t *testing.T, d db) {
		s := open(t, d, Config{})
		c, _, st := classOf(t, s, "Ana", "bot")
		other := open(t, d, Config{})
		r := must(s.OpenRound(ctx, c.ID, "lab", "q", []string{"a", "b"}))
		ok(t, other.Vote(ctx, c.ID, st[1].ID, r.ID, "b")) // other now holds the bot as a member
		ok(t, s.Vote(ctx, c.ID, st[0].ID, r.ID, "a"))
		ok(t, s.Reached(ctx, c.ID, st[1].ID, "lab", "g"))
		changes, stop := s.Subscribe(c.ID)
		defer stop()

		ok(t, s.Remove(ctx, c.ID, st[1].ID))
		if n := must(s.StudentCount(ctx, c.ID)); n != 1 {
			t.Errorf("students after the removal: %d, want 1", n)
		}
		if got := must(s.Rounds(ctx, c.ID))[0]; got.Voters != 1 || got.Counts["b"] != 0 || got.Counts["a"] != 1 {
			t.Errorf("the counts still hold the removed vote: %+v", got)
		}
		if p := must(s.Progress(ctx, c.ID, "lab", []string{"g"})); p[0].Reached != 0 {
			t.Errorf("the removed student's goal still counts: %+v", p)
		}
		told := map[string]bool{}
		for len(changes) > 0 {
			told[(<-changes).What] = true
		}
		if !told[ChangedJoin] || !told[ChangedRound] {
			t.Errorf("the watchers heard %v, want a join and a round change", told)
		}
		is(t, "removed twice", s.Remove(ctx, c.ID, st[1].ID), ErrNotJoined)
		is(t, "a vote of the removed", s.Vote(ctx, c.ID, st[1].ID, r.ID, "a"), ErrNotJoined)
		is(t, "a vote of the removed where they were known", other.Vote(ctx, c.ID, st[1].ID, r.ID, "a"), ErrNotJoined)
		ok(t, other.Vote(ctx, c.ID, st[0].ID, r.ID, "b"))
		if v := must(s.Votes(ctx, c.ID, st[0].ID)); v[r.ID] != "b" {
			t.Errorf("the student's vote through the other service: %v", v)
		}
		is(t, "a made-up id", s.Remove(ctx, c.ID, "no"), ErrBadInput)
		ok(t, s.End(ctx, c.ID))
		is(t, "removing from an ended class", s.Remove(ctx, c.ID, st[0].ID), ErrEnded)
	})
}
