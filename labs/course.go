package labs

import (
	"bytes"
	"errors"
	"html/template"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
)

// DefaultLang is the language content is written in first; every other
// language falls back to it.
const DefaultLang = "id"

// Langs is every language the course is offered in, the default first.
var Langs = []string{"id", "en"}

// CourseFile is the file that orders lessons and their labs.
const CourseFile = "course.yaml"

// Course is the loaded content, in course order.
type Course struct {
	Lessons []*Lesson
	Labs    []*Lab

	// Problems is everything Load found, warnings included.
	Problems Problems
}

// Lesson is one reading page, with the labs it leads to.
type Lesson struct {
	ID   string
	Labs []string // lab ids, in course order

	titles map[string]string
	html   map[string]template.HTML
}

// Lesson finds a lesson by id.
func (c *Course) Lesson(id string) *Lesson {
	for _, l := range c.Lessons {
		if l.ID == id {
			return l
		}
	}
	return nil
}

// Lab finds a lab by id.
func (c *Course) Lab(id string) *Lab {
	for _, l := range c.Labs {
		if l.ID == id {
			return l
		}
	}
	return nil
}

// Title is the lesson's title in lang, falling back to Indonesian, then the id.
func (l *Lesson) Title(lang string) string {
	if t := l.titles[lang]; t != "" {
		return t
	}
	if t := l.titles[DefaultLang]; t != "" {
		return t
	}
	return l.ID
}

// HTML is the lesson's body in lang, falling back to Indonesian.
func (l *Lesson) HTML(lang string) template.HTML {
	if h, ok := l.html[lang]; ok {
		return h
	}
	return l.html[DefaultLang]
}

// Options change how Load renders content.
type Options struct {
	Link LinkFunc // URLs for lab: and lesson: links; DefaultLink when nil
	// Root is the content folder as the author named it (leaselab check
	// DIR), so that a command a message suggests names the right file.
	Root string

	// judged, when this package's tests set it, keeps the engine's
	// verdicts on a lab's design challenge and measured exercise from one
	// load to the next, by the lab.yaml they come from: a load of a copy
	// of the course with another file changed plays the same runs to the
	// same verdicts (the engine is pure), a tenth of a load's CPU each.
	// So it keeps each lab's verification (verifyLab: its questions,
	// goals and programs run in the engine), by the lab.yaml and the
	// program files it reads: a quarter of a load's CPU.
	judged *judgedLabs
}

// judgedLabs is Options.judged: the error of each judgement by its kind
// and its lab.yaml, file and bytes; and each lab's verification.
type judgedLabs struct {
	errs     memo[error]
	verified memo[verifiedLab]
}

// memo keeps values by key, each computed once it is first asked for (two
// loads that ask at once may both compute it: the engine is pure, so they
// agree).
type memo[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

// get is the value kept for key, or compute's, which it keeps.
func (c *memo[V]) get(key string, compute func() V) V {
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]V{}
	}
	c.m[key] = v
	return v
}

// verifiedLab is what verifyLab reported and returned. Its runs are
// only read: a question's world, the events that decide it, and the
// choice that holds, of which a load reads the id and the predicate
// (the same in every lab of the same lab.yaml).
type verifiedLab struct {
	ps   Problems
	runs map[string]decided
}

// verify is verifyLab(r, l, once), or what it reported and returned for
// the same lab files before; without j, always verifyLab.
func (j *judgedLabs) verify(r *report, l *Lab, yaml []byte, once judgeOnce) map[string]decided {
	if j == nil {
		return verifyLab(r, l, once)
	}
	key := l.file + "\x00" + string(yaml)
	if p := l.program; p != nil {
		key += "\x00" + p.Start + "\x00" + p.reference
	}
	v := j.verified.get(key, func() verifiedLab {
		r2 := &report{}
		runs := verifyLab(r2, l, once)
		return verifiedLab{ps: r2.ps, runs: runs}
	})
	r.ps = append(r.ps, v.ps...)
	return v.runs
}

// once is judge(), or what judge returned for the same kind of
// judgement of the same lab file before; without j, always judge().
func (j *judgedLabs) once(kind, file string, yaml []byte, judge func() error) error {
	if j == nil {
		return judge()
	}
	return j.errs.get(kind+"\x00"+file+"\x00"+string(yaml), judge)
}

// Load reads the course from fsys: course.yaml, lessons/ID/LANG.md and
// labs/DIR/lab.yaml with labs/DIR/LANG.md. It checks everything, runs
// every question in the engine, and returns a Problems error when any
// problem is an error; the Course it returns holds whatever loaded.
func Load(fsys fs.FS) (*Course, error) { return LoadWith(fsys, Options{}) }

// LoadWith is Load with options.
func LoadWith(fsys fs.FS, opt Options) (*Course, error) {
	if opt.Link == nil {
		opt.Link = DefaultLink
	}
	ld := &courseLoader{fsys: fsys, opt: opt, r: &report{}, c: &Course{}, byID: map[string]*Lab{}, broken: map[string]bool{}, yaml: map[*Lab][]byte{}}
	ld.readCourseFile()
	ld.readLabFiles()
	ld.orderLessonsAndLabs()
	ld.readLessonWords()
	ld.readLabWords()
	c := ld.c
	c.Problems = ld.r.ps.sorted()
	if c.Problems.Errors() > 0 {
		return c, c.Problems
	}
	return c, nil
}

