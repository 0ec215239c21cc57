package labs

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"leaselab/content"
)

// validate checks data (decoded YAML) against the part of JSON Schema the
// course's schemas use: type, enum, pattern, properties, required,
// additionalProperties, patternProperties, minProperties, items, minItems,
// minimum, oneOf. It returns one line per mismatch, with the path to it.
func validate(schema map[string]any, data any, path string) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	if t, ok := schema["type"]; ok {
		var types []string
		switch t := t.(type) {
		case string:
			types = []string{t}
		case []any:
			for _, x := range t {
				types = append(types, x.(string))
			}
		}
		if !slices.Contains(types, jsonType(data)) && !(jsonType(data) == "integer" && slices.Contains(types, "number")) {
			fail("%s, want %s", jsonType(data), strings.Join(types, " or "))
			return errs
		}
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return jsonType(e) == jsonType(data) && fmt.Sprint(e) == fmt.Sprint(data) }) {
		fail("%v is not one of %v", data, enum)
	}
	if p, ok := schema["pattern"].(string); ok {
		if s, ok := data.(string); ok && !regexp.MustCompile(p).MatchString(s) {
			fail("%q does not match %s", s, p)
		}
	}
	if m, ok := schema["minimum"].(float64); ok {
		if n, isNum := toFloat(data); isNum && n < m {
			fail("%v is below the minimum %v", data, m)
		}
	}
	if alts, ok := schema["oneOf"].([]any); ok {
		n := 0
		for _, a := range alts {
			if len(validate(a.(map[string]any), data, path)) == 0 {
				n++
			}
		}
		if n != 1 {
			fail("matches %d of oneOf's %d schemas", n, len(alts))
		}
	}
	switch d := data.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		pats, _ := schema["patternProperties"].(map[string]any)
		if m, ok := schema["minProperties"].(float64); ok && len(d) < int(m) {
			fail("%d keys, want at least %v", len(d), m)
		}
		for _, r := range anyStrings(schema["required"]) {
			if _, ok := d[r]; !ok {
				fail("missing %s", r)
			}
		}
		keys := make([]string, 0, len(d))
		for k := range d {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := d[k]
			if ps, ok := props[k].(map[string]any); ok {
				errs = append(errs, validate(ps, v, path+"."+k)...)
				continue
			}
			matched := false
			for p, ps := range pats {
				if regexp.MustCompile(p).MatchString(k) {
					matched = true
					errs = append(errs, validate(ps.(map[string]any), v, path+"."+k)...)
				}
			}
			if matched {
				continue
			}
			switch ap := schema["additionalProperties"].(type) {
			case bool:
				if !ap {
					fail("unknown key %q", k)
				}
			case map[string]any:
				errs = append(errs, validate(ap, v, path+"."+k)...)
			}
		}
	case []any:
		if m, ok := schema["minItems"].(float64); ok && len(d) < int(m) {
			fail("%d items, want at least %v", len(d), m)
		}
		if items, ok := schema["items"].(map[string]any); ok {
			for i, v := range d {
				errs = append(errs, validate(items, v, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	return errs
}

// toFloat is a decoded YAML number as a float64.
func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case uint64:
		return float64(v), true
	}
	return 0, false
}

func anyStrings(v any) []string {
	var out []string
	if xs, ok := v.([]any); ok {
		for _, x := range xs {
			out = append(out, x.(string))
		}
	}
	return out
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case int, int64, uint64:
		return "integer"
	}
	return fmt.Sprintf("%T", v)
}

func loadSchema(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := fs.ReadFile(content.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func decodeYAML(t *testing.T, name string, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// TestSchemaAcceptsTheCourse validates every course.yaml and lab.yaml of
// the embedded course and of the worked example against the schemas
// editors are pointed to, and checks that each file points to its schema.
func TestSchemaAcceptsTheCourse(t *testing.T) {
	courseSchema, labSchema := loadSchema(t, "course.schema.json"), loadSchema(t, "lab.schema.json")
	files := map[string][]byte{}
	fs.WalkDir(content.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if strings.HasSuffix(p, ".yaml") {
			files[p], _ = fs.ReadFile(content.FS, p)
		}
		return err
	})
	for name, f := range exampleCourse(t) {
		if strings.HasSuffix(name, ".yaml") {
			files["docs:"+name] = f.Data
		}
	}
	labs := 0
	for name, data := range files {
		schema, ref := labSchema, "$schema=../../lab.schema.json"
		if strings.HasSuffix(name, CourseFile) {
			schema, ref = courseSchema, "$schema=course.schema.json"
		} else {
			labs++
		}
		if !strings.HasPrefix(name, "docs:") && !strings.HasPrefix(string(data), "# yaml-language-server: "+ref+"\n") {
			t.Errorf("%s does not start with # yaml-language-server: %s", name, ref)
		}
		for _, e := range validate(schema, decodeYAML(t, name, data), name) {
			t.Error(e)
		}
	}
	if labs < 6 {
		t.Errorf("only %d lab files checked", labs)
	}
}

// TestSchemaRejectsMistakes: the schema is not so loose that it accepts
// anything; each mistake here is one the parser refuses too.
func TestSchemaRejectsMistakes(t *testing.T) {
	labSchema := loadSchema(t, "lab.schema.json")
	good, err := fs.ReadFile(content.FS, "labs/w1-w2/lab.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ old, new, want string }{
		{"horizon: 40s", "horizn: 40s", `unknown key "horizn"`},
		{"  storage: none\n", "  storage: nothing\n", "is not one of"},
		{"  first-token: 7", "  first-tokn: 7", `unknown key "first-tokn"`},
		{"      - id: silent\n", "      - idd: silent\n", "missing id"},
		{"id: w1-w2", "id: W1_W2", "does not match"},
	} {
		src := strings.Replace(string(good), tc.old, tc.new, 1)
		if src == string(good) {
			t.Fatalf("%q not in the lab", tc.old)
		}
		errs := validate(labSchema, decodeYAML(t, "lab.yaml", []byte(src)), "lab")
		if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, tc.want) }) {
			t.Errorf("%q → %q: schema says %q, want %q", tc.old, tc.new, errs, tc.want)
		}
		if _, err := LoadLabFile("lab.yaml", []byte(src)); err == nil {
			t.Errorf("%q → %q: the parser accepts it", tc.old, tc.new)
		}
	}
}

