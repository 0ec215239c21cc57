package main

import (
	"strings"
	"testing"
)

// A run as go test -json writes it: one package passes, one fails a
// subtest, one has no tests, and a build error comes as plain text.
const run = `{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestOne"}
{"Action":"output","Package":"m/a","Test":"TestOne","Output":"=== RUN   TestOne\n"}
{"Action":"output","Package":"m/a","Test":"TestOne","Output":"    a_test.go:9: only a log\n"}
{"Action":"pass","Package":"m/a","Test":"TestOne","Elapsed":0.1}
{"Action":"skip","Package":"m/a","Test":"TestTwo","Elapsed":0}
{"Action":"output","Package":"m/a","Output":"PASS\n"}
{"Action":"output","Package":"m/a","Output":"ok  \tm/a\t0.2s\n"}
{"Action":"pass","Package":"m/a","Elapsed":0.2}
{"Action":"run","Package":"m/b","Test":"TestThree"}
{"Action":"run","Package":"m/b","Test":"TestThree/sub"}
{"Action":"output","Package":"m/b","Test":"TestThree/sub","Output":"    b_test.go:5: wanted 2, got 3\n"}
{"Action":"output","Package":"m/b","Test":"TestThree/sub","Output":"    --- FAIL: TestThree/sub (0.00s)\n"}
{"Action":"fail","Package":"m/b","Test":"TestThree/sub","Elapsed":0}
{"Action":"output","Package":"m/b","Test":"TestThree","Output":"--- FAIL: TestThree (0.00s)\n"}
{"Action":"fail","Package":"m/b","Test":"TestThree","Elapsed":0}
{"Action":"output","Package":"m/b","Output":"FAIL\tm/b\t0.1s\n"}
{"Action":"fail","Package":"m/b","Elapsed":0.1}
# m/c
c.go:3:1: syntax error
{"Action":"output","Package":"m/d","Output":"?   \tm/d\t[no test files]\n"}
{"Action":"skip","Package":"m/d","Elapsed":0}
`

func TestSummarize(t *testing.T) {
	var out strings.Builder
	s, err := summarize(strings.NewReader(run), &out)
	if err != nil {
		t.Fatal(err)
	}
	if s.packages != 3 || s.passed != 1 || s.skipped != 1 || s.failed != 2 || !s.pkgFailed {
		t.Errorf("counted %d packages, %d passed, %d skipped, %d failed, package failed %v; want 3, 1, 1, 2, true",
			s.packages, s.passed, s.skipped, s.failed, s.pkgFailed)
	}
	want := "ok  \tm/a\t0.2s\n" +
		"    b_test.go:5: wanted 2, got 3\n    --- FAIL: TestThree/sub (0.00s)\n" +
		"--- FAIL: TestThree (0.00s)\n" +
		"FAIL\tm/b\t0.1s\n" +
		"# m/c\nc.go:3:1: syntax error\n" +
		"?   \tm/d\t[no test files]\n"
	if out.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", out.String(), want)
	}
}
