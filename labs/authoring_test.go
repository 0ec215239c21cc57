package labs

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

var fileFence = regexp.MustCompile("^```[a-z]+ file=(\\S+)$")

// exampleCourse extracts the blocks of docs/authoring.md marked file=.
func exampleCourse(t *testing.T) fstest.MapFS {
	t.Helper()
	data, err := os.ReadFile("../docs/authoring.md")
	if err != nil {
		t.Fatal(err)
	}
	m := fstest.MapFS{}
	var name string
	var body []string
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case name == "":
			if mm := fileFence.FindStringSubmatch(line); mm != nil {
				name, body = mm[1], nil
			}
		case line == "```":
			m[name] = &fstest.MapFile{Data: []byte(strings.Join(body, "\n") + "\n")}
			name = ""
		default:
			body = append(body, line)
		}
	}
	if name != "" {
		t.Fatalf("block %s is not closed", name)
	}
	return m
}

// TestAuthoringExample runs the worked example of docs/authoring.md
// through Load, the code behind leaselab check.
func TestAuthoringExample(t *testing.T) {
	m := exampleCourse(t)
	for _, f := range []string{"course.yaml", "labs/crash/lab.yaml", "labs/crash/id.md", "labs/crash/en.md", "lessons/example/id.md", "lessons/example/en.md"} {
		if m[f] == nil {
			t.Fatalf("the example lacks %s", f)
		}
	}
	c, err := loadCopy(m)
	if err != nil {
		t.Fatalf("the worked example has errors:\n%v", err)
	}
	if len(c.Problems) != 0 {
		t.Errorf("the worked example has warnings:\n%v", c.Problems)
	}
	lab := c.Lab("crash")
	for q, right := range map[string]string{"after-crash": "takes-over", "no-expiry": "stuck"} {
		v, err := lab.CheckQuestion(q, right, "en")
		if err != nil || !v.Correct {
			t.Errorf("%s: %+v %v", q, v, err)
		}
	}
}
