package web

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"leaselab/class"
)

// A class's life in a lecture hall (issue 43): opening it with a lecturer
// key (a capability that lists the classes it opened, shown once), ending
// it only when asked twice and undoing that for class.UndoEnd, rotating
// its instructor link, and the student's confirmation after joining.

// newKeyCookie carries a lecturer key made with a class from the form
// that opened it to the dashboard, once: the key is never in a URL, and
// the dashboard clears it as it shows it.
const newKeyCookie = "leaselab_newkey"

// joinedCookie tells the student's next page, once, that they joined: its
// class bar says so, with their nickname and the class's name.
const joinedCookie = "leaselab_joined"

// createClass opens a class for the lecturer key the form names, or with
// a new key, shown once on the dashboard. The key typed wrong is refused
// rather than a new one made: the lecturer would lose the class from
// their list.
func (s *Server) createClass(c echo.Context, name, lang string) (class.Class, string, error) {
	ctx := c.Request().Context()
	var l *class.Lecturer
	newKey := ""
	var err error
	if typed := strings.TrimSpace(c.FormValue("lecturer")); typed != "" {
		if l, err = s.classes.LecturerOf(ctx, typed); errors.Is(err, class.ErrNoLecturer) {
			return class.Class{}, "", &pageError{status: http.StatusNotFound, lang: lang, key: "lecturer.unknown"}
		}
	} else {
		newKey, l, err = s.classes.NewLecturer(ctx)
	}
	if err != nil {
		return class.Class{}, "", err
	}
	cl, token, err := s.classes.CreateFor(ctx, name, lang, l)
	if err != nil {
		return cl, token, err
	}
	if newKey != "" {
		c.SetCookie(&http.Cookie{
			Name: newKeyCookie, Value: newKey, Path: s.base + "/" + lang + "/teach/" + token,
			MaxAge: 600, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.Scheme() == "https",
		})
	}
	if s.classOpened != nil {
		s.classOpened(cl, s.joinURL(c, lang, cl.Code))
	}
	return cl, token, nil
}

// hallData fills what the dashboard shows of the lecture hall: the
// projector's link, whether phones can reach the join link, and until
// when an end can be undone.
func (s *Server) hallData(v *teachView) {
	v.ProjectorURL = s.projectorHref(v.Lang, v.Token)
	if key := s.unreachable(v.JoinURL); key != "" {
		v.Unreachable = v.T(key)
		if u, err := url.Parse(v.JoinURL); err == nil && strings.Contains(v.Unreachable, "%s") {
			v.Unreachable = fmt.Sprintf(v.Unreachable, u.Hostname())
		}
	}
	if v.Class.Ended != nil {
		if left := class.UndoUntil(v.Class).Sub(s.live.Clock.Now()); left > 0 {
			v.UndoLeft = int((left + time.Minute - 1) / time.Minute)
		}
	}
}

