package web

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/labstack/echo/v4"

	"leaselab/class"
)

// Joining a class while this browser is in another takes it out of the
// other: the student is asked first, on this site's own page (issue 50).
// The page's form carries a token only this browser can have sent: it is
// drawn from the class cookie, which no other site's page can read.

// switchView is the question: leave Old for New?
type switchView struct {
	*page
	Old, New      class.Class
	Key           string // the student's key in Old, to come back with
	Nick, Restore string // what the join form carried
	Token         string
}

// OldName and NewName are the classes as the student knows them.
func (v *switchView) OldName() string { return classLabel(v.Old) }
func (v *switchView) NewName() string { return classLabel(v.New) }

func classLabel(cl class.Class) string {
	if cl.Name != "" {
		return cl.Name
	}
	return cl.Code
}

// switchToken answers the question for the browser whose class cookie
// is cookie, and for the class of code only.
func switchToken(cookie, code string) string {
	sum := sha256.Sum256([]byte("leaselab class switch\x00" + cookie + "\x00" + code))
	return hex.EncodeToString(sum[:12])
}

// askSwitch shows the question when the request would take this browser
// out of a running class it is a student of, and the form does not carry
// the answer; asked is true when it did.
func (s *Server) askSwitch(c echo.Context, lang, code string) (asked bool, err error) {
	r := c.Request()
	oldCode, oldID, ok := studentOf(r)
	if !ok || code == "" || oldCode == code {
		return false, nil
	}
	ck, _ := r.Cookie(classCookie)
	token := switchToken(ck.Value, code)
	if c.FormValue("switch") == token {
		return false, nil
	}
	ctx := r.Context()
	old, err := s.classes.ByCode(ctx, oldCode)
	if err != nil {
		return false, nil // ended or gone: nothing to leave
	}
	st, err := s.classes.Student(ctx, old.ID, oldID)
	if err != nil {
		return false, nil // no longer a student of it
	}
	next, err := s.classes.ByCode(ctx, code)
	if err != nil {
		return false, nil // the join says what is wrong with the code
	}
	v := &switchView{page: s.newPage(lang, "/join", T(lang, "join.switch.title"), "join"), Old: old, New: next,
		Key: st.Key, Nick: c.FormValue("nick"), Restore: cleanCode(c.FormValue("key")), Token: token}
	c.Response().Header().Set("Cache-Control", "no-store")
	return true, render(c, http.StatusOK, joinSwitchPage(v))
}
