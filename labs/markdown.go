package labs

import (
	"bytes"
	"fmt"
	"html/template"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// markdown renders content with goldmark's defaults: CommonMark, and raw
// HTML left out (it is not enabled), so content cannot inject markup.
var markdown = goldmark.New()

// LinkFunc maps a link inside content, such as "lab:w1-w2" (kind "lab",
// id "w1-w2"), to the URL the reader follows, in language lang. A link to
// one goal or question of a lab, "lab:redlock-pause#forgotten", reaches it
// as id "redlock-pause#forgotten"; the loader's own LinkFunc turns the
// part after "#" into the lab page's anchor for it.
type LinkFunc func(lang, kind, id string) string

// DefaultLink is the URL scheme used when Load is given none:
// /{lang}/labs/{id} and /{lang}/lessons/{id}.
func DefaultLink(lang, kind, id string) string {
	return "/" + lang + "/" + kind + "s/" + id
}

// renderMarkdown renders src, rewriting lab: and lesson: links with link.
func renderMarkdown(src, lang string, link LinkFunc) template.HTML {
	if strings.TrimSpace(src) == "" {
		return ""
	}
	b := []byte(src)
	doc := markdown.Parser().Parse(text.NewReader(b))
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if l, ok := n.(*gast.Link); ok && entering {
			if kind, id, ok := contentLink(string(l.Destination)); ok && link != nil {
				l.Destination = []byte(link(lang, kind, id))
			}
		}
		return gast.WalkContinue, nil
	})
	var out bytes.Buffer
	if err := markdown.Renderer().Render(&out, b, doc); err != nil {
		return template.HTML(template.HTMLEscapeString(src))
	}
	return template.HTML(out.String()) //nolint:gosec // goldmark escapes text and drops raw HTML
}

func contentLink(dest string) (kind, id string, ok bool) {
	for _, k := range []string{"lab", "lesson"} {
		if id, ok := strings.CutPrefix(dest, k+":"); ok {
			return k, id, true
		}
	}
	return "", "", false
}

var linkRE = regexp.MustCompile(`\]\(\s*<?(lab|lesson):([^)\s>]*)`)

// linkTextRE finds a content link with its text: [text](lab:id).
var linkTextRE = regexp.MustCompile(`\[([^\[\]]*)\]\(\s*<?(lab|lesson):([^)\s>]*)`)

// contentLinks finds lab: and lesson: links in a Markdown source with
// their positions; line is the file line of src's first line.
func contentLinks(src string, file string, line int) []struct {
	kind, id string
	at       pos
} {
	var out []struct {
		kind, id string
		at       pos
	}
	for i, l := range strings.Split(src, "\n") {
		for _, m := range linkRE.FindAllStringSubmatchIndex(l, -1) {
			out = append(out, struct {
				kind, id string
				at       pos
			}{l[m[2]:m[3]], l[m[4]:m[5]], pos{file, line + i, m[2] + 1}})
		}
	}
	return out
}

// frontMatter splits "---\nYAML\n---\n" from the top of a Markdown file.
// fmOffset is the number of lines above the YAML; bodyLine is the file
// line the body starts on.
func frontMatter(src string) (fm string, fmOffset int, body string, bodyLine int, ok bool) {
	if !strings.HasPrefix(src, "---\n") && !strings.HasPrefix(src, "---\r\n") {
		return "", 0, src, 1, false
	}
	lines := strings.SplitAfter(src, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r\n") == "---" {
			return strings.Join(lines[1:i], ""), 1, strings.Join(lines[i+1:], ""), i + 2, true
		}
	}
	return "", 0, src, 1, false
}

// section is a part of a lab's Markdown file, opened by a heading such as
// "## Question storage-checks" or "### Hint".
type section struct {
	kind string // "", question, goal, steps, choice, hint, explanation
	id   string
	at   pos
	line int // file line of the first body line
	body []string
	subs []*section
	// unknown are misspelt headings inside this section: what they would
	// have held is missing, and that is their fault.
	unknown []pos
}

func (s *section) text() string { return strings.TrimSpace(strings.Join(s.body, "\n")) }

// plain joins a section's paragraph into one line of plain text.
func (s *section) plain() string { return strings.Join(strings.Fields(s.text()), " ") }

// headingWords are the heading keywords, in English and Indonesian.
var headingWords = map[string]string{
	"question": "question", "pertanyaan": "question",
	"goal": "goal", "tugas": "goal",
	"choice": "choice", "pilihan": "choice",
	"hint": "hint", "petunjuk": "hint",
	"explanation": "explanation", "pembahasan": "explanation",
	"steps": "steps", "langkah": "steps",
}

