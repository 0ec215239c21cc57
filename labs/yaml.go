package labs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// The content's YAML is read through its syntax tree rather than decoded
// into structs, so that every value keeps its line and column and every
// scalar keeps the text the author wrote ("on" stays "on").

// parseYAML parses one YAML document. lineOffset is added to every line,
// for front matter that starts below the top of its file.
func parseYAML(r *report, file string, data []byte, lineOffset int) (ast.Node, bool) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		at := pos{file: file, line: 1 + lineOffset, col: 1}
		msg := err.Error()
		var ye yaml.Error
		if errors.As(err, &ye) {
			msg = ye.GetMessage()
			if t := ye.GetToken(); t != nil && t.Position != nil {
				at.line, at.col = t.Position.Line+lineOffset, t.Position.Column
				if hint := yamlHint(string(data), msg, t.Position.Line, t.Position.Column, t.Value); hint != "" {
					r.errorf(at, "YAML: %s; %s", msg, hint)
					return nil, false
				}
			}
		}
		r.errorf(at, "YAML: %s", msg)
		return nil, false
	}
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		return nil, true
	}
	if len(f.Docs) > 1 {
		r.errorf(pos{file, 1 + lineOffset, 1}, "one YAML document per file, found %d", len(f.Docs))
		return nil, false
	}
	return f.Docs[0].Body, true
}

// yamlHint says, after the parser's own message, how it read the line
// and what fits there: what an author needs to mend an indent. line and
// col are the parser's (1-based, within data); value is the token's text.
func yamlHint(data, msg string, line, col int, value string) string {
	lines := strings.Split(data, "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	indentOf := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	blank := func(l string) bool {
		t := strings.TrimSpace(l)
		return t == "" || strings.HasPrefix(t, "#")
	}
	switch {
	case strings.Contains(msg, "cannot start any token") && strings.Contains(lines[line-1]+value, "\t"):
		return "a tab is not allowed in YAML's indentation; indent with spaces"
	case strings.HasPrefix(msg, "mapping value is not allowed"):
		// The value of the key on this line runs on: either "key: a: b"
		// on one line, or the next line, indented deeper than its key,
		// read as more of this value.
		key := strings.TrimSpace(strings.SplitN(strings.TrimLeft(lines[line-1], " -"), ":", 2)[0])
		if !strings.Contains(value, " ") || line >= len(lines) {
			return fmt.Sprintf("the value of %q is read as another \"key: value\" on the same line: put the inner key on a line of its own, indented under %q", key, key)
		}
		next := line
		for next < len(lines) && blank(lines[next]) {
			next++
		}
		return fmt.Sprintf("line %d is indented deeper (%d spaces) than the key %q above it (%d), so it was read as more of that key's value (%q); a key beside %q starts at %d spaces", next+1, indentOf(lines[min(next, len(lines)-1)]), key, indentOf(lines[line-1]), value, key, indentOf(lines[line-1]))
	case strings.HasPrefix(msg, "value is not allowed"):
		// The line's indent matches none of the keys or items above it.
		have := col - 1
		var fits []string
		last := 1 << 30
		for i := line - 2; i >= 0 && last > 0; i-- {
			if blank(lines[i]) {
				continue
			}
			if in := indentOf(lines[i]); in < last {
				fits = append(fits, fmt.Sprintf("%d (as line %d)", in, i+1))
				last = in
			}
		}
		if len(fits) == 0 {
			return ""
		}
		return fmt.Sprintf("line %d is indented %d spaces, which lines up with nothing above it: a key or a list item starts exactly where the ones beside it do, here at %s", line, have, strings.Join(fits, ", "))
	case strings.Contains(msg, "must be specified"):
		return "a list in [ ] or a mapping in { } is not closed the way it was opened"
	}
	return ""
}

// ynode is a YAML node with the file it came from.
type ynode struct {
	n          ast.Node
	file       string
	lineOffset int
}

func (y ynode) pos() pos {
	if y.n == nil {
		return pos{file: y.file, line: 1 + y.lineOffset, col: 1}
	}
	t := y.n.GetToken()
	if t == nil || t.Position == nil {
		return pos{file: y.file}
	}
	return pos{file: y.file, line: t.Position.Line + y.lineOffset, col: t.Position.Column}
}

func (y ynode) child(n ast.Node) ynode { return ynode{n: n, file: y.file, lineOffset: y.lineOffset} }

// unwrap looks through comments, tags and anchors.
func unwrap(n ast.Node) ast.Node {
	for range 8 {
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		case *ast.CommentGroupNode:
			return nil
		default:
			return n
		}
	}
	return n
}

// kv is one key of a mapping.
type kv struct {
	key   string
	keyAt ynode
	val   ynode
}

// mapping reads a mapping, reporting duplicate keys.
func (y ynode) mapping(r *report, what string) ([]kv, bool) {
	var vals []*ast.MappingValueNode
	switch v := unwrap(y.n).(type) {
	case *ast.MappingNode:
		vals = v.Values
	case *ast.MappingValueNode:
		vals = []*ast.MappingValueNode{v}
	case nil:
		return nil, true
	case *ast.NullNode:
		return nil, true
	default:
		r.errorf(y.pos(), "%s must be a mapping of key: value", what)
		return nil, false
	}
	var out []kv
	seen := map[string]bool{}
	for _, mv := range vals {
		k := y.child(mv.Key)
		ks, ok := k.scalar()
		if !ok {
			r.errorf(k.pos(), "a key in %s must be plain text", what)
			continue
		}
		if seen[ks] {
			r.errorf(k.pos(), "%s has %q twice", what, ks)
			continue
		}
		seen[ks] = true
		out = append(out, kv{key: ks, keyAt: k, val: y.child(mv.Value)})
	}
	return out, true
}

// seq reads a sequence.
func (y ynode) seq(r *report, what string) ([]ynode, bool) {
	switch v := unwrap(y.n).(type) {
	case *ast.SequenceNode:
		var out []ynode
		for _, n := range v.Values {
			out = append(out, y.child(n))
		}
		return out, true
	case nil, *ast.NullNode:
		return nil, true
	}
	r.errorf(y.pos(), "%s must be a list", what)
	return nil, false
}

// scalar is the text of a scalar node as written (unquoted).
func (y ynode) scalar() (string, bool) {
	switch v := unwrap(y.n).(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		if v.Value == nil {
			return "", true
		}
		return v.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return v.GetToken().Value, true
	case *ast.NullNode:
		if t := v.GetToken(); t != nil && t.Value != "null" && t.Value != "~" {
			return "", true
		}
		return "", true
	}
	return "", false
}

func (y ynode) str(r *report, what string) (string, bool) {
	s, ok := y.scalar()
	if !ok {
		r.errorf(y.pos(), "%s must be text", what)
	}
	return s, ok
}

// at is the position of byte offset off inside a one-line scalar, so an
// error in a predicate or a command points at the word that is wrong.
func (y ynode) at(off int) pos {
	p := y.pos()
	t := unwrap(y.n)
	if t == nil {
		return p
	}
	tok := t.GetToken()
	if tok == nil || strings.Contains(strings.TrimSpace(tok.Origin), "\n") {
		return p
	}
	switch tok.Type {
	case token.DoubleQuoteType:
		if strings.Contains(tok.Origin, "\\") {
			return p // escapes shift columns; point at the start
		}
		off++
	case token.SingleQuoteType:
		if strings.Contains(tok.Origin, "''") {
			return p
		}
		off++
	}
	p.col += off
	return p
}