// TestSchemaAgreesWithCheck feeds the same lab files, each with one of
// the values authors commonly get wrong or right, to the schema editors use
// and to the parser check uses: each accepts exactly what the other does.
func TestSchemaAgreesWithCheck(t *testing.T) {
	labSchema := loadSchema(t, "lab.schema.json")
	good, err := fs.ReadFile(content.FS, "labs/w1-w2/lab.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"  ttl: 15s": {"  ttl: 10", "  ttl: \"10\"", "  ttl: 10.5", "  ttl: 5.", "  ttl: 15 s", "  ttl: 15sec", "  ttl: 1m30s", "  ttl: -5s",
			"  ttl: 0", "  ttl: 0s", "  ttl: 1.5s", "  ttl: .5s", "  ttl: +5s", "  ttl: never", "  ttl: 500ms", "  ttl: 2m", "  ttl: 1h"},
		"horizon: 40s":     {"horizon: 40", "horizon: 0s", "horizon: 0", "horizon: -4s", "horizon: 2m", "horizon: 0.5s", "horizon: 40 s"},
		"  first-token: 7": {"  first-token: -1", "  first-token: 0", "  first-token: seven", "  first-token: 7.5", "  first-token: \"7\"", "  first-token: 1"},
		"controls:\n":      {"controls:\n  freeze: 25\n", "controls:\n  freeze: 25s\n", "controls:\n  clock: {jump: [-10s, 10s]}\n", "controls:\n  clock: {jump: [-10, 10]}\n"},
	}
	for old, news := range cases {
		for _, new := range news {
			src := strings.Replace(string(good), old, new, 1)
			if !strings.Contains(string(good), old) {
				src = strings.Replace(string(good), "horizon: 40s\n", "horizon: 40s\n"+new, 1)
			}
			if src == string(good) {
				t.Fatalf("%q: nothing changed", new)
			}
			errs := validate(labSchema, decodeYAML(t, "lab.yaml", []byte(src)), "lab")
			_, perr := LoadLabFile("lab.yaml", []byte(src))
			if (len(errs) == 0) != (perr == nil) {
				t.Errorf("%q: the schema says %q, check says %v", strings.TrimSpace(new), errs, perr)
			}
		}
	}
}

// TestSchemaKnowsTheParsersKeys: the keys the schema offers are the keys
// the parser reads.
func TestSchemaKnowsTheParsersKeys(t *testing.T) {
	s := loadSchema(t, "lab.schema.json")
	props := func(m map[string]any) []string {
		var ks []string
		for k := range m["properties"].(map[string]any) {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	p := s["properties"].(map[string]any)
	q := p["questions"].(map[string]any)["items"].(map[string]any)
	for _, tc := range []struct {
		what   string
		schema []string
		parser []string
	}{
		{"lab file", props(s), labFileKeys},
		{"question", props(q), questionKeys},
		{"choice", props(q["properties"].(map[string]any)["choices"].(map[string]any)["items"].(map[string]any)), choiceKeys},
		{"goal", props(p["goals"].(map[string]any)["items"].(map[string]any)), goalKeys},
		{"challenge", props(p["challenge"].(map[string]any)), challengeKeys},
		{"search", props(p["search"].(map[string]any)), searchKeys},
		{"program", props(p["program"].(map[string]any)), programKeys},
	} {
		parser := slices.Sorted(slices.Values(tc.parser))
		if !slices.Equal(tc.schema, parser) {
			t.Errorf("%s: schema has %v, the parser reads %v", tc.what, tc.schema, parser)
		}
	}
}

// TestSchemaAcceptsEveryControl: the controls the parser reads, in each
// of their forms, are what the schema allows.
func TestSchemaAcceptsEveryControl(t *testing.T) {
	labSchema := loadSchema(t, "lab.schema.json")
	good, err := fs.ReadFile(content.FS, "labs/w1-w2/lab.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, controls := range []string{
		"controls:\n  freeze: [5s, 25s]\n  crash:\n  cut: [everyone, coord, storage]\n  fencing:\n  storage: [none, fencing, equality, cas, idempotent]\n  link: {to: [storage, coord], delay: [10s], loss: [50%]}\n  clock: {skew: [5s], jump: [-10s, 10s], rate: [0.5, 2]}\n  replica:\n  until: [30s]\n",
		"controls:\n  freeze: {for: [25s], on: [check]}\n  crash: true\n  fencing: true\n",
		"controls:\n  freeze: 25s\n  cut: everyone\n",
	} {
		src := strings.Replace(string(good), "horizon: 40s\n", "horizon: 40s\n"+controls, 1)
		if _, err := LoadLabFile("lab.yaml", []byte(src)); err != nil {
			t.Errorf("the parser refuses %q: %v", controls, err)
		}
		for _, e := range validate(labSchema, decodeYAML(t, "lab.yaml", []byte(src)), "lab") {
			t.Errorf("%q: %s", controls, e)
		}
	}
}
