package web

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// Behind a reverse proxy every connection comes from the proxy, and the
// student's address, the site's name and its protocol travel in headers
// the proxy sets: X-Forwarded-For, X-Real-IP or Forwarded for the
// address, X-Forwarded-Host or Forwarded's host= for the name,
// X-Forwarded-Proto (X-Forwarded-Protocol, X-Forwarded-Ssl, X-Url-Scheme)
// or Forwarded's proto= for https. Anyone can send those headers, so they
// are believed only from a peer inside Config.TrustedProxies; from anyone
// else the peer's own address, the request's own Host and the connection's
// own protocol are what count.

// ParseTrustedProxies reads a comma-separated list of networks in CIDR
// form (10.42.0.0/16, fd00::/8); a bare address stands for itself.
func ParseTrustedProxies(list string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			ip := net.ParseIP(part)
			if ip == nil {
				return nil, fmt.Errorf("%q: want a network such as 10.42.0.0/16 or an address such as 10.42.0.7", part)
			}
			bits := 128
			if ip.To4() != nil {
				ip, bits = ip.To4(), 32
			}
			out = append(out, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
			continue
		}
		_, n, err := net.ParseCIDR(part)
		if err != nil {
			return nil, fmt.Errorf("%q: want a network such as 10.42.0.0/16 or an address such as 10.42.0.7", part)
		}
		out = append(out, n)
	}
	return out, nil
}

// LoopbackProxies is what the deprecated --trust-proxy stands for: a proxy
// on the server's own machine.
var LoopbackProxies = []*net.IPNet{
	{IP: net.IPv4(127, 0, 0, 0).To4(), Mask: net.CIDRMask(8, 32)},
	{IP: net.IPv6loopback, Mask: net.CIDRMask(128, 128)},
}

// proxies is the set of trusted proxies and the extractors that read the
// client's address through them.
type proxies struct {
	nets     []*net.IPNet
	xff, xri echo.IPExtractor
	proto    echo.SchemeExtractor
}

func newProxies(nets []*net.IPNet) *proxies {
	// echo trusts loopback, link-local and private peers unless told not
	// to; here only the networks the operator named are trusted.
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range nets {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return &proxies{nets: nets, xff: echo.ExtractIPFromXFFHeader(opts...), xri: echo.ExtractIPFromRealIPHeader(opts...),
		proto: echo.ExtractSchemeFromHeaders(opts...)}
}

// trusts reports whether ip is inside a trusted network.
func (p *proxies) trusts(ip net.IP) bool {
	for _, n := range p.nets {
		if ip != nil && n.Contains(ip) {
			return true
		}
	}
	return false
}

// peerTrusted reports whether r came straight from a trusted proxy.
func (p *proxies) peerTrusted(r *http.Request) bool {
	return len(p.nets) > 0 && p.trusts(net.ParseIP(hostOf(r.RemoteAddr)))
}

// clientIP is the address a request counts against: the peer's, or from a
// trusted proxy the nearest address it forwarded that is not itself a
// trusted proxy. The proxy's own header is read in this order:
// X-Forwarded-For, X-Real-IP, Forwarded; a proxy appends to the first or
// sets one of them, so a client's forged value never sits to the right of
// the proxy's.
func (p *proxies) clientIP(r *http.Request) string {
	if !p.peerTrusted(r) {
		return hostOf(r.RemoteAddr)
	}
	switch {
	case len(r.Header.Values(echo.HeaderXForwardedFor)) > 0:
		return p.xff(r)
	case r.Header.Get(echo.HeaderXRealIP) != "":
		return p.xri(r)
	case r.Header.Get("Forwarded") != "":
		// echo has no extractor for RFC 7239's header.
		fors := forwardedValues(r.Header.Values("Forwarded"), "for")
		for i := len(fors) - 1; i >= 0; i-- {
			ip := net.ParseIP(forwardedAddr(fors[i]))
			if ip == nil {
				// "unknown", an obfuscated name or garbage: nothing to
				// the left of it can be believed.
				break
			}
			if !p.trusts(ip) {
				return ip.String()
			}
		}
	}
	return hostOf(r.RemoteAddr)
}

// scheme is the protocol the browser used (echo's Context.Scheme): https
// on a TLS connection; from a trusted proxy, what it forwarded; else
// http. It decides whether the class cookie is Secure and how the links
// a page shares begin, so a student on the classroom's network cannot
// pick it with a header of their own (echo would believe any private
// or loopback peer).
func (p *proxies) scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	if !p.peerTrusted(r) {
		return "http"
	}
	h := r.Header
	if h.Get(echo.HeaderXForwardedProto) != "" || h.Get(echo.HeaderXForwardedProtocol) != "" ||
		h.Get(echo.HeaderXForwardedSsl) != "" || h.Get(echo.HeaderXUrlScheme) != "" {
		return p.proto(r)
	}
	// The nearest proxy's proto=, the last one.
	if protos := forwardedValues(h.Values("Forwarded"), "proto"); len(protos) > 0 && strings.EqualFold(protos[len(protos)-1], "https") {
		return "https"
	}
	return "http"
}

// forwardedHost is the site's name as a trusted proxy forwarded it
// (X-Forwarded-Host, else Forwarded's host=), or "" when the peer is not
// trusted or forwarded none. The first value is the one the outermost
// proxy saw the browser ask for.
func (p *proxies) forwardedHost(r *http.Request) string {
	if !p.peerTrusted(r) {
		return ""
	}
	if xf := r.Header.Get("X-Forwarded-Host"); xf != "" {
		h, _, _ := strings.Cut(xf, ",")
		return strings.TrimSpace(h)
	}
	if hosts := forwardedValues(r.Header.Values("Forwarded"), "host"); len(hosts) > 0 {
		return hosts[0]
	}
	return ""
}

// maxForwardedElems bounds the hops read from Forwarded headers: a real
// chain of proxies is a few long, and the rest of a longer one cannot be
// believed anyway.
const maxForwardedElems = 32

// forwardedValues are the values of key in the elements of RFC 7239
// Forwarded headers, left to right, unquoted. It reads at most
// maxForwardedElems elements, the rightmost ones (those the nearest proxies
// added).
func forwardedValues(headers []string, key string) []string {
	var elems []string
	for _, h := range headers {
		elems = append(elems, splitQuoted(h, ',')...)
	}
	if len(elems) > maxForwardedElems {
		elems = elems[len(elems)-maxForwardedElems:]
	}
	var out []string
	for _, e := range elems {
		for _, pair := range splitQuoted(e, ';') {
			k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
			if !ok || !strings.EqualFold(strings.TrimSpace(k), key) {
				continue
			}
			v = strings.TrimSpace(v)
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = strings.ReplaceAll(v[1:len(v)-1], `\`, "")
			}
			out = append(out, v)
		}
	}
	return out
}

// splitQuoted splits s at sep outside double quotes.
func splitQuoted(s string, sep byte) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && quoted:
			i++
		case s[i] == '"':
			quoted = !quoted
		case s[i] == sep && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// forwardedAddr is the address of a Forwarded for= value without its port:
// 192.0.2.60, 192.0.2.60:4711, [2001:db8::17] or [2001:db8::17]:4711.
func forwardedAddr(v string) string {
	if strings.HasPrefix(v, "[") {
		if end := strings.IndexByte(v, ']'); end > 0 {
			return v[1:end]
		}
		return ""
	}
	if h, _, err := net.SplitHostPort(v); err == nil {
		return h
	}
	return v
}