// headingLevel is the level each heading keyword is written at.
var headingLevel = map[string]int{"question": 2, "goal": 2, "choice": 3, "hint": 3, "explanation": 3}

// headingNames are the keywords as an author writes them, for messages.
var headingNames = map[string][2]string{
	"question": {"Pertanyaan", "Question"}, "goal": {"Tugas", "Goal"}, "choice": {"Pilihan", "Choice"},
	"hint": {"Petunjuk", "Hint"}, "explanation": {"Pembahasan", "Explanation"},
}

// keyword is the heading word for a section kind in a language's file:
// Indonesian in id.md, English elsewhere.
func keyword(lang, kind string) string {
	if lang == "id" {
		return headingNames[kind][0]
	}
	return headingNames[kind][1]
}

// nearHeading is the heading keyword a misspelt word was most likely
// meant to be, if it is within two typing mistakes of one.
func nearHeading(word string) (keyword string, ok bool) {
	w := strings.ToLower(word)
	if len(w) < 4 {
		return "", false
	}
	best, bestD := "", 3
	for k := range headingWords {
		if d := editDistance(w, k); d < bestD || d == bestD && k < best {
			best, bestD = k, d
		}
	}
	return best, best != ""
}

// editDistance counts the letters to insert, delete, change or swap to
// turn a into b.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			c := 1
			if x[i-1] == y[j-1] {
				c = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+c)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// splitSections cuts a lab's Markdown body into the prose and its
// question and goal sections. Lines inside code fences are never headings.
func splitSections(r *report, file, body string, firstLine int) *section {
	root := &section{line: firstLine, at: pos{file, firstLine, 1}}
	sp := &sectionSplitter{r: r, file: file, root: root, cur: root}
	fence := ""
	for i, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		case strings.HasPrefix(l, "## "):
			sp.heading(l, firstLine+i, 2)
			continue
		case strings.HasPrefix(l, "### "):
			sp.heading(l, firstLine+i, 3)
			continue
		default:
			if sp.misformed(l, firstLine+i) {
				continue
			}
		}
		sp.cur.body = append(sp.cur.body, l)
	}
	return root
}

// sectionSplitter is splitSections' state: the file's root section, the
// "##" section open (top) and the section lines go to (cur).
type sectionSplitter struct {
	r         *report
	file      string
	root, top *section
	cur       *section
}

// discard sends the lines up to the next heading nowhere: they are under a
// heading that is wrong, which is reported.
func (sp *sectionSplitter) discard() { sp.cur = &section{} }

// heading reads line l, a heading of the given level: it opens a section,
// or reports a heading that cannot, or is plain text after all.
func (sp *sectionSplitter) heading(l string, lineNo, level int) {
	f := strings.Fields(l[level+1:])
	kind := ""
	if len(f) > 0 {
		kind = headingWords[strings.ToLower(f[0])]
	}
	at := pos{sp.file, lineNo, level + 2}
	switch {
	case level == 2 && kind == "steps":
		if len(f) != 1 {
			sp.r.errorf(at, "\"## %s\" takes nothing after it", f[0])
		}
		sp.openTop(&section{kind: kind, at: at, line: lineNo + 1})
	case level == 2 && (kind == "question" || kind == "goal"):
		if len(f) != 2 {
			sp.r.errorf(at, "a %s heading is \"## %s ID\" with the id used in lab.yaml", kind, f[0])
			sp.discard()
			return
		}
		sp.openTop(&section{kind: kind, id: f[1], at: pos{sp.file, lineNo, level + 2 + len(f[0]) + 1}, line: lineNo + 1})
	case level == 3 && (kind == "choice" || kind == "hint" || kind == "explanation"):
		sp.questionPart(kind, f, at, lineNo)
	case kind != "":
		// A keyword at the wrong level: "## Pilihan x" or "### Pertanyaan q".
		hashes := strings.Repeat("#", headingLevel[kind])
		sp.r.errorf(at, "%q: a %s heading is written %s %s", strings.TrimSpace(l), strings.ToLower(headingNames[kind][1]), hashes, strings.Join(f, " "))
		markUnknown(sp.root, sp.top, headingLevel[kind], at)
		sp.discard()
	default:
		if len(f) > 0 {
			if k, ok := nearHeading(f[0]); ok {
				word := headingNames[headingWordKind(k)]
				suggest := strings.Repeat("#", headingLevel[headingWordKind(k)]) + " " + strings.Join(append([]string{matchCase(f[0], k)}, f[1:]...), " ")
				sp.r.errorf(at, "unknown heading %q: did you mean %q (%s/%s)?", strings.TrimSpace(l), suggest, word[0], word[1])
				markUnknown(sp.root, sp.top, headingLevel[headingWordKind(k)], at)
				sp.discard()
				return
			}
		}
		sp.cur.body = append(sp.cur.body, l)
	}
}

