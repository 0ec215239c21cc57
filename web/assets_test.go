package web

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"leaselab/static"
)

// TestModulesImportHashedNames: a script's imports of the other scripts
// are served with their hashed names, which the server knows; the lab
// page's head names every module app.js imports statically, and none it
// loads only when a page needs it (the class bar, the program editor).
func TestModulesImportHashedNames(t *testing.T) {
	a, err := loadAssets(static.FS)
	if err != nil {
		t.Fatal(err)
	}
	spec := regexp.MustCompile(`(?:\bfrom\s*|\bimport\s*\(?\s*)"\./([^"]+)"`)
	modules := 0
	for plain, u := range a.urlOf {
		if !strings.HasSuffix(plain, ".js") {
			continue
		}
		modules++
		as := a.byName[strings.TrimPrefix(u, staticPrefix)]
		for _, m := range spec.FindAllSubmatch(as.plain, -1) {
			if _, ok := a.byName[string(m[1])]; !ok {
				t.Errorf("%s imports %s, which the server does not serve", plain, m[1])
			}
		}
	}
	if modules < 6 {
		t.Errorf("only %d scripts", modules)
	}
	pre := a.Preloads("/base", "app.js")
	for _, name := range []string{"socket.js", "ops.js", "play.js", "controls.js"} {
		if !slices.Contains(pre, "/base"+a.URL(name)) {
			t.Errorf("app.js's preloads %v leave out %s", pre, name)
		}
	}
	for _, name := range []string{"app.js", "classbar.js", "editor.js", "search.js"} {
		if slices.Contains(pre, "/base"+a.URL(name)) {
			t.Errorf("app.js's preloads %v name %s", pre, name)
		}
	}
}

// TestModuleHashFollowsItsImports: a module's name changes with a module
// it imports, so a page never runs a kept module against a new import;
// an import of a file that is not there, or a cycle, stops the server.
func TestModuleHashFollowsItsImports(t *testing.T) {
	fsys := fstest.MapFS{
		"a.js": {Data: []byte(`import { b } from "./b.js";` + "\n" + `import("./c.js");`)},
		"b.js": {Data: []byte(`export const b = 1;`)},
		"c.js": {Data: []byte(`export const c = 1;`)},
	}
	one, err := loadAssets(fsys)
	if err != nil {
		t.Fatal(err)
	}
	fsys["b.js"] = &fstest.MapFile{Data: []byte(`export const b = 2;`)}
	two, err := loadAssets(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if one.URL("a.js") == two.URL("a.js") {
		t.Error("a.js kept its name when b.js, which it imports, changed")
	}
	if one.URL("c.js") != two.URL("c.js") {
		t.Error("c.js changed its name")
	}
	if got := two.Preloads("", "a.js"); !slices.Equal(got, []string{two.URL("b.js")}) {
		t.Errorf("preloads of a.js: %v, want b.js alone (c.js is imported only when asked)", got)
	}
	body := string(two.byName[strings.TrimPrefix(two.URL("a.js"), staticPrefix)].plain)
	for _, name := range []string{"b.js", "c.js"} {
		if want := `"./` + strings.TrimPrefix(two.URL(name), staticPrefix) + `"`; !strings.Contains(body, want) {
			t.Errorf("a.js as served does not import %s: %s", want, body)
		}
	}
	for what, bad := range map[string]fstest.MapFS{
		"missing": {"a.js": {Data: []byte(`import "./nope.js";`)}},
		"cycle":   {"a.js": {Data: []byte(`import "./b.js";`)}, "b.js": {Data: []byte(`import "./a.js";`)}},
	} {
		if _, err := loadAssets(bad); err == nil {
			t.Errorf("%s: loaded", what)
		} else {
			t.Logf("%s: %v", what, err)
		}
	}
}
