package main

import "testing"

func TestByteSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"1GiB", 1 << 30, false}, {"512MiB", 512 << 20, false}, {"2G", 2 << 30, false}, {"300MB", 300e6, false},
		{"1.5GiB", 3 << 29, false}, {"4096", 4096, false}, {"0", 0, false},
		{"", 0, true}, {"lots", 0, true}, {"-1G", 0, true}, {"1PiB", 0, true}, {"1e300", 0, true},
	} {
		var b byteSize
		err := b.Set(c.in)
		if (err != nil) != c.err || (!c.err && int64(b) != c.want) {
			t.Errorf("%q: %d, %v; want %d, error %v", c.in, b, err, c.want, c.err)
		}
	}
	if b := byteSize(3 << 29); b.String() != "1536MiB" {
		t.Errorf("String %q", b.String())
	}
}
