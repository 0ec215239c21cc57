package content_test

import (
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"testing"

	"leaselab/catalog"
	"leaselab/content"
)

// The glossary (lessons/glosarium) is the authority on the course's words:
// each term once, in its one form, and after "Bukan:" ("Not:" in English)
// the other forms the course does not use for it.

// term is one glossary entry.
type term struct {
	name     string   // the bold term, "worker"
	rejected []string // the forms after Bukan:/Not:
	line     int
}

var (
	entryRE    = regexp.MustCompile(`^- \*\*([^*]+)\*\*`)
	italicRE   = regexp.MustCompile(`\*([^*]+)\*`)
	rejectWord = map[string]string{"id": "Bukan:", "en": "Not:"}
)

// glossary reads lang's glossary entries.
func glossary(t *testing.T, lang string) []term {
	t.Helper()
	data, err := fs.ReadFile(content.FS, "lessons/glosarium/"+lang+".md")
	if err != nil {
		t.Fatal(err)
	}
	var out []term
	var cur *term
	var body strings.Builder
	flush := func() {
		if cur == nil {
			return
		}
		text := strings.Join(strings.Fields(body.String()), " ")
		if _, after, ok := strings.Cut(text, rejectWord[lang]); ok {
			list, _, _ := strings.Cut(after, ".")
			for _, m := range italicRE.FindAllStringSubmatch(list, -1) {
				cur.rejected = append(cur.rejected, m[1])
			}
		}
		out = append(out, *cur)
		cur = nil
		body.Reset()
	}
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case entryRE.MatchString(line):
			flush()
			cur = &term{name: entryRE.FindStringSubmatch(line)[1], line: i + 1}
			body.WriteString(line + " ")
		case cur != nil && strings.HasPrefix(line, "  "):
			body.WriteString(line + " ")
		default:
			flush()
		}
	}
	flush()
	if len(out) < 30 {
		t.Fatalf("the %s glossary has %d terms; the reader is broken", lang, len(out))
	}
	return out
}

// TestGlossaryTermsOnce: every term is in the glossary once.
func TestGlossaryTermsOnce(t *testing.T) {
	for _, lang := range []string{"id", "en"} {
		seen := map[string]int{}
		for _, tm := range glossary(t, lang) {
			for _, name := range strings.Split(tm.name, ", ") {
				if l, ok := seen[name]; ok {
					t.Errorf("lessons/glosarium/%s.md:%d: %q is there already, at line %d", lang, tm.line, name, l)
				}
				seen[name] = tm.line
			}
		}
	}
}

var (
	fenceRE   = regexp.MustCompile("(?s)```.*?```")
	codeRE    = regexp.MustCompile("`[^`\n]*`")
	destRE    = regexp.MustCompile(`\]\([^)]*\)`)
	glossRE   = regexp.MustCompile(`\(\*[^*]+\*[^)]*\)`) // an English term given in brackets
	rejectsRE = regexp.MustCompile(`(?:Bukan|Not):[^.]*\.`)
	typedRE   = regexp.MustCompile(`«[^»]*»`)
)

// readable is what a reader reads of a Markdown text, line for line: no
// code, no link targets, no bracketed glosses, no glossary "Bukan:" list.
func readable(src string) string {
	blank := func(m string) string {
		return regexp.MustCompile(`[^\n]`).ReplaceAllString(m, " ")
	}
	for _, re := range []*regexp.Regexp{fenceRE, codeRE, destRE, glossRE, rejectsRE} {
		src = re.ReplaceAllStringFunc(src, blank)
	}
	return src
}

// formRE matches form as a whole phrase, in any case; a word followed by
// "=" is a command's syntax (delay=2s), not a word.
func formRE(form string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[^\p{L}\p{N}-])(` + strings.ReplaceAll(regexp.QuoteMeta(form), " ", `\s+`) + `)(?:$|[^\p{L}\p{N}=-])`)
}

// TestGlossaryRejectedForms: no lesson, lab text or catalog text uses a
// form the glossary rejects; each is reported with the glossary's word.
func TestGlossaryRejectedForms(t *testing.T) {
	for _, lang := range []string{"id", "en"} {
		type rule struct {
			re   *regexp.Regexp
			form string
			term string
		}
		var rules []rule
		for _, tm := range glossary(t, lang) {
			for _, f := range tm.rejected {
				rules = append(rules, rule{formRE(f), f, tm.name})
			}
		}
		if lang == "id" && len(rules) < 10 {
			t.Fatalf("the id glossary rejects %d forms; the reader is broken", len(rules))
		}
		texts := map[string]string{} // where: text
		files, _ := fs.Glob(content.FS, "lessons/*/"+lang+".md")
		labFiles, _ := fs.Glob(content.FS, "labs/*/"+lang+".md")
		for _, f := range append(files, labFiles...) {
			data, _ := fs.ReadFile(content.FS, f)
			texts[f] = readable(string(data))
		}
		// A catalog text quotes what the reader types «like this»: syntax,
		// not the course's words.
		for _, k := range catalog.Keys(lang) {
			texts["catalog "+lang+" "+k] = typedRE.ReplaceAllString(catalog.T(lang, k), "«»")
		}
		for _, en := range catalog.MessageFormats(lang) {
			said, _ := catalog.MessageFormat(lang, en)
			texts["catalog "+lang+" check "+en] = typedRE.ReplaceAllString(said, "«»")
		}
		var found []string
		for where, text := range texts {
			for _, r := range rules {
				for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
					at := where
					if !strings.HasPrefix(where, "catalog ") {
						at = fmt.Sprintf("%s:%d", where, strings.Count(text[:m[2]], "\n")+1)
					}
					found = append(found, fmt.Sprintf("%s: %q: the glossary says %q", at, text[m[2]:m[3]], r.term))
				}
			}
		}
		sort.Strings(found)
		for _, f := range found {
			t.Error(f)
		}
	}
	// The rule finds what it is for.
	if !formRE("pekerja").MatchString("dua pekerja menulis") || formRE("pekerja").MatchString("pekerjaan") || !formRE("tidak yakin masih memegang").MatchString("W1 tidak yakin\nmasih memegang lease") {
		t.Error("formRE misses what it is for")
	}
}

// TestProseUsesTheLogsWords: where the log names a written key in the
// reader's words ("W1 menulis pesanan"), an Indonesian text does not
// quote the key as code (`orders`): a student must find the prose's words
// in the log.
func TestProseUsesTheLogsWords(t *testing.T) {
	files, _ := fs.Glob(content.FS, "*/*/id.md")
	for _, f := range files {
		data, _ := fs.ReadFile(content.FS, f)
		src := fenceRE.ReplaceAllStringFunc(string(data), func(m string) string { return strings.Repeat("\n", strings.Count(m, "\n")) })
		for _, m := range codeRE.FindAllStringIndex(src, -1) {
			key := strings.Trim(src[m[0]:m[1]], "`")
			if word, ok := catalog.Lookup("id", "object."+key); ok && word != key {
				t.Errorf("%s:%d: `%s` is %q in the log: write %q", f, strings.Count(src[:m[0]], "\n")+1, key, word, word)
			}
		}
	}
}
