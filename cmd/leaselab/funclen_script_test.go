package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The page's scripts (static/*.js) are held to maxFuncLines too. Go's
// parser does not read JavaScript, and a whole one is not needed for
// this: jsFunctions reads just enough of it (strings, template literals,
// regular expressions, comments, brackets) to find each function's
// braces.

// checkJSFunctions fails on any function of the scripts in dir longer
// than maxFuncLines, naming it with its file and line.
func checkJSFunctions(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.js"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no scripts (%v)", dir, err)
	}
	checked := 0
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), name)
		fns, err := jsFunctions(string(src))
		if err != nil {
			t.Errorf("%s:%v", rel, err)
			continue
		}
		checked += len(fns)
		for _, fn := range fns {
			if fn.lines > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines long, more than %d: split it into named steps", rel, fn.line, fn.name, fn.lines, maxFuncLines)
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d script functions checked: the scripts were not read", checked)
	}
}

// jsFunc is a function of a script: its name (or what it is), the line
// it starts on, and how many lines it spans to its closing brace.
type jsFunc struct {
	name        string
	line, lines int
}

// jsReader walks a script once; see jsFunctions.
type jsReader struct {
	src  string
	i    int
	line int
	// prev is the last token read: an identifier or keyword, a
	// punctuator, "=>", or "value" (a number, a string, a template, a
	// regular expression).
	prev string
	// parens are the tokens before each "(" still open, owner the one
	// before the "(" that the last ")" closed, with their lines.
	parens    []jsToken
	owner     jsToken
	arrowLine int
	braces    []jsBrace
	fns       []jsFunc
}

type jsToken struct {
	text string
	line int
}

// jsBrace is an open "{": a function's body (fn), the "${" of a template
// literal (tmpl), or any other block or object.
type jsBrace struct {
	fn, tmpl bool
	name     string
	line     int
}

// jsFunctions finds the functions of a script with a body in braces:
// function declarations and expressions, methods, and arrow functions
// with a block. (An arrow whose body is an expression is not counted:
// it ends where its expression does.)
func jsFunctions(src string) ([]jsFunc, error) {
	r := &jsReader{src: src, line: 1}
	for r.i < len(r.src) {
		if err := r.step(); err != nil {
			return nil, fmt.Errorf("%d: %w", r.line, err)
		}
	}
	if len(r.braces) > 0 {
		return nil, fmt.Errorf("%d: a { is never closed", r.braces[len(r.braces)-1].line)
	}
	return r.fns, nil
}

// step reads one token, or skips a space or a comment.
func (r *jsReader) step() error {
	c, next := r.src[r.i], byte(0)
	if r.i+1 < len(r.src) {
		next = r.src[r.i+1]
	}
	switch {
	case c == '\n':
		r.line++
		r.i++
	case c == ' ' || c == '\t' || c == '\r':
		r.i++
	case c == '/' && next == '/':
		for r.i < len(r.src) && r.src[r.i] != '\n' {
			r.i++
		}
	case c == '/' && next == '*':
		end := strings.Index(r.src[r.i+2:], "*/")
		if end < 0 {
			return fmt.Errorf("a /* comment is never closed")
		}
		r.skip(r.i + 2 + end + 2)
	case c == '"' || c == '\'':
		return r.quoted(c)
	case c == '`':
		r.i++
		return r.template()
	case c == '/' && r.regexAllowed():
		return r.regex()
	case isIdentStart(c):
		start := r.i
		for r.i < len(r.src) && isIdentPart(r.src[r.i]) {
			r.i++
		}
		r.prev = r.src[start:r.i]
	case c >= '0' && c <= '9':
		for r.i < len(r.src) && (isIdentPart(r.src[r.i]) || r.src[r.i] == '.') {
			r.i++
		}
		r.prev = "value"
	case c == '=' && next == '>':
		r.i += 2
		r.prev, r.arrowLine = "=>", r.line
	default:
		r.i++
		return r.punct(c)
	}
	return nil
}

// punct takes a bracket, or any other punctuator.
func (r *jsReader) punct(c byte) error {
	switch c {
	case '(':
		r.parens = append(r.parens, jsToken{r.prev, r.line})
	case ')':
		if len(r.parens) == 0 {
			return fmt.Errorf("a ) closes nothing")
		}
		r.owner = r.parens[len(r.parens)-1]
		r.parens = r.parens[:len(r.parens)-1]
	case '{':
		r.braces = append(r.braces, r.opening())
	case '}':
		if len(r.braces) == 0 {
			return fmt.Errorf("a } closes nothing")
		}
		b := r.braces[len(r.braces)-1]
		r.braces = r.braces[:len(r.braces)-1]
		if b.tmpl {
			return r.template()
		}
		if b.fn {
			r.fns = append(r.fns, jsFunc{b.name, b.line, r.line - b.line + 1})
		}
	}
	r.prev = string(c)
	return nil
}