// courseLoader is LoadWith's state between its steps, which run in order:
// the course file, the labs' files, the course's order, then each
// lesson's and each lab's words.
type courseLoader struct {
	fsys fs.FS
	opt  Options
	r    *report
	c    *Course
	refs []lessonRef

	byID   map[string]*Lab
	broken map[string]bool   // lab directories whose lab.yaml did not load
	labs   []*Lab            // in directory order
	titles map[string]string // lab id/lang: title, as titleFromFile read it
	yaml   map[*Lab][]byte   // each lab's lab.yaml, kept for opt.judged

	// When course.yaml does not load, every lab is in no lesson and every
	// lesson link is broken: those follow from its error, listed after it.
	courseProblem int
	courseLoaded  bool
}

// lessonRef is a lesson as the course file lists it.
type lessonRef struct {
	id   string
	at   pos
	labs []labRef
}

type labRef struct {
	id string
	at pos
}

// followsCourse marks problem n as following from the course file's error,
// if the course file did not load.
func (ld *courseLoader) followsCourse(n int) {
	r := ld.r
	if !ld.courseLoaded && ld.courseProblem < len(r.ps) && n < len(r.ps) {
		c := r.ps[ld.courseProblem]
		r.causedBy(n, pos{c.File, c.Line, c.Col}, "follows from the error at")
	}
}

// readCourseFile reads course.yaml: its lessons, in order, and their labs.
func (ld *courseLoader) readCourseFile() {
	r := ld.r
	data, err := readContent(ld.fsys, CourseFile)
	ld.courseProblem = len(r.ps)
	if err != nil {
		r.errorf(pos{file: CourseFile}, "missing file: the course file orders lessons and labs (%v)", unwrapPathErr(err))
		return
	}
	root, ok := parseYAML(r, CourseFile, data, 0)
	if !ok {
		return
	}
	ld.courseLoaded = true
	y := ynode{n: root, file: CourseFile}
	kvs, _ := y.mapping(r, "the course file")
	knownKeys(r, kvs, "the course file", "lessons")
	for _, e := range kvs {
		if e.key != "lessons" {
			continue
		}
		items, _ := e.val.seq(r, "lessons")
		for _, it := range items {
			ld.readLessonRef(it)
		}
	}
}

// readLessonRef reads one lesson of the course file: id: and labs:.
func (ld *courseLoader) readLessonRef(it ynode) {
	r := ld.r
	lkvs, ok := it.mapping(r, "a lesson")
	if !ok {
		return
	}
	knownKeys(r, lkvs, "a lesson", "id", "labs")
	var ref lessonRef
	for _, le := range lkvs {
		switch le.key {
		case "id":
			if s, ok := le.val.str(r, "id"); ok && checkID(r, le.val, s, "lesson") {
				ref.id, ref.at = s, le.val.pos()
			}
		case "labs":
			labs, _ := le.val.seq(r, "labs")
			for _, lb := range labs {
				if s, ok := lb.str(r, "a lab id"); ok {
					ref.labs = append(ref.labs, labRef{s, lb.pos()})
				}
			}
		}
	}
	switch {
	case ref.id == "":
		r.errorf(it.pos(), "a lesson needs id:")
	case slices.ContainsFunc(ld.refs, func(x lessonRef) bool { return x.id == ref.id }):
		r.errorf(ref.at, "duplicate lesson id %q", ref.id)
	default:
		ld.refs = append(ld.refs, ref)
	}
}

// readLabFiles reads every labs/*/lab.yaml, in directory order; the
// course orders them later.
func (ld *courseLoader) readLabFiles() {
	r := ld.r
	labFiles, _ := fs.Glob(ld.fsys, "labs/*/lab.yaml")
	for _, file := range labFiles {
		data, err := readContent(ld.fsys, file)
		if err != nil {
			r.errorf(pos{file: file}, "cannot read: %v", unwrapPathErr(err))
			continue
		}
		l := parseLabFile(r, file, data)
		if l == nil {
			// Links to a lab that did not load are not broken too.
			ld.broken[path.Base(path.Dir(file))] = true
			continue
		}
		l.dir, l.link, l.root = path.Dir(file), ld.link, ld.opt.Root
		if other := ld.byID[l.ID]; other != nil {
			r.errorf(l.at, "duplicate lab id %q: %s has it too", l.ID, other.file)
			continue
		}
		ld.byID[l.ID] = l
		ld.labs = append(ld.labs, l)
		if ld.opt.judged != nil {
			ld.yaml[l] = data
		}
	}
	if dirs, err := fs.ReadDir(ld.fsys, "labs"); err == nil {
		for _, d := range dirs {
			if d.IsDir() && !slices.Contains(labFiles, "labs/"+d.Name()+"/lab.yaml") {
				r.errorf(pos{file: "labs/" + d.Name() + "/lab.yaml"}, "missing file: every directory under labs/ holds a lab.yaml")
			}
		}
	}
}