// shownKey shows the dashboard the lecturer key made with its class, once:
// the cookie that carried it is cleared.
func (s *Server) shownKey(c echo.Context, v *teachView) {
	if ck, err := c.Cookie(newKeyCookie); err == nil && class.NormalizeCode(ck.Value, class.LecturerKeyLength) != "" {
		v.NewKey = class.FormatLecturerKey(class.NormalizeCode(ck.Value, class.LecturerKeyLength))
		c.SetCookie(&http.Cookie{Name: newKeyCookie, Value: "", Path: s.base + "/" + v.Lang + "/teach/" + v.Token, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	}
}

// teachLife carries out the dashboard's buttons of a class's life: end
// (asked first), reopen (undo the end), rotate (new links).
func (s *Server) teachLife(c echo.Context, lang string, cl class.Class) error {
	ctx := c.Request().Context()
	token := c.Param("token")
	back := s.base + "/" + lang + "/teach/" + token
	var err error
	switch c.Param("act") {
	case "end":
		if c.FormValue("confirm") != "1" {
			v := &teachView{page: s.newPage(lang, "/teach/"+token, fmt.Sprintf(T(lang, "teach.title"), cl.Name), "teach"), Class: cl, Token: token}
			v.page.Path = "/teach/" + token
			c.Response().Header().Set("Cache-Control", "no-store")
			return render(c, http.StatusOK, teachEndPage(v, int(class.UndoEnd/time.Minute)))
		}
		err = s.classes.End(ctx, cl.ID)
	case "reopen":
		err = s.classes.Reopen(ctx, cl.ID)
		switch {
		case errors.Is(err, class.ErrUndoLate):
			return &pageError{status: http.StatusConflict, lang: lang, key: "teach.undo.late", args: []any{int(class.UndoEnd / time.Minute)}}
		case errors.Is(err, class.ErrCodeTaken):
			return &pageError{status: http.StatusConflict, lang: lang, key: "teach.undo.taken"}
		}
	case "rotate":
		var fresh string
		if fresh, err = s.classes.Rotate(ctx, cl.ID); err == nil {
			back = s.base + "/" + lang + "/teach/" + fresh
		}
	}
	if err != nil {
		return classErr(lang, err, cl.Code)
	}
	if wantsJSON(c) && c.Param("act") != "rotate" {
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, back)
}

// lecturerView is the page where a lecturer key lists its classes.
type lecturerView struct {
	*page
	Asked   bool // a key was sent
	Classes []class.Owned
}

// TeachHref is an owned class's dashboard, "" if its link cannot be
// shown again.
func (v *lecturerView) TeachHref(o class.Owned) string {
	if o.Token == "" {
		return ""
	}
	return v.Href("/teach/" + o.Token)
}

// lecturerShow is the form that asks for a lecturer key; lecturerPost
// lists the classes of the key sent (never in a URL: the list holds the
// classes' instructor links).
func (s *Server) lecturerShow(c echo.Context) error {
	lang, err := s.joinLang(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, lecturerPage(&lecturerView{page: s.newPage(lang, "/lecturer", T(lang, "lecturer.title"), "lecturer")}))
}

func (s *Server) lecturerPost(c echo.Context) error {
	lang, err := s.joinLang(c)
	if err != nil {
		return err
	}
	addr := s.clientAddr(c.Request())
	if wait := s.joins.restoreWait(addr, s.live.Clock.Now()); wait > 0 {
		return s.joinRefused(c, lang, addr, &joinRefusal{key: "join.locked", retry: wait})
	}
	list, err := s.classes.ClassesOf(c.Request().Context(), c.FormValue("key"))
	if errors.Is(err, class.ErrNoLecturer) {
		s.joins.wrongKey(addr, s.live.Clock.Now())
		return &pageError{status: http.StatusNotFound, lang: lang, key: "lecturer.unknown"}
	}
	if err != nil {
		return classErr(lang, err, "")
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	v := &lecturerView{page: s.newPage(lang, "/lecturer", T(lang, "lecturer.title"), "lecturer"), Asked: true, Classes: list}
	return render(c, http.StatusOK, lecturerPage(v))
}

// joined marks the browser's next page, once, as the one after joining.
func (s *Server) joined(c echo.Context) {
	c.SetCookie(&http.Cookie{Name: joinedCookie, Value: "1", Path: s.base + "/", MaxAge: 120, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.Scheme() == "https"})
}

// justJoined reports whether the request is the page after joining, and
// clears the mark so the next page is not.
func (s *Server) justJoined(c echo.Context) bool {
	if _, err := c.Cookie(joinedCookie); err != nil {
		return false
	}
	c.SetCookie(&http.Cookie{Name: joinedCookie, Value: "", Path: s.base + "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return true
}

// ClassroomURL is the address students use in classroom mode: publicURL
// when there is one, else http:// and this machine's address on its
// network (LANAddress) with bound's port.
func ClassroomURL(bound, publicURL string) (string, error) {
	if publicURL != "" {
		return strings.TrimRight(publicURL, "/"), nil
	}
	_, port, err := net.SplitHostPort(bound)
	if err != nil {
		return "", err
	}
	ip, err := LANAddress()
	if err != nil {
		return "", err
	}
	return "http://" + net.JoinHostPort(ip.String(), port), nil
}

// LANAddress is this machine's address on the network students' phones
// are on: an up interface's, not loopback nor a container bridge's, a
// private IPv4 address first (a campus Wi-Fi's), then any other IPv4
// one, then IPv6.
func LANAddress() (net.IP, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	var best net.IP
	rank := func(ip net.IP) int {
		switch {
		case ip.To4() != nil && ip.IsPrivate():
			return 3
		case ip.To4() != nil:
			return 2
		default:
			return 1
		}
	}
	for _, in := range ifs {
		if in.Flags&net.FlagUp == 0 || in.Flags&net.FlagLoopback != 0 || bridgeName(in.Name) {
			continue
		}
		addrs, err := in.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok || !ipn.IP.IsGlobalUnicast() {
				continue
			}
			if best == nil || rank(ipn.IP) > rank(best) {
				best = ipn.IP
			}
		}
	}
	if best == nil {
		return nil, errors.New("this machine has no network address besides loopback: join the campus network, or give --public-url")
	}
	return best, nil
}

// bridgeName: an interface containers or virtual machines make, which
// phones are not on.
func bridgeName(name string) bool {
	for _, p := range []string{"docker", "br-", "veth", "virbr", "cni", "flannel", "podman", "lxc"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
