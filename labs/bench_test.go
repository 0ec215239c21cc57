package labs

import (
	"testing"

	"leaselab/content"
)

// BenchmarkLoad measures loading and checking the whole embedded course,
// every question run in the engine.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load(content.FS); err != nil {
			b.Fatal(err)
		}
	}
}
