package budget

import (
	"testing"
	"time"
)

// TestRefusalDebtIsBounded: refusals charged with ChargeRefusal keep a
// budget in debt but never deeper than the bound they are given, so a
// client that flooded for an hour waits no longer than one that flooded
// for a second; work charged as such (ChargeFixed) is not bounded.
func TestRefusalDebtIsBounded(t *testing.T) {
	b := New(0.5, time.Second)
	const most = 2 * time.Second
	for range 100_000 { // ten seconds of refusals at RefuseCost
		ChargeRefusal(RefuseCost, most, b)
	}
	if owes := b.Owes(); owes > most || owes < most-100*time.Millisecond {
		t.Errorf("after 100,000 refusals the budget owes %v, want just under %v", owes, most)
	}
	if err := Wait(b); err == nil {
		t.Error("a budget in debt lets work start")
	}
	used := b.Used()
	ChargeRefusal(time.Hour, most, b)
	if b.Used() > used+time.Millisecond || b.Owes() > most {
		t.Errorf("a refusal past the bound was charged: used %v -> %v, owes %v", used, b.Used(), b.Owes())
	}
	ChargeFixed(time.Minute, b)
	if b.Owes() < time.Minute {
		t.Errorf("work charged with ChargeFixed was bounded: owes %v", b.Owes())
	}
	if New(1, time.Second).Owes() != 0 {
		t.Error("a full budget owes something")
	}
}
