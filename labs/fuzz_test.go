package labs

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"leaselab/content"
	"leaselab/engine"
)

// FuzzPredicate: any text either compiles or is a PredicateError inside
// the text; a compiled predicate evaluates on a real log without panicking.
func FuzzPredicate(f *testing.F) {
	for _, s := range []string{
		"W1's write with token 7 is rejected",
		"W1's write is accepted after W2's",
		"W1 acts after its lease expired",
		"the report is sent twice",
		"not (violation stale-write by W1 or no violation) and W2 gets token 8",
		"the report is sent at least 3 times",
		"W1’s check fails before W2's",
		"((((",
		"W1's",
	} {
		f.Add(s)
	}
	sc := engine.Scenario{TTL: 15 * engine.Second, FirstToken: 7, Storage: engine.StorageFencing}
	for _, l := range []string{"W1: acquire; work 5s; check; write file; release", "W2 start=1s: acquire; work 5s; send file; release"} {
		ws, err := engine.ParseWorker(l)
		if err != nil {
			f.Fatal(err)
		}
		sc.Workers = append(sc.Workers, ws)
	}
	w, err := engine.New(sc)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range []string{"until 4s", "freeze W1 for=25s", "until 40s"} {
		if err := w.Do(c); err != nil {
			f.Fatal(err)
		}
	}
	events := w.Events()
	f.Fuzz(func(t *testing.T, src string) {
		p, err := CompilePredicate(src, []string{"W1", "W2"})
		if err != nil {
			pe, ok := err.(*PredicateError)
			if !ok || pe.Offset < 0 || pe.Offset > len(src) || pe.Msg == "" {
				t.Fatalf("%q: error %#v", src, err)
			}
			return
		}
		ok, ev := p.Eval(events, w.Names())
		for _, i := range ev {
			if i < 0 || i >= len(events) {
				t.Fatalf("%q: evidence index %d out of range", src, i)
			}
		}
		_ = ok
	})
}

// FuzzLab loads a course whose w1-w2 lab.yaml and id.md are replaced by
// the fuzzer's bytes: never a panic, and every problem has a file.
func FuzzLab(f *testing.F) {
	base := fstest.MapFS{}
	_ = fs.WalkDir(content.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := fs.ReadFile(content.FS, p)
			base[p] = &fstest.MapFile{Data: data}
		}
		return nil
	})
	labYAML, idMD := base["labs/w1-w2/lab.yaml"].Data, base["labs/w1-w2/id.md"].Data
	f.Add(labYAML, idMD)
	f.Add(base["labs/monthly-report/lab.yaml"].Data, base["labs/monthly-report/id.md"].Data)
	f.Add([]byte("id: x\nscenario:\n  workers:\n    W1: acquire\n"), []byte("---\ntitle: t\n---\n## Question q\n### Choice a\n"))
	f.Add([]byte("- [a, b]\n- &x {c: *x}\n"), []byte("---\n---\n```\n## Question q\n"))
	f.Fuzz(func(t *testing.T, lab, md []byte) {
		m := fstest.MapFS{}
		for k, v := range base {
			m[k] = v
		}
		m["labs/w1-w2/lab.yaml"] = &fstest.MapFile{Data: lab}
		m["labs/w1-w2/id.md"] = &fstest.MapFile{Data: md}
		c, err := LoadWith(m, Options{})
		if c == nil {
			t.Fatalf("no course: %v", err)
		}
		for _, p := range c.Problems {
			if p.File == "" || p.Msg == "" || p.Line < 0 || p.Col < 0 {
				t.Fatalf("problem without a place: %#v", p)
			}
		}
	})
}
