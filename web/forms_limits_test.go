package web

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"leaselab/budget"
)

// hugeBody is a body of n bytes made as it is read, from one small
// buffer: the test holds none of it. read counts what the server read.
type hugeBody struct {
	head []byte // sent first: the start of a form
	n    int64
	read int64
}

func (b *hugeBody) Read(p []byte) (int, error) {
	if b.read >= b.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), b.n-b.read)]
	for i := range p {
		if at := b.read + int64(i); at < int64(len(b.head)) {
			p[i] = b.head[at]
		} else {
			p[i] = 'x'
		}
	}
	b.read += int64(len(p))
	return len(p), nil
}

// inProcess sends a request to s from the address from, as a browser of
// s's own page would, and returns the answer.
func inProcess(s *Server, method, path string, body io.Reader, from string, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, body)
	req.RemoteAddr = from + ":40000"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://"+req.Host)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w
}

// TestClassFormsRefuseHugeBodies (issue 51): a 40 MB body to each class
// form, said in Content-Length or sent without one, as a form or as
// multipart, is refused with 413 in the sender's language: with its
// length known, before a byte of it is read; without, after at most
// maxFormBytes. Twenty of them allocate next to nothing (not the 800 MB
// they carry), leave the heap where it was, write no temporary file, and
// are charged to the sender's budget. Over a real connection, the 413
// comes back before the body is sent.
func TestClassFormsRefuseHugeBodies(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where multipart parts too large for memory would go
	s, base, _ := newClassServer(t, t.TempDir())
	teach, _ := openClass(t, newClient(t, base), "en", "Big bodies")
	const size = 40 << 20
	paths := []string{"/en/join", "/id/class", "/en/class/vote", "/en/class/leave", teach + "/round"}
	bodies := []struct {
		name, contentType string
		head              string
	}{
		{"form", "application/x-www-form-urlencoded", "code=ACEFGH&nick="},
		{"multipart", "multipart/form-data; boundary=XX", "--XX\r\nContent-Disposition: form-data; name=\"nick\"; filename=\"a\"\r\n\r\n"},
	}
	b := s.addrBudgets.get("192.0.2.9")
	charged := b.Used()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, p := range paths {
		for _, kind := range bodies {
			for _, known := range []bool{true, false} {
				body := &hugeBody{head: []byte(kind.head), n: size}
				req := httptest.NewRequest(http.MethodPost, p, body)
				req.ContentLength = -1 // sent chunked: the server learns the length by reading
				if known {
					req.ContentLength = size
				}
				req.RemoteAddr = "192.0.2.9:40000"
				req.Header.Set("Content-Type", kind.contentType)
				req.Header.Set("Origin", "http://"+req.Host)
				w := httptest.NewRecorder()
				s.ServeHTTP(w, req)
				switch {
				case w.Code != http.StatusRequestEntityTooLarge:
					t.Errorf("%s, %s, length known %v: %d, want 413", p, kind.name, known, w.Code)
				case known && body.read != 0:
					t.Errorf("%s, %s: read %d bytes of a body whose length said it was too large", p, kind.name, body.read)
				case body.read > maxFormBytes+1:
					t.Errorf("%s, %s, chunked: read %d bytes, more than the limit %d", p, kind.name, body.read, maxFormBytes)
				}
				if want := "far larger"; strings.HasPrefix(p, "/en/") && !strings.Contains(w.Body.String(), want) {
					t.Errorf("%s: the refusal does not say why in English", p)
				}
			}
		}
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("20 bodies of 40 MB: %.1f MB allocated while refusing them; heap %.1f MB before, %.1f MB after",
		float64(allocated)/(1<<20), float64(before.HeapAlloc)/(1<<20), float64(after.HeapAlloc)/(1<<20))
	if allocated > 8<<20 {
		t.Errorf("refusing 20 bodies of 40 MB allocated %d MB", allocated>>20)
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 2<<20 {
		t.Errorf("the heap grew by %d KB", grew>>10)
	}
	if files, _ := os.ReadDir(tmp); len(files) > 0 {
		t.Errorf("temporary files were written: %v", files)
	}
	if got := b.Used() - charged; got < 20*budget.RefuseCost {
		t.Errorf("the sender was charged %v for 20 refusals, want at least %v", got, 20*budget.RefuseCost)
	}

	// Over a connection: the header says 40 MB; the answer comes before
	// any of it is sent.
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second)) // a hung server fails the test, a slow one does not
	fmt.Fprintf(conn, "POST /en/class/vote HTTP/1.1\r\nHost: %s\r\nContent-Type: multipart/form-data; boundary=XX\r\nContent-Length: %d\r\n\r\n",
		strings.TrimPrefix(base, "http://"), size)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !resp.Close {
		t.Errorf("over a connection: %s, closing %v; want 413 and the connection closed", resp.Status, resp.Close)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
