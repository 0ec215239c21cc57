package main

import (
	"testing"

	"leaselab/catalog"
	"leaselab/content"
	"leaselab/labs"
)

// TestRunSpeaksIndonesian: `leaselab run LAB --lang id` of every lab,
// to its horizon, through each question's run and each goal's proof,
// holds no word
// catalog.Untranslated finds. The real-systems labs are held to it too:
// the trace's sentences are the catalog's, not theirs.
func TestRunSpeaksIndonesian(t *testing.T) {
	course, err := labs.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, lab := range course.Labs {
		runs := [][]string{{"run", lab.ID, "--lang", "id"}}
		for _, q := range lab.Questions {
			runs = append(runs, []string{"run", lab.ID, "--lang", "id", "--question", q.ID})
		}
		// Each goal's proof: what the page's own controls make happen.
		for _, g := range lab.Goals {
			args := []string{"run", lab.ID, "--lang", "id"}
			for _, c := range g.Proof() {
				args = append(args, "--do", c)
			}
			if len(args) > 4 {
				runs = append(runs, args)
			}
		}
		for _, args := range runs {
			code, out, errs := runCLI(args...)
			if code != 0 {
				t.Errorf("%v: exit %d: %s", args, code, errs)
				continue
			}
			if words := catalog.Untranslated("id", out); len(words) > 0 {
				t.Errorf("%v: English in the trace: %q", args, words)
			}
		}
	}
}
