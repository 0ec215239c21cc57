package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"leaselab/content"
	"leaselab/labs"
)

// schemaFiles are the JSON Schemas of the course's YAML files. They sit at
// the root of a course folder, where the files' "# yaml-language-server:
// $schema=" comments point.
var schemaFiles = map[string]string{"course": "course.schema.json", "lab": "lab.schema.json"}

func schemaCmd(args []string, stdout, stderr io.Writer) int {
	f := newFlags("schema", "leaselab schema [course|lab]", `
Prints the JSON Schema of lab.yaml (the default) or course.yaml. Editors with
a YAML language server complete keys and explain them from it. A course
folder written by "leaselab export" or "leaselab new" has both schemas at
its root, and every course.yaml and lab.yaml names its schema in its first
line:

  # yaml-language-server: $schema=../../lab.schema.json`)
	pos, code, ok := f.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	which := "lab"
	switch {
	case len(pos) > 1:
		return usageError(stderr, "schema", "takes one of course or lab")
	case len(pos) == 1:
		which = pos[0]
	}
	name, ok := schemaFiles[which]
	if !ok {
		return usageError(stderr, "schema", "unknown schema %q (want course or lab)", which)
	}
	data, err := fs.ReadFile(content.FS, name)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab schema: %v\n", err)
		return 1
	}
	stdout.Write(data)
	return 0
}

