package labs

import (
	"regexp"
	"slices"
	"strings"
)

// Links between texts. A lesson or a lab's words link to a lab, to one
// goal or question of it (lab:redlock-pause#forgotten), or to a lesson,
// always by id; check holds them to what exists and to what they say:
//
//   - a link to a lab, goal, question or lesson that does not exist is an
//     error at the link;
//   - a link to a lesson names the lesson, not its place ("the first
//     lesson" goes stale when the course is reordered, and cannot be
//     checked against what the lesson teaches); "previous" and "next" are
//     allowed where they are true;
//   - a text that names a lab ("the lab clock assumptions") or quotes a
//     lab's or goal's id in code (`forgotten`) links to it, so that a
//     reader reaches what it names and check sees the claim.

// link is the loader's LinkFunc: opt.Link, with a goal's or a question's
// id after "#" made the lab page's anchor for it.
func (ld *courseLoader) link(lang, kind, id string) string {
	base, frag, ok := strings.Cut(id, "#")
	u := ld.opt.Link(lang, kind, base)
	if !ok {
		return u
	}
	if l := ld.byID[base]; l != nil && kind == "lab" {
		switch {
		case l.Goal(frag) != nil:
			frag = "goal-" + frag
		case l.Question(frag) != nil:
			frag = "q-" + frag
		}
	}
	return u + "#" + frag
}

// checkLinks reports the links of a text to lessons, labs and their
// goals and questions that do not exist; a lesson link that says a place
// in the course instead of the lesson; and a lab or id named without a
// link. lesson is the lesson the text belongs to ("" when none).
func (ld *courseLoader) checkLinks(src, file string, line int, lesson string) {
	for _, ln := range contentLinks(src, file, line) {
		base, frag, hasFrag := strings.Cut(ln.id, "#")
		known := ld.c.Lesson(base) != nil
		if ln.kind == "lab" {
			known = ld.byID[base] != nil || ld.broken[base]
		}
		switch {
		case !known:
			n := len(ld.r.ps)
			ld.r.errorf(ln.at, "broken link: no %s %q", ln.kind, base)
			if ln.kind == "lesson" {
				ld.followsCourse(n)
			}
		case hasFrag && ln.kind == "lesson":
			ld.r.errorf(fragPos(ln.at, ln.kind, base), "broken link: a lesson link takes no #part; link the lesson (lesson:%s) or a lab's goal (lab:ID#GOAL)", base)
		case hasFrag && ld.byID[base] != nil:
			l := ld.byID[base]
			if l.Goal(frag) == nil && l.Question(frag) == nil {
				ld.r.errorf(fragPos(ln.at, ln.kind, base), "broken link: lab %s has no goal or question %q (%s)", base, frag, strings.Join(partIDs(l), ", "))
			}
		}
	}
	ld.checkLinkWords(src, file, line, lesson)
	ld.checkNamedLabs(src, file, line)
}

// fragPos is the position of the "#" of a link at at.
func fragPos(at pos, kind, base string) pos {
	at.col += len(kind) + 1 + len(base)
	return at
}

// partIDs are a lab's goals' and questions' ids, for a message.
func partIDs(l *Lab) []string {
	var out []string
	for _, g := range l.Goals {
		out = append(out, g.ID)
	}
	for _, q := range l.Questions {
		out = append(out, q.ID)
	}
	return out
}