func (sp *sectionSplitter) openTop(s *section) {
	sp.top = s
	sp.root.subs = append(sp.root.subs, s)
	sp.cur = s
}

// questionPart opens a question's choice, hint or explanation.
func (sp *sectionSplitter) questionPart(kind string, f []string, at pos, lineNo int) {
	if sp.top == nil || sp.top.kind != "question" {
		sp.r.errorf(at, "\"### %s\" belongs under a \"## Question ID\" heading", f[0])
		sp.discard()
		return
	}
	s := &section{kind: kind, at: at, line: lineNo + 1}
	switch {
	case kind == "choice" && len(f) != 2:
		sp.r.errorf(at, "a choice heading is \"### %s ID\" with the choice's id from lab.yaml", f[0])
		sp.discard()
		return
	case kind == "choice":
		s.id = f[1]
		s.at.col += len(f[0]) + 1
	case len(f) != 1:
		sp.r.errorf(at, "\"### %s\" takes nothing after it", f[0])
	}
	sp.top.subs = append(sp.top.subs, s)
	sp.cur = s
}

// misformed reports line l when it was meant to be a heading but is not
// written as one (misformedHeading): "##Pertanyaan x" is a paragraph to
// Markdown. It says what the line looks like it meant, and what that
// heading would have opened follows from it.
func (sp *sectionSplitter) misformed(l string, lineNo int) bool {
	at, what, meant, kind, ok := misformedHeading(sp.file, lineNo, l)
	if !ok {
		return false
	}
	sp.r.errorf(at, "%q is not a heading (%s): did you mean %q?", strings.TrimSpace(l), what, meant)
	markUnknown(sp.root, sp.top, headingLevel[kind], at)
	sp.discard()
	return true
}

// misformedHeading recognises a line that was meant to be a question,
// goal, steps, choice, hint or explanation heading but is not written as
// one: no space after the hashes ("##Pertanyaan x") or the wrong number of
// them ("# Pertanyaan x", "####Pilihan a"). It gives where it is, what is
// wrong, the heading meant and its kind.
func misformedHeading(file string, lineNo int, l string) (at pos, what, meant, kind string, ok bool) {
	n := len(l) - len(strings.TrimLeft(l, "#"))
	if n == 0 || n > 6 {
		return pos{}, "", "", "", false
	}
	rest := l[n:]
	f := strings.Fields(rest)
	if len(f) == 0 {
		return pos{}, "", "", "", false
	}
	word := strings.ToLower(f[0])
	if headingWords[word] == "" {
		k, near := nearHeading(word)
		if !near || strings.HasPrefix(rest, " ") {
			// "# Background" is prose; only a heading written without
			// its space is taken for a misspelt keyword.
			return pos{}, "", "", "", false
		}
		word, f[0] = k, matchCase(f[0], k)
	}
	kind = headingWords[word]
	want := headingLevel[kind]
	if kind == "steps" {
		want = 2
	}
	switch {
	case !strings.HasPrefix(rest, " ") && n == want:
		what = "no space after " + strings.Repeat("#", n)
	case !strings.HasPrefix(rest, " "):
		what = fmt.Sprintf("no space after the hashes, and a %s heading has %d", strings.ToLower(headingName(kind)), want)
	default:
		what = fmt.Sprintf("a %s heading has %d hashes, not %d", strings.ToLower(headingName(kind)), want, n)
	}
	return pos{file, lineNo, 1}, what, strings.Repeat("#", want) + " " + strings.Join(f, " "), kind, true
}

// headingName is a section kind's English keyword, for messages.
func headingName(kind string) string {
	if kind == "steps" {
		return "Steps"
	}
	return headingNames[kind][1]
}

// headingWordKind is the section kind of a heading keyword.
func headingWordKind(word string) string { return headingWords[word] }

// matchCase writes keyword capitalised as the author wrote word.
func matchCase(word, keyword string) string {
	if word != "" && strings.ToUpper(word[:1]) == word[:1] {
		return strings.ToUpper(keyword[:1]) + keyword[1:]
	}
	return keyword
}

// markUnknown notes a heading that did not open its section (of the
// given level) on the section whose content it would have been part of.
func markUnknown(root, top *section, level int, at pos) {
	if level == 3 && top != nil {
		top.unknown = append(top.unknown, at)
		return
	}
	root.unknown = append(root.unknown, at)
}