func exportCmd(args []string, stdout, stderr io.Writer) int {
	f := newFlags("export", "leaselab export DIR", `
Writes the embedded course into DIR (new, or empty) as files: course.yaml,
lessons/, labs/ and the JSON Schemas of course.yaml and lab.yaml. Edit it,
check it with "leaselab check DIR" and serve it with
"leaselab serve --content DIR".`)
	pos, code, ok := f.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return usageError(stderr, "export", "takes one folder to write the course into")
	}
	dir := pos[0]
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		fmt.Fprintf(stderr, "leaselab export: %s is not empty; give a new or empty folder\n", dir)
		return 1
	}
	n := 0
	err := fs.WalkDir(content.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(content.FS, p)
		if err != nil {
			return err
		}
		n++
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		fmt.Fprintf(stderr, "leaselab export: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "leaselab export: wrote %d files to %s\nnext: leaselab check %s, then leaselab serve --content %s\n", n, dir, dir, dir)
	return 0
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

func newCmd(args []string, stdout, stderr io.Writer) int {
	f := newFlags("new", "leaselab new lab ID [--lesson L] [--kind questions|program] [DIR] | leaselab new lesson ID [DIR]", `
Writes the skeleton of a new lab or lesson into the course folder DIR
(default: the current folder) and adds it to DIR/course.yaml. The skeleton
passes "leaselab check DIR" as it is: replace its story, question and words
with yours, checking as you go.

  new lesson ID   lessons/ID/id.md and en.md; course.yaml is created when
                  DIR has none
  new lab ID      labs/ID/lab.yaml, id.md and en.md, listed under the lesson
                  --lesson names (default: the last lesson of course.yaml);
                  --kind program writes a lab where the student writes the
                  worker: its starting program and reference beside it

IDs are lower-case letters, digits and -. The JSON Schemas of course.yaml
and lab.yaml are written beside course.yaml when missing.`)
	lesson := f.String("lesson", "", "with new lab: the lesson that leads to the lab (default: the last in course.yaml)")
	labKind := newOneOf("questions", "questions", "program")
	f.Var(labKind, "kind", "with new lab: questions (predict questions and a goal) or program (the student writes a worker in Starlark)")
	pos, code, ok := f.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) < 2 || len(pos) > 3 || (pos[0] != "lab" && pos[0] != "lesson") {
		return usageError(stderr, "new", "want new lab ID [DIR] or new lesson ID [DIR]")
	}
	kind, id, dir := pos[0], pos[1], "."
	if len(pos) == 3 {
		dir = pos[2]
	}
	if !idPattern.MatchString(id) {
		return usageError(stderr, "new", "%s id %q: use lower-case letters, digits and -, at most 64", kind, id)
	}
	if kind == "lesson" && *lesson != "" {
		return usageError(stderr, "new", "--lesson goes with new lab")
	}
	if kind == "lesson" && f.given("kind") {
		return usageError(stderr, "new", "--kind goes with new lab")
	}
	var written []string
	var err error
	if kind == "lesson" {
		written, err = newLesson(dir, id)
	} else {
		written, err = newLab(dir, id, *lesson, labKind.val)
	}
	if err != nil {
		fmt.Fprintf(stderr, "leaselab new: %v\n", err)
		return 1
	}
	for _, w := range written {
		fmt.Fprintf(stdout, "wrote %s\n", w)
	}
	fmt.Fprintf(stdout, "next: leaselab check %s, then leaselab serve --content %s\n", dir, dir)
	return 0
}

// newLesson writes a lesson's two files and lists it in course.yaml.
func newLesson(dir, id string) ([]string, error) {
	lessonDir := filepath.Join(dir, "lessons", id)
	if _, err := os.Stat(lessonDir); err == nil {
		return nil, fmt.Errorf("%s exists already", lessonDir)
	}
	courseFile := filepath.Join(dir, labs.CourseFile)
	src, err := os.ReadFile(courseFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		src = []byte("# yaml-language-server: $schema=course.schema.json\n# The course: lessons in reading order, each with the labs it leads to.\nlessons:\n")
	case err != nil:
		return nil, err
	}
	course, err := addLesson(src, id)
	if err != nil {
		return nil, err
	}
	files := map[string]string{
		filepath.Join(lessonDir, "id.md"): fmt.Sprintf(lessonID, id),
		filepath.Join(lessonDir, "en.md"): fmt.Sprintf(lessonEN, id),
	}
	written, err := writeNew(files)
	if err != nil {
		return written, err
	}
	if err := os.WriteFile(courseFile, course, 0o644); err != nil {
		return written, err
	}
	written = append(written, courseFile)
	s, err := writeSchemas(dir)
	return append(written, s...), err
}

// newLab writes a lab's three files and lists it under a lesson.
func newLab(dir, id, lesson, kind string) ([]string, error) {
	courseFile := filepath.Join(dir, labs.CourseFile)
	src, err := os.ReadFile(courseFile)
	if err != nil {
		return nil, fmt.Errorf("%v: a lab belongs to a lesson of a course; start one with \"leaselab new lesson ID %s\" or \"leaselab export %s\"", err, dir, dir)
	}
	labDir := filepath.Join(dir, "labs", id)
	if _, err := os.Stat(labDir); err == nil {
		return nil, fmt.Errorf("%s exists already", labDir)
	}
	course, lesson, err := addLab(src, id, lesson)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", courseFile, err)
	}
	files := map[string]string{
		filepath.Join(labDir, "lab.yaml"): fmt.Sprintf(labYAML, id),
		filepath.Join(labDir, "id.md"):    labMDID,
		filepath.Join(labDir, "en.md"):    labMDEN,
	}
	if kind == "program" {
		files = programLabFiles(labDir, id)
	}
	written, err := writeNew(files)
	if err != nil {
		return written, err
	}
	if err := os.WriteFile(courseFile, course, 0o644); err != nil {
		return written, err
	}
	written = append(written, courseFile+" (lesson "+lesson+")")
	s, err := writeSchemas(dir)
	return append(written, s...), err
}

// programLabFiles is a program lab's skeleton: a small lab of its own
// (skeleton.go), not a course lab's solution, whose reference check
// proves and whose start the engine breaks.
func programLabFiles(labDir, id string) map[string]string {
	return map[string]string{
		filepath.Join(labDir, "id.md"):          programMDID,
		filepath.Join(labDir, "en.md"):          programMDEN,
		filepath.Join(labDir, "lab.yaml"):       strings.Replace(programLabYAML, "id: ID\n", "id: "+id+"\n", 1),
		filepath.Join(labDir, "start.star"):     programStart,
		filepath.Join(labDir, "reference.star"): programReference,
	}
}