// opening says what a "{" opens: after "=>", an arrow function's body;
// after ")", a function's or a method's body when the "(" followed a
// name or the keyword function (not if, for, while, switch, catch or
// with); anything else is a block or an object.
func (r *jsReader) opening() jsBrace {
	switch {
	case r.prev == "=>":
		return jsBrace{fn: true, name: "an arrow function", line: r.arrowLine}
	case r.prev == ")" && isIdentStart(firstByte(r.owner.text)):
		switch r.owner.text {
		case "if", "for", "while", "switch", "catch", "with":
			return jsBrace{line: r.line}
		case "function":
			return jsBrace{fn: true, name: "a function", line: r.owner.line}
		}
		return jsBrace{fn: true, name: r.owner.text, line: r.owner.line}
	}
	return jsBrace{line: r.line}
}

// quoted skips a string in quote q.
func (r *jsReader) quoted(q byte) error {
	for r.i++; r.i < len(r.src); r.i++ {
		switch r.src[r.i] {
		case '\\':
			if r.i+1 < len(r.src) && r.src[r.i+1] == '\n' {
				r.line++
			}
			r.i++
		case q:
			r.i++
			r.prev = "value"
			return nil
		case '\n':
			return fmt.Errorf("a string is never closed")
		}
	}
	return fmt.Errorf("a string is never closed")
}

// template skips a template literal's text, from just after its "`" or
// a "}" that closed one of its "${", to its end or its next "${".
func (r *jsReader) template() error {
	for r.i < len(r.src) {
		switch c := r.src[r.i]; {
		case c == '\\':
			r.skip(r.i + 2)
		case c == '`':
			r.i++
			r.prev = "value"
			return nil
		case c == '$' && r.i+1 < len(r.src) && r.src[r.i+1] == '{':
			r.i += 2
			r.braces = append(r.braces, jsBrace{tmpl: true, line: r.line})
			r.prev = "{"
			return nil
		default:
			r.skip(r.i + 1)
		}
	}
	return fmt.Errorf("a template literal is never closed")
}

// regexAllowed says whether a "/" here starts a regular expression
// rather than dividing: at the start, after a punctuator other than a
// closing bracket, and after a keyword that an expression follows.
func (r *jsReader) regexAllowed() bool {
	switch r.prev {
	case "", "=>", "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await":
		return true
	case ")", "]", "}", "value":
		return false
	}
	return !isIdentStart(r.prev[0])
}

// regex skips a regular expression literal and its flags: a "/" inside
// a class ([...]) or after a backslash does not end it.
func (r *jsReader) regex() error {
	class := false
	for r.i++; r.i < len(r.src); r.i++ {
		switch r.src[r.i] {
		case '\\':
			r.i++
		case '[':
			class = true
		case ']':
			class = false
		case '\n':
			return fmt.Errorf("a regular expression is never closed")
		case '/':
			if class {
				continue
			}
			for r.i++; r.i < len(r.src) && isIdentPart(r.src[r.i]); r.i++ {
			}
			r.prev = "value"
			return nil
		}
	}
	return fmt.Errorf("a regular expression is never closed")
}

// skip moves to to, counting the lines it passes.
func (r *jsReader) skip(to int) {
	to = min(to, len(r.src))
	r.line += strings.Count(r.src[r.i:to], "\n")
	r.i = to
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// TestJSFunctionReader: the reader finds each kind of function with its
// line and length, is not misled by braces in strings, templates,
// regular expressions and comments, and checkJSFunctions's rule fails a
// function of 81 lines and passes one of 80.
func TestJSFunctionReader(t *testing.T) {
	body := func(n int) string { return strings.Repeat("  x++;\n", n) }
	src := "// a { in a comment\n" + // 1
		"/* and } in\n another */\n" + // 2-3
		"export function long(a) {\n" + body(79) + "}\n" + // 4-84: 81 lines
		"function fits() {\n" + body(78) + "}\n" + // 85-164: 80 lines
		"const s = \"}\", q = '{', re = /[/}]{2}\\//g, d = 4 / 2 / 1;\n" + // 165
		"const tpl = `${ { a: `}${\"{\"}` }.a } }`;\n" + // 166
		"const arrow = (e) => {\n  if (e) { return; }\n  for (const x of y) { z(); }\n};\n" + // 167-170
		"const o = {\n  open(r) {\n    try { f(); } catch { g(); }\n  },\n  close: function () {\n    switch (k) { case 1: break; }\n  },\n};\n" + // 171-178
		"if (a) { b(); } else { c(); }\n" // 179
	fns, err := jsFunctions(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []jsFunc{{"long", 4, 81}, {"fits", 85, 80}, {"an arrow function", 167, 4}, {"open", 172, 3}, {"a function", 175, 3}}
	if fmt.Sprint(fns) != fmt.Sprint(want) {
		t.Errorf("functions:\n got %v\nwant %v", fns, want)
	}
	var long []string
	for _, fn := range fns {
		if fn.lines > maxFuncLines {
			long = append(long, fn.name)
		}
	}
	if fmt.Sprint(long) != "[long]" {
		t.Errorf("longer than %d lines: %v, want [long]", maxFuncLines, long)
	}
	for _, bad := range []string{"function f() {\n", "const s = 'open;\n", "x = `a${b`;", "f(a));", "y = /abc\n"} {
		if _, err := jsFunctions(bad); err == nil {
			t.Errorf("%q: read without an error", bad)
		}
	}
}
