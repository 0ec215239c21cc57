package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"

	qrcode "github.com/skip2/go-qrcode"

	"leaselab/class"
	"leaselab/web"
)

// Classroom mode (serve --classroom, issue 43): a lecture from a laptop on
// the campus Wi-Fi. The server listens on every interface, and the address
// students use is this machine's LAN address (or --public-url), printed in
// the terminal with a QR code; every class's join link and QR code use it,
// whatever name the lecturer's own browser opened the dashboard by.

// classroomListen listens for a classroom and sets cfg for it: the
// students' address, and the lecturer's own names when --public-url
// restricts the host names answered. It prints the addresses to out.
func classroomListen(o serveOptions, cfg *web.Config, out io.Writer, log *slog.Logger) (net.Listener, bool) {
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		log.Error("cannot listen", "addr", o.addr, "err", err)
		return nil, false
	}
	students, err := web.ClassroomURL(ln.Addr().String(), o.publicURL)
	if err != nil {
		ln.Close()
		log.Error("classroom mode: no address for the students", "err", err)
		return nil, false
	}
	cfg.StudentURL = students
	if o.publicURL != "" {
		// The lecturer on this laptop opens the dashboard by localhost.
		cfg.AllowedHosts = append(cfg.AllowedHosts, "localhost", "127.0.0.1", "::1")
	}
	base := cfg.BasePath
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	lecturer := "http://" + net.JoinHostPort("localhost", port) + base + "/"
	join := students + base + "/id/join"
	var mu sync.Mutex // classes open from several requests at once
	say := func(format string, args ...any) { fmt.Fprintf(out, format, args...) }
	say("\nleaselab: a classroom\n\n")
	say("  You (this laptop):  %s  open a class there (Teach a class)\n", lecturer)
	say("  Students' phones:   %s  (English: %s)\n\n", join, students+base+"/en/join")
	say("%s\n", terminalQR(join))
	say("  Phones must be on the same network as this laptop (the campus Wi-Fi).\n")
	say("  Each class you open prints its code and QR code here too.\n\n")
	log.Info("classroom", "students", students+base+"/", "lecturer", lecturer)
	cfg.ClassOpened = func(c class.Class, joinURL string) {
		mu.Lock()
		defer mu.Unlock()
		say("\nClass «%s» opened: code %s\n  %s\n\n%s\n", c.Name, c.Code, joinURL, terminalQR(joinURL))
	}
	return ln, true
}

// terminalQR draws text as a QR code in a terminal, two rows of modules a
// line (light modules as blocks, for a dark terminal).
func terminalQR(text string) string {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(q.ToSmallString(false), "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n") + "\n"
}