// writeNew writes files that must not exist yet, in name order.
func writeNew(files map[string]string) ([]string, error) {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var written []string
	for _, n := range names {
		if err := os.MkdirAll(filepath.Dir(n), 0o755); err != nil {
			return written, err
		}
		fh, err := os.OpenFile(n, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return written, err
		}
		_, err = fh.WriteString(files[n])
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return written, err
		}
		written = append(written, n)
	}
	return written, nil
}

// writeSchemas puts the JSON Schemas beside course.yaml when missing.
func writeSchemas(dir string) ([]string, error) {
	var written []string
	for _, name := range []string{"course.schema.json", "lab.schema.json"} {
		dst := filepath.Join(dir, name)
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		data, err := fs.ReadFile(content.FS, name)
		if err != nil {
			return written, err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return written, err
		}
		written = append(written, dst)
	}
	return written, nil
}

// courseShape is what addLesson and addLab read of course.yaml to check
// their edit.
type courseShape struct {
	Lessons []struct {
		ID   string   `yaml:"id"`
		Labs []string `yaml:"labs"`
	} `yaml:"lessons"`
}

func readCourse(src []byte) (courseShape, error) {
	var c courseShape
	err := yaml.Unmarshal(src, &c)
	return c, err
}

var lessonItemRE = regexp.MustCompile(`^(\s*)- id:\s*([a-z0-9-]+)\s*(#.*)?$`)

// addLesson appends a lesson to course.yaml's list, as text so that the
// author's comments and layout stay, and checks the result reads back.
func addLesson(src []byte, id string) ([]byte, error) {
	before, err := readCourse(src)
	if err != nil {
		return nil, fmt.Errorf("%s does not read as YAML (%v); fix it first (leaselab check)", labs.CourseFile, err)
	}
	for _, l := range before.Lessons {
		if l.ID == id {
			return nil, fmt.Errorf("%s lists lesson %s already", labs.CourseFile, id)
		}
	}
	lines := strings.SplitAfter(string(src), "\n")
	indent := "  "
	for _, l := range lines {
		if m := lessonItemRE.FindStringSubmatch(strings.TrimRight(l, "\r\n")); m != nil {
			indent = m[1]
		}
	}
	text := string(src)
	if !strings.HasSuffix(text, "\n") && text != "" {
		text += "\n"
	}
	text = regexp.MustCompile(`(?m)^lessons:\s*\[\s*\]\s*$`).ReplaceAllString(text, "lessons:")
	text += indent + "- id: " + id + "\n"
	after, err := readCourse([]byte(text))
	if err != nil || len(after.Lessons) != len(before.Lessons)+1 || after.Lessons[len(after.Lessons)-1].ID != id {
		return nil, fmt.Errorf("could not add lesson %s to %s by itself; add \"- id: %s\" to its lessons: list", id, labs.CourseFile, id)
	}
	return []byte(text), nil
}

// addLab lists a lab under a lesson of course.yaml (the last when lesson
// is ""), as text, and checks the result reads back.
func addLab(src []byte, id, lesson string) ([]byte, string, error) {
	before, err := readCourse(src)
	if err != nil {
		return nil, "", fmt.Errorf("does not read as YAML (%v); fix it first (leaselab check)", err)
	}
	if len(before.Lessons) == 0 {
		return nil, "", errors.New("lists no lesson; add one first with leaselab new lesson ID")
	}
	var ids []string
	for _, l := range before.Lessons {
		ids = append(ids, l.ID)
		if slices.Contains(l.Labs, id) {
			return nil, "", fmt.Errorf("lists lab %s already, under lesson %s", id, l.ID)
		}
	}
	if lesson == "" {
		lesson = ids[len(ids)-1]
	}
	lines := strings.SplitAfter(string(src), "\n")
	start, end, itemIndent := lessonLines(lines, lesson)
	if start < 0 {
		return nil, "", fmt.Errorf("has no lesson %q (lessons: %s)", lesson, strings.Join(ids, ", "))
	}
	lines = listLab(lines, start, end, strings.Repeat(" ", itemIndent+2), id)
	out := []byte(strings.Join(lines, ""))
	if !addedOnly(before, out, lesson, id) {
		return nil, "", fmt.Errorf("could not add lab %s to lesson %s by itself; add it to that lesson's labs: list", id, lesson)
	}
	return out, lesson, nil
}

