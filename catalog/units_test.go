package catalog

import "testing"

// TestTimeSlips: the forms of time a student must not read in Indonesian
// are found, the course's own are not.
func TestTimeSlips(t *testing.T) {
	for _, s := range []string{
		"#43  4,5 dtk  operator mencabut sesi W1", // a trace's column
		"29 dtk: W1 menulis file",                 // a pin
		"jeda 25 dtk pada 1 dtk",                  // a search's fault
		"simulasi berakhir pada 30s",              // a Go duration
		"terputus sejak 3 dtk",
		"lease 12.5 dtk",
		"menunggu 4 detik",
		"di detik 4",
		"W1 menulis di detik ke-29",
	} {
		if len(TimeSlips("id", s)) == 0 {
			t.Errorf("%q: no slip found", s)
		}
	}
	for _, s := range []string{
		"#43  detik ke-4,5  operator mencabut sesi W1",
		"detik ke-29: W1 menulis file",
		"jeda 25 dtk pada detik ke-1",
		"simulasi berakhir pada detik ke-30",
		"W1 bekerja selama 3 dtk; tunda 100 ms",
		"lease 12,5 dtk, 1,5 mnt",
	} {
		if got := TimeSlips("id", s); len(got) > 0 {
			t.Errorf("%q: %v", s, got)
		}
	}
	if got := TimeSlips("en", "29s: W1 writes"); len(got) > 0 {
		t.Errorf("English: %v", got)
	}
}
