package budget

import (
	"testing"
	"time"
)

// TestUnder: a student's budget within their address's (issue 43). Work
// charged to the student is charged to the address; the student waits
// while the address is in debt, though their own budget is not; a
// verdict's factor is the student's alone, the address paying its time
// once; a refusal's charge stays with the student; and a
// student's turn is their own, so a classmate's work does not hold it.
func TestUnder(t *testing.T) {
	// The room refills slowly (a millisecond a second), so that its debt
	// below lasts however long a busy machine takes between the lines.
	room := New(0.001, time.Second)
	a := NewTurns(0.5, time.Second).Under(room)
	b := NewTurns(0.5, time.Second).Under(room)
	ChargeFixed(900*time.Millisecond, a)
	if a.Used() != 900*time.Millisecond || room.Used() != 900*time.Millisecond || b.Used() != 0 {
		t.Fatalf("used: a %v, room %v, b %v", a.Used(), room.Used(), b.Used())
	}
	// A verdict of a's: four times its time for a, its time for the room.
	ChargeTimes(time.Now().Add(-200*time.Millisecond), 4, a)
	ownV, roomV := a.Used()-900*time.Millisecond, room.Used()-900*time.Millisecond
	if ownV < 800*time.Millisecond || roomV < 200*time.Millisecond || roomV*3 > ownV {
		t.Fatalf("a verdict charged a %v and the room %v, want 4 times the room's", ownV, roomV)
	}
	// The room is in debt (1.1 s of its 1 s burst): b waits, though b
	// owes nothing.
	if b.Owes() != 0 {
		t.Fatalf("b owes %v", b.Owes())
	}
	if room.Owes() == 0 || Wait(b) == nil {
		t.Errorf("b does not wait on its room's debt (room owes %v)", room.Owes())
	}
	before := room.Used()
	ChargeRefusal(RefuseCost, time.Second, b)
	if room.Used() != before {
		t.Errorf("a refusal's charge reached the room: %v → %v", before, room.Used())
	}
	// Turns: a's is held; b's is free.
	if !a.Take(0) {
		t.Fatal("a's turn")
	}
	if !b.Take(0) {
		t.Error("a classmate's turn holds b's")
	}
	if a.Take(0) {
		t.Error("a took its turn twice")
	}
	a.Give()
	b.Give()
}
