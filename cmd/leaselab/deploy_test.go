package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"leaselab/web"
)

// yamlBlocks returns the ```yaml blocks of a Markdown file, each split
// into its documents, with the line each block starts on.
func yamlBlocks(t *testing.T, path string) (docs []map[string]any, lines []int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in, start := false, 0
	var cur []string
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```yaml":
			in, start, cur = true, i+2, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			for _, doc := range strings.Split(strings.Join(cur, "\n"), "\n---\n") {
				var m map[string]any
				if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
					t.Fatalf("%s:%d: %v", path, start, err)
				}
				docs, lines = append(docs, m), append(lines, start)
			}
		case in:
			cur = append(cur, line)
		}
	}
	if in {
		t.Fatalf("%s: a yaml block is not closed", path)
	}
	return docs, lines
}

// get walks a parsed YAML document: keys for maps, numbers for lists.
func get(v any, path ...string) any {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case uint64:
		return strconv.FormatUint(x, 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	}
	return ""
}

// The manifests in docs/deploy.md parse, give serve flags and environment
// variables it has, probe and scrape paths the server answers, and scale
// on a metric it exports.
func TestDeployManifests(t *testing.T) {
	docs, lines := yamlBlocks(t, "../../docs/deploy.md")
	byKind := map[string]map[string]any{}
	for i, d := range docs {
		if k := str(d["kind"]); k != "" {
			if byKind[k] != nil {
				t.Errorf("line %d: a second %s", lines[i], k)
			}
			byKind[k] = d
		}
	}
	for _, k := range []string{"Deployment", "Service", "HorizontalPodAutoscaler", "Ingress"} {
		if byKind[k] == nil {
			t.Fatalf("docs/deploy.md has no %s", k)
		}
	}

	dep := byKind["Deployment"]
	name := str(get(dep, "metadata", "name"))
	c := get(dep, "spec", "template", "spec", "containers", "0")
	if c == nil {
		t.Fatal("the Deployment has no container")
	}
	// serve's flags: the args must parse exactly as serve would read them.
	var args []string
	for _, a := range get(c, "args").([]any) {
		args = append(args, str(a))
	}
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("container args %q: want serve and its flags", args)
	}
	var stderr strings.Builder
	o, _, ok := parseServe(args[1:], io.Discard, &stderr)
	if !ok {
		t.Fatalf("serve refuses the Deployment's args %q: %s", args[1:], stderr.String())
	}
	_, port, _ := strings.Cut(o.addr, ":")
	ports := map[string]string{} // name → number
	for _, p := range get(c, "ports").([]any) {
		ports[str(get(p, "name"))] = str(get(p, "containerPort"))
	}
	if !slices.Contains(mapValues(ports), port) {
		t.Errorf("serve listens on %q, the container opens %v", o.addr, ports)
	}
	resolve := func(p any) string {
		if n, ok := ports[str(p)]; ok {
			return n
		}
		return str(p)
	}
	// Environment variables must each set a real flag to a value it takes.
	var env []string
	for _, e := range get(c, "env").([]any) {
		n, v := str(get(e, "name")), str(get(e, "value"))
		if !strings.HasPrefix(n, "LEASELAB_") {
			continue
		}
		found := false
		for _, flagName := range serveFlagNames(t) {
			if envName(flagName) == n {
				found = true
			}
		}
		if !found {
			t.Errorf("env %s names no serve flag", n)
			continue
		}
		t.Setenv(n, v)
		env = append(env, n)
		if _, _, ok := parseServe(args[1:], io.Discard, &stderr); !ok {
			t.Errorf("serve refuses %s=%s: %s", n, v, stderr.String())
		}
	}
	// Replicas share nothing but their classes: more than one must keep
	// them in PostgreSQL, or each would hold classes of its own.
	if n, _ := get(dep, "spec", "replicas").(uint64); n > 1 && !slices.Contains(env, "LEASELAB_DATABASE") && !slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "--database")
	}) {
		t.Errorf("the Deployment runs %d replicas with their classes in SQLite files of their own: give them --database (LEASELAB_DATABASE)", n)
	}
	// What serve makes of the args and variables together is the server
	// the probes, the scraper and the ingress reach.
	o, _, ok = parseServe(args[1:], io.Discard, &stderr)
	if !ok {
		t.Fatalf("serve refuses the Deployment's args and env: %s", stderr.String())
	}
	srv, err := web.New(web.Config{PublicURL: o.publicURL, TrustedProxies: o.proxies, MetricsElsewhere: o.metricsAddr != ""})
	if err != nil {
		t.Fatal(err)
	}
	ts, ms := httptest.NewServer(srv), httptest.NewServer(srv.MetricsHandler())
	defer func() { srv.Close(); ts.Close(); ms.Close() }()
	// Probes and the scraper ask by the pod's address, not the site's name.
	const podHost = "10.244.1.7"
	fetchFrom := func(base, path string) (int, string) {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Host = podHost + ":" + port
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	fetch := func(path string) (int, string) { return fetchFrom(ts.URL, path) }

	// Behind the ingress every student comes from an ingress pod: unless
	// the pods' network is trusted, one address's connection cap and work
	// budget bind the whole class, far below the sessions a pod is meant
	// to hold.
	if len(o.proxies) == 0 {
		t.Errorf("the Deployment sits behind an Ingress but trusts no proxy (--trusted-proxies, %v): a pod would hold at most --max-conns-per-addr=%d connections", env, o.perAddr)
	}
	for _, n := range o.proxies {
		if ones, _ := n.Mask.Size(); ones == 0 {
			t.Errorf("--trusted-proxies %v trusts every address: anyone could pick their own", n)
		}
	}
	// Probes and scraping go to paths the server answers, on its port.
	for _, probe := range []string{"readinessProbe", "livenessProbe"} {
		path := str(get(c, probe, "httpGet", "path"))
		if path != "/healthz" {
			t.Errorf("%s probes %q, want /healthz", probe, path)
		}
		if p := resolve(get(c, probe, "httpGet", "port")); p != port {
			t.Errorf("%s probes port %q, serve listens on %q", probe, p, port)
		}
		if code, _ := fetch(path); code != http.StatusOK {
			t.Errorf("%s: GET %s = %d", probe, path, code)
		}
	}
	ann := get(dep, "spec", "template", "metadata", "annotations")
	metricsPath := str(get(ann, "prometheus.io/path"))
	scrapePort, scrape := port, ts.URL
	if o.metricsAddr != "" {
		_, scrapePort, _ = strings.Cut(o.metricsAddr, ":")
		scrape = ms.URL
		if !slices.Contains(mapValues(ports), scrapePort) {
			t.Errorf("--metrics-addr %q, the container opens %v", o.metricsAddr, ports)
		}
	}
	code, metrics := fetchFrom(scrape, metricsPath)
	if code != http.StatusOK || !strings.Contains(metrics, "leaselab_sessions_open") {
		t.Errorf("scrape path %q on port %s: %d, no leaselab_sessions_open", metricsPath, scrapePort, code)
	}
	if p := str(get(ann, "prometheus.io/port")); p != scrapePort {
		t.Errorf("scrape port %q, metrics are served on %q", p, scrapePort)
	}
	sel := get(dep, "spec", "selector", "matchLabels")
	labels := get(dep, "spec", "template", "metadata", "labels")
	for k, v := range sel.(map[string]any) {
		if str(get(labels, k)) != str(v) {
			t.Errorf("the Deployment's selector %s=%v does not match its pods", k, v)
		}
	}

	// The Service reaches the container's port and selects its pods.
	svc := byKind["Service"]
	if p := resolve(get(svc, "spec", "ports", "0", "targetPort")); p != port {
		t.Errorf("the Service targets port %q, serve listens on %q", p, port)
	}
	for k, v := range get(svc, "spec", "selector").(map[string]any) {
		if str(get(labels, k)) != str(v) {
			t.Errorf("the Service selects %s=%v, not the Deployment's pods", k, v)
		}
	}

	// The autoscaler scales this Deployment on a gauge /metrics has.
	hpa := byKind["HorizontalPodAutoscaler"]
	if k, n := str(get(hpa, "spec", "scaleTargetRef", "kind")), str(get(hpa, "spec", "scaleTargetRef", "name")); k != "Deployment" || n != name {
		t.Errorf("the autoscaler scales %s %s, not Deployment %s", k, n, name)
	}
	metric := str(get(hpa, "spec", "metrics", "0", "pods", "metric", "name"))
	if !regexp.MustCompile(`(?m)^# TYPE ` + regexp.QuoteMeta(metric) + ` gauge$`).MatchString(metrics) {
		t.Errorf("the autoscaler follows %q, which /metrics does not export as a gauge", metric)
	}
	target, _ := strconv.Atoi(str(get(hpa, "spec", "metrics", "0", "pods", "target", "averageValue")))
	if target <= 0 || target >= o.maxSessions {
		t.Errorf("the autoscaler's target %d sessions a pod should be below --max-sessions %d", target, o.maxSessions)
	}

	// The ingress routes to the Service's port.
	ing := byKind["Ingress"]
	be := get(ing, "spec", "rules", "0", "http", "paths", "0", "backend", "service")
	if str(get(be, "name")) != str(get(svc, "metadata", "name")) || str(get(be, "port", "name")) != str(get(svc, "spec", "ports", "0", "name")) {
		t.Errorf("the Ingress routes to %v, not the Service", be)
	}
	// The site's name the ingress serves is one the server answers to.
	if host := str(get(ing, "spec", "rules", "0", "host")); o.publicURL != "" {
		u, err := url.Parse(o.publicURL)
		if err != nil || u.Hostname() != host {
			t.Errorf("the Ingress serves %q, --public-url is %q", host, o.publicURL)
		}
		req, _ := http.NewRequest("GET", ts.URL+"/id/", nil)
		req.Host = host
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("GET /id/ for %s: %v %v", host, err, resp)
		} else {
			resp.Body.Close()
		}
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// serveFlagNames lists serve's flags, read from its --help.
func serveFlagNames(t *testing.T) []string {
	t.Helper()
	var out strings.Builder
	if _, code, ok := parseServe([]string{"--help"}, &out, io.Discard); ok || code != 0 {
		t.Fatalf("serve --help: ok %v, code %d", ok, code)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  --([a-z-]+)`).FindAllStringSubmatch(out.String(), -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatal("serve --help lists no flags")
	}
	return names
}