// lessonLines finds the lesson's item in course.yaml's lines: from its
// "- id:" line (start, -1 when there is none) to the first line past it
// (end), and how deep its "- " is indented.
func lessonLines(lines []string, lesson string) (start, end, itemIndent int) {
	start = -1
	for i, l := range lines {
		if m := lessonItemRE.FindStringSubmatch(strings.TrimRight(l, "\r\n")); m != nil && m[2] == lesson {
			start, itemIndent = i, len(m[1])
		}
	}
	if start < 0 {
		return -1, -1, 0
	}
	// The lesson's lines run until one indented no deeper than its "- ".
	end = start + 1
	for end < len(lines) {
		t := strings.TrimRight(lines[end], "\r\n")
		if strings.TrimSpace(t) != "" && !strings.HasPrefix(strings.TrimSpace(t), "#") && len(t)-len(strings.TrimLeft(t, " ")) <= itemIndent {
			break
		}
		end++
	}
	return start, end, itemIndent
}

// listLab adds the lab to the labs: of the lesson in lines[start:end],
// whose keys are indented keyIndent: to its flow list ([a, b]) or block
// list, or as a new labs: line under the lesson's first.
func listLab(lines []string, start, end int, keyIndent, id string) []string {
	for i := start; i < end; i++ {
		t := strings.TrimRight(lines[i], "\r\n")
		k := strings.Index(t, "labs:")
		if k < 0 {
			continue
		}
		rest := strings.TrimSpace(t[k+len("labs:"):])
		switch {
		case strings.HasPrefix(rest, "["):
			j := strings.LastIndex(t, "]")
			if j < 0 {
				continue
			}
			inner := strings.TrimSpace(t[strings.Index(t, "[")+1 : j])
			sep := ", "
			if inner == "" {
				sep = ""
			}
			lines[i] = t[:strings.Index(t, "[")+1] + inner + sep + id + t[j:] + "\n"
			return lines
		case rest == "" || strings.HasPrefix(rest, "#"):
			// A block list: add after its last item.
			last, itemPrefix := i, ""
			for j := i + 1; j < end; j++ {
				u := strings.TrimRight(lines[j], "\r\n")
				if strings.HasPrefix(strings.TrimSpace(u), "- ") {
					last, itemPrefix = j, u[:strings.Index(u, "-")]
				}
			}
			if itemPrefix == "" {
				itemPrefix = keyIndent + "  "
			}
			return append(lines[:last+1], append([]string{itemPrefix + "- " + id + "\n"}, lines[last+1:]...)...)
		}
	}
	ins := keyIndent + "labs: [" + id + "]\n"
	if !strings.HasSuffix(lines[start], "\n") {
		lines[start] += "\n"
	}
	return append(lines[:start+1], append([]string{ins}, lines[start+1:]...)...)
}

// addedOnly reports whether out, the edited course.yaml, reads back as
// before with the lab added to the lesson's labs and nothing else changed.
func addedOnly(before courseShape, out []byte, lesson, id string) bool {
	after, err := readCourse(out)
	if err != nil || len(after.Lessons) != len(before.Lessons) {
		return false
	}
	for i, l := range after.Lessons {
		want := before.Lessons[i].Labs
		if l.ID == lesson {
			want = append(append([]string{}, want...), id)
		}
		if l.ID != before.Lessons[i].ID || !slices.Equal(l.Labs, want) {
			return false
		}
	}
	return true
}
