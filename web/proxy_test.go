package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"leaselab/class"
)

// TestClientIPThroughTrustedProxies: the address a request counts against
// is read from forwarded headers only when the peer is a trusted proxy,
// and then it is the nearest hop that is not itself trusted; a forged
// header from anyone else changes nothing.
func TestClientIPThroughTrustedProxies(t *testing.T) {
	nets, err := ParseTrustedProxies("10.42.0.0/16, 192.0.2.7, fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	p := newProxies(nets)
	for _, tc := range []struct {
		name, peer string
		h          http.Header
		want       string
	}{
		{"no proxy", "203.0.113.5:4000", nil, "203.0.113.5"},
		{"forged XFF from an untrusted peer", "203.0.113.5:4000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "203.0.113.5"},
		{"forged X-Real-IP from an untrusted peer", "203.0.113.5:4000", http.Header{"X-Real-Ip": {"198.51.100.1"}}, "203.0.113.5"},
		{"forged Forwarded from an untrusted peer", "203.0.113.5:4000", http.Header{"Forwarded": {"for=198.51.100.1"}}, "203.0.113.5"},
		{"loopback is not trusted by default", "127.0.0.1:4000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "127.0.0.1"},
		{"private is not trusted by default", "10.1.0.1:4000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "10.1.0.1"},
		{"trusted proxy", "10.42.3.4:4000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "198.51.100.1"},
		{"a bare address trusted", "192.0.2.7:4000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "198.51.100.1"},
		{"rightmost untrusted hop wins over a forged left part", "10.42.3.4:4000", http.Header{"X-Forwarded-For": {"1.2.3.4, 198.51.100.1"}}, "198.51.100.1"},
		{"trusted hops are skipped", "10.42.3.4:4000", http.Header{"X-Forwarded-For": {"198.51.100.1, 10.42.9.9"}}, "198.51.100.1"},
		{"several XFF headers", "10.42.3.4:4000", http.Header{"X-Forwarded-For": {"1.2.3.4", "198.51.100.1"}}, "198.51.100.1"},
		{"garbage in XFF: the proxy counts", "10.42.3.4:4000", http.Header{"X-Forwarded-For": {"not-an-ip"}}, "10.42.3.4"},
		{"X-Real-IP from a trusted proxy", "10.42.3.4:4000", http.Header{"X-Real-Ip": {"198.51.100.2"}}, "198.51.100.2"},
		{"Forwarded from a trusted proxy", "10.42.3.4:4000", http.Header{"Forwarded": {`for=1.2.3.4, for="[2001:db8::17]:4711";proto=https`}}, "2001:db8::17"},
		{"Forwarded with trusted hops", "[fd00::5]:4000", http.Header{"Forwarded": {`for=198.51.100.3;by=x, for=10.42.0.9`}}, "198.51.100.3"},
		{"Forwarded unknown: the proxy counts", "10.42.3.4:4000", http.Header{"Forwarded": {`for=198.51.100.3, for=unknown`}}, "10.42.3.4"},
		{"Forwarded with a quoted comma", "10.42.3.4:4000", http.Header{"Forwarded": {`for=1.2.3.4;host="a,b", for=198.51.100.4:80`}}, "198.51.100.4"},
	} {
		r, _ := http.NewRequest("GET", "http://x/", nil)
		r.RemoteAddr = tc.peer
		for k, v := range tc.h {
			r.Header[k] = v
		}
		if got := p.clientIP(r); got != tc.want {
			t.Errorf("%s: client %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, bad := range []string{"10.42.0.0/33", "example.org", "10.42.0.0/16,,x"} {
		if _, err := ParseTrustedProxies(bad); err == nil {
			t.Errorf("ParseTrustedProxies(%q) accepted", bad)
		}
	}
}

// TestForwardedHostOnlyFromTrustedProxies: the site's name a proxy
// forwards is believed from a trusted peer only.
func TestForwardedHostOnlyFromTrustedProxies(t *testing.T) {
	p := newProxies(LoopbackProxies)
	for _, tc := range []struct {
		peer string
		h    http.Header
		want string
	}{
		{"127.0.0.1:1", http.Header{"X-Forwarded-Host": {"leases.example.edu, inner"}}, "leases.example.edu"},
		{"[::1]:1", http.Header{"Forwarded": {`for=1.2.3.4;host="leases.example.edu:8443"`}}, "leases.example.edu:8443"},
		{"203.0.113.5:1", http.Header{"X-Forwarded-Host": {"leases.example.edu"}}, ""},
		{"203.0.113.5:1", http.Header{"Forwarded": {"host=leases.example.edu"}}, ""},
	} {
		r, _ := http.NewRequest("GET", "http://x/", nil)
		r.RemoteAddr = tc.peer
		for k, v := range tc.h {
			r.Header[k] = v
		}
		if got := p.forwardedHost(r); got != tc.want {
			t.Errorf("peer %s %v: forwarded host %q, want %q", tc.peer, tc.h, got, tc.want)
		}
	}
}

// TestForwardedProtoOnlyFromTrustedProxies: the protocol a proxy
// forwards (X-Forwarded-Proto and its kin, Forwarded's proto=) is
// believed from a trusted peer only; from anyone else, a loopback or
// private peer included, the connection's own protocol counts.
func TestForwardedProtoOnlyFromTrustedProxies(t *testing.T) {
	p := newProxies([]*net.IPNet{{IP: net.IPv4(10, 42, 0, 0).To4(), Mask: net.CIDRMask(16, 32)}})
	for _, tc := range []struct {
		peer string
		h    http.Header
		want string
	}{
		{"10.42.0.5:1", http.Header{"X-Forwarded-Proto": {"https"}}, "https"},
		{"10.42.0.5:1", http.Header{"X-Forwarded-Proto": {"http, https"}}, "https"},
		{"10.42.0.5:1", http.Header{"X-Forwarded-Ssl": {"on"}}, "https"},
		{"10.42.0.5:1", http.Header{"X-Forwarded-Protocol": {"https"}}, "https"},
		{"10.42.0.5:1", http.Header{"X-Url-Scheme": {"https"}}, "https"},
		{"10.42.0.5:1", http.Header{"Forwarded": {"for=1.2.3.4;proto=https"}}, "https"},
		{"10.42.0.5:1", http.Header{"Forwarded": {"for=1.2.3.4;proto=https, for=10.42.0.9;proto=http"}}, "http"},
		{"10.42.0.5:1", nil, "http"},
		{"203.0.113.5:1", http.Header{"X-Forwarded-Proto": {"https"}}, "http"},
		{"127.0.0.1:1", http.Header{"X-Forwarded-Proto": {"https"}}, "http"},
		{"192.168.1.20:1", http.Header{"X-Forwarded-Ssl": {"on"}}, "http"},
		{"10.1.0.1:1", http.Header{"X-Url-Scheme": {"https"}}, "http"},
		{"[::1]:1", http.Header{"Forwarded": {"proto=https"}}, "http"},
	} {
		r, _ := http.NewRequest("GET", "http://x/", nil)
		r.RemoteAddr = tc.peer
		for k, v := range tc.h {
			r.Header[k] = v
		}
		if got := p.scheme(r); got != tc.want {
			t.Errorf("peer %s %v: scheme %q, want %q", tc.peer, tc.h, got, tc.want)
		}
	}
}

// TestForgedProtoChangesNothing: a student on the classroom's network
// who sends X-Forwarded-Proto: https gets a page whose share link is the
// site's real http one, and a class cookie a plain-http browser keeps
// (not Secure); through a trusted proxy that forwards https, both say
// https.
func TestForgedProtoChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		proxies []*net.IPNet
		want    string
	}{
		{"untrusted peer", nil, "http"},
		{"trusted proxy", LoopbackProxies, "https"},
	} {
		svc, err := class.Open(context.Background(), class.Config{Data: t.TempDir(), Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		_, ts := newTestServer(t, Config{TrustedProxies: tc.proxies, Classes: svc})
		forged := http.Header{"X-Forwarded-Proto": {"https"}, "X-Forwarded-Ssl": {"on"}}
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/en/labs/w1-w2", nil)
		req.Header = forged.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		u, _ := url.Parse(ts.URL)
		if share := tc.want + "://" + u.Host + "/en/labs/w1-w2"; !strings.Contains(string(body), share) {
			t.Errorf("%s: the lab page's share link is not %s", tc.name, share)
		}

		teacher := newClient(t, ts.URL)
		_, code := openClass(t, teacher, "en", "Proto")
		form := url.Values{"code": {code}}
		req, _ = http.NewRequest(http.MethodPost, ts.URL+"/en/join", strings.NewReader(form.Encode()))
		req.Header = forged.Clone()
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err = (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var secure, found bool
		for _, ck := range resp.Cookies() {
			if ck.Name == classCookie {
				found, secure = true, ck.Secure
			}
		}
		if !found {
			t.Fatalf("%s: joining set no class cookie (%s)", tc.name, resp.Status)
		}
		if secure != (tc.want == "https") {
			t.Errorf("%s: the class cookie's Secure is %v, want it only for https", tc.name, secure)
		}
	}
}
