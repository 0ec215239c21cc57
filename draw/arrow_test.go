package draw

import "testing"

// A message's path: its line, then an open arrowhead 6 back from the end
// and 3.5 to each side, in half units (worked out by hand). An upright or
// level message's head is written short: a minus sign or a space parts two
// numbers, and an l repeats ("l-3.5-6-3.5,6" is two lines).
func TestArrow(t *testing.T) {
	for _, tc := range []struct {
		x1, y1, x2, y2 int
		want           string
	}{
		{0, 95, 0, 44, "M0,95 V44 m3.5,6l-3.5-6-3.5,6"},              // up
		{0, 44, 0, 95, "M0,44 V95 m-3.5-6l3.5,6 3.5-6"},              // down
		{0, 10, 20, 10, "M0,10 H20 m-6-3.5l6,3.5-6,3.5"},             // right
		{20, 10, 0, 10, "M20,10 H0 m6,3.5l-6-3.5 6-3.5"},             // left
		{0, 0, 30, 40, "M0,0 L30,40 M23.5,37.5 L30,40 L29,33"},       // 3-4-5: back to 26.4,35.2, sides ±(2.8,-2.1)
		{-30, 0, 0, -40, "M-30,0 L0,-40 M-1,-33 L0,-40 L-6.5,-37.5"}, // back to -3.6,-35.2; -0.8,-33.1 and -6.4,-37.3 rounded
		{5, 5, 5, 5, "M5,5"},
	} {
		var w Markup
		w.arrow(tc.x1, tc.y1, tc.x2, tc.y2)
		if got := string(w.B); got != tc.want {
			t.Errorf("arrow(%d,%d → %d,%d) = %q, want %q", tc.x1, tc.y1, tc.x2, tc.y2, got, tc.want)
		}
	}
}