// orderLessonsAndLabs puts lessons and labs in the course's order, and
// reports labs and lessons the course leaves out.
func (ld *courseLoader) orderLessonsAndLabs() {
	r, c := ld.r, ld.c
	placed := map[string]bool{}
	for _, ref := range ld.refs {
		ls := &Lesson{ID: ref.id, titles: map[string]string{}, html: map[string]template.HTML{}}
		for _, lr := range ref.labs {
			l := ld.byID[lr.id]
			switch {
			case l == nil && ld.broken[lr.id]:
			case l == nil:
				r.errorf(lr.at, "lesson %s links to unknown lab %q (labs: %s)", ref.id, lr.id, strings.Join(sortedKeys(ld.byID), ", "))
			case placed[lr.id]:
				r.errorf(lr.at, "lab %s is listed twice in the course", lr.id)
			default:
				placed[lr.id] = true
				l.Lesson = ref.id
				ls.Labs = append(ls.Labs, lr.id)
				c.Labs = append(c.Labs, l)
			}
		}
		c.Lessons = append(c.Lessons, ls)
	}
	for _, l := range ld.labs {
		if !placed[l.ID] {
			n := len(r.ps)
			r.errorf(l.at, "lab %s is in no lesson of %s, so nothing leads to it", l.ID, CourseFile)
			ld.followsCourse(n)
			c.Labs = append(c.Labs, l)
		}
	}
	if dirs, err := fs.ReadDir(ld.fsys, "lessons"); err == nil {
		for _, d := range dirs {
			if d.IsDir() && c.Lesson(d.Name()) == nil {
				n := len(r.ps)
				r.errorf(pos{file: "lessons/" + d.Name()}, "lesson %s is not in %s", d.Name(), CourseFile)
				ld.followsCourse(n)
			}
		}
	}
}

// readLessonWords reads each lesson's words in each language.
func (ld *courseLoader) readLessonWords() {
	r := ld.r
	for i, ls := range ld.c.Lessons {
		for _, lang := range Langs {
			file := "lessons/" + ls.ID + "/" + lang + ".md"
			data, err := readContent(ld.fsys, file)
			if err != nil {
				if lang == DefaultLang {
					r.errorf(ld.refs[i].at, "lesson %s: missing file %s", ls.ID, file)
				} else {
					r.warnf(pos{file: file}, "missing %s translation of lesson %s; readers see %s", langNames[lang], ls.ID, langNames[DefaultLang])
				}
				continue
			}
			title, body, bodyLine := readTitle(r, file, string(data), "a lesson starts with front matter: ---, title: ..., ---", r.errorf)
			ls.titles[lang] = title
			ld.checkLinks(body, file, bodyLine, ls.ID)
			ls.html[lang] = renderMarkdown(body, lang, ld.link)
		}
	}
}

// readLabWords verifies each lab in the engine and reads its words in
// each language.
func (ld *courseLoader) readLabWords() {
	r := ld.r
	for _, l := range ld.labs {
		r2 := &report{}
		if l.program != nil && l.program.readFiles(r2, ld.fsys, l.dir) {
			l.program.useStart()
		}
		once := func(kind string, judge func() error) error {
			return ld.opt.judged.once(kind, l.file, ld.yaml[l], judge)
		}
		runs := ld.opt.judged.verify(r2, l, ld.yaml[l], once)
		r.ps = append(r.ps, r2.ps...)
		l.text = map[string]*labText{}
		for _, lang := range Langs {
			file := l.dir + "/" + lang + ".md"
			data, err := readContent(ld.fsys, file)
			if err != nil {
				if lang == DefaultLang {
					r.errorf(pos{file: file}, "missing file: lab %s needs its %s words here", l.ID, langNames[lang])
				} else {
					r.warnf(pos{file: file}, "missing %s translation of lab %s; readers see %s", langNames[lang], l.ID, langNames[DefaultLang])
				}
				continue
			}
			_, _, body, bodyLine, _ := frontMatter(string(data))
			ld.checkLinks(body, file, bodyLine, "")
			l.text[lang] = parseLabText(r, l, lang, file, data, runs)
		}
	}
}

// readContent reads a content file without the UTF-8 byte order mark
// some editors put first: it is not part of the text.
func readContent(fsys fs.FS, name string) ([]byte, error) {
	data, err := fs.ReadFile(fsys, name)
	return stripBOM(data), err
}

func stripBOM(data []byte) []byte { return bytes.TrimPrefix(data, []byte("\ufeff")) }

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// LoadLabFile reads one lab.yaml on its own, without its words or its
// course, for running its scenario headless. Its questions are not run.
func LoadLabFile(name string, data []byte) (*Lab, error) {
	r := &report{}
	l := parseLabFile(r, name, stripBOM(data))
	if ps := r.ps.sorted(); ps.Errors() > 0 {
		return l, ps
	}
	if l == nil {
		return nil, Problems{{File: name, Msg: "not a lab file"}}
	}
	l.text, l.link = map[string]*labText{}, DefaultLink
	return l, nil
}