// placeWords are the words of a link's text that say a lesson's place in
// the course rather than the lesson: ordinals, and (where they are true)
// previous and next.
var placeWords = map[string]string{
	"first": "ordinal", "second": "ordinal", "third": "ordinal", "fourth": "ordinal", "fifth": "ordinal", "sixth": "ordinal", "seventh": "ordinal",
	"pertama": "ordinal", "kedua": "ordinal", "ketiga": "ordinal", "keempat": "ordinal", "kelima": "ordinal", "keenam": "ordinal", "ketujuh": "ordinal",
	"previous": "previous", "sebelumnya": "previous", "last": "previous",
	"next": "next", "berikutnya": "next", "selanjutnya": "next",
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}-]+`)

// checkLinkWords reports a lesson link whose text says the lesson's place
// ("the first lesson") rather than the lesson, and one that says
// "previous" or "next" of a lesson that is not.
func (ld *courseLoader) checkLinkWords(src, file string, line int, lesson string) {
	for _, ln := range linkTexts(src, file, line) {
		if ln.kind != "lesson" || ld.c.Lesson(ln.id) == nil {
			continue
		}
		for _, w := range wordRE.FindAllString(strings.ToLower(ln.text), -1) {
			switch placeWords[w] {
			case "ordinal":
				ld.r.errorf(ln.at, "the link [%s] says a lesson's place, not the lesson: name what lesson %s teaches (\"%s\"), which stays true when the course is reordered", ln.text, ln.id, ld.lessonTitle(ln.id, file))
			case "previous", "next":
				if want := ld.neighbour(lesson, placeWords[w]); want != ln.id {
					ld.r.errorf(ln.at, "the link [%s] says the %s lesson, but lesson:%s is not (%s); name the lesson instead", ln.text, placeWords[w], ln.id, neighbourName(want))
				}
			}
		}
	}
}

func neighbourName(id string) string {
	if id == "" {
		return "there is none here"
	}
	return "that is lesson:" + id
}

// neighbour is the lesson before or after lesson in the course ("" when
// there is none, or when the text is no lesson's).
func (ld *courseLoader) neighbour(lesson, dir string) string {
	i := slices.IndexFunc(ld.c.Lessons, func(l *Lesson) bool { return l.ID == lesson })
	if i < 0 {
		return ""
	}
	if dir == "previous" {
		i--
	} else {
		i++
	}
	if i < 0 || i >= len(ld.c.Lessons) {
		return ""
	}
	return ld.c.Lessons[i].ID
}

// lessonTitle is lesson id's title in the language of file, as far as it
// is read yet.
func (ld *courseLoader) lessonTitle(id, file string) string {
	if l := ld.c.Lesson(id); l != nil {
		if t := l.titles[langOfFile(file)]; t != "" {
			return t
		}
	}
	return id
}

func langOfFile(file string) string {
	for _, lang := range Langs {
		if strings.HasSuffix(file, "/"+lang+".md") {
			return lang
		}
	}
	return DefaultLang
}

// linkTexts finds the content links of a Markdown source with their text,
// which may run over lines; at is where the text starts.
func linkTexts(src, file string, line int) []struct {
	text, kind, id string
	at             pos
} {
	var out []struct {
		text, kind, id string
		at             pos
	}
	for _, m := range linkTextRE.FindAllStringSubmatchIndex(src, -1) {
		ln := line + strings.Count(src[:m[2]], "\n")
		col := m[2] - strings.LastIndexByte(src[:m[2]], '\n')
		out = append(out, struct {
			text, kind, id string
			at             pos
		}{strings.Join(strings.Fields(src[m[2]:m[3]]), " "), src[m[4]:m[5]], src[m[6]:m[7]], pos{file, ln, col}})
	}
	return out
}

// namedLabRE finds "lab" and the words after it, up to the end of the
// sentence or line.
var namedLabRE = regexp.MustCompile(`(?i)\blab\s+([^.,;:()\[\]\n]+)`)

// namedLabAt is namedLabRE anchored where its \b has been seen to hold.
var namedLabAt = regexp.MustCompile(`^(?i)lab\s+([^.,;:()\[\]\n]+)`)

// namedLabs is namedLabRE.FindAllStringSubmatchIndex(s, -1), found
// faster: the expression, case-folded and without a literal to look for
// first, was tried at every byte of every lab's and lesson's words (a
// sixth of a course load's CPU). A match starts at a "lab" in any case
// after a byte that is not a word's (\b: ASCII letters, digits and _), so
// namedLabAt is tried there only; matches do not overlap, as
// FindAll's do not (TestNamedLabsIsTheExpression).
func namedLabs(s string) [][]int {
	var out [][]int
	for i := 0; i+3 <= len(s); {
		if s[i]|0x20 != 'l' || s[i+1]|0x20 != 'a' || s[i+2]|0x20 != 'b' || (i > 0 && isBoundaryWordByte(s[i-1])) {
			i++
			continue
		}
		m := namedLabAt.FindStringSubmatchIndex(s[i:])
		if m == nil {
			i++
			continue
		}
		for k := range m {
			m[k] += i
		}
		out = append(out, m)
		i = m[1]
	}
	return out
}

// isBoundaryWordByte is whether b is a word's byte to \b: an ASCII
// letter, digit or underscore.
func isBoundaryWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b|0x20 && b|0x20 <= 'z'
}

// codeRE finds inline code.
var codeRE = regexp.MustCompile("`([^`\n]+)`")

// checkNamedLabs reports a lab named by its title after the word "lab"
// ("the lab clock assumptions"), and a lab's or a goal's id quoted in
// code, where no link to it is: a reader cannot follow the name, and
// check cannot hold it to the lab.
func (ld *courseLoader) checkNamedLabs(src, file string, line int) {
	lang := langOfFile(file)
	linked := map[string]bool{}
	for _, ln := range contentLinks(src, file, line) {
		if ln.kind == "lab" {
			base, frag, _ := strings.Cut(ln.id, "#")
			linked[base] = true
			linked[base+"#"+frag] = true
		}
	}
	// Link texts and link targets are not names to report.
	plain := linkTextRE.ReplaceAllStringFunc(src, func(m string) string { return strings.Repeat(" ", len(m)) })
	at := func(i int) pos {
		return pos{file, line + strings.Count(plain[:i], "\n"), i - strings.LastIndexByte(plain[:i], '\n')}
	}
	for _, m := range namedLabs(plain) {
		after := strings.ToLower(strings.Join(strings.Fields(plain[m[2]:m[3]]), " "))
		for _, l := range ld.labs {
			t := strings.ToLower(l.titleFromFile(ld, lang))
			if t != "" && strings.HasPrefix(after, t) && !linked[l.ID] {
				ld.r.errorf(at(m[2]), "names lab %s (\"%s\") without a link: write [%s](lab:%s)", l.ID, t, plain[m[2]:m[2]+len(t)], l.ID)
			}
		}
	}
	if !strings.HasPrefix(file, "lessons/") {
		// A lab's words quote options and keys in code, some of which
		// are spelt as a lab's or a goal's id (retry-past-deadline).
		return
	}
	for _, m := range codeRE.FindAllStringSubmatchIndex(plain, -1) {
		word := plain[m[2]:m[3]]
		if l := ld.byID[word]; l != nil && !linked[l.ID] {
			ld.r.errorf(at(m[2]), "quotes lab %s's id without a link: write [...](lab:%s)", word, word)
		}
		for _, l := range ld.labs {
			if l.Goal(word) != nil && !linked[l.ID+"#"+word] {
				ld.r.errorf(at(m[2]), "quotes goal %s of lab %s without a link: write [...](lab:%s#%s)", word, l.ID, l.ID, word)
			}
		}
	}
}

// titleFromFile is lab l's title in lang as its file gives it, read
// before the lab's words are parsed (the words of a lab later in the
// course may name one earlier, and the other way round).
func (l *Lab) titleFromFile(ld *courseLoader, lang string) string {
	if t, ok := ld.titles[l.ID+"/"+lang]; ok {
		return t
	}
	t := ""
	if data, err := readContent(ld.fsys, l.dir+"/"+lang+".md"); err == nil {
		if fm, _, _, _, ok := frontMatter(string(data)); ok {
			for _, ln := range strings.Split(fm, "\n") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(ln), "title:"); ok {
					t = strings.Trim(strings.TrimSpace(v), `"'`)
				}
			}
		}
	}
	if ld.titles == nil {
		ld.titles = map[string]string{}
	}
	ld.titles[l.ID+"/"+lang] = t
	return t
}
