package class

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// randomCode draws n letters of CodeAlphabet, each uniformly.
func randomCode(n int) string {
	const a = CodeAlphabet
	// Rejection sampling: bytes at or above the largest multiple of
	// len(a) are drawn again, so every letter is equally likely.
	limit := byte(256 - 256%len(a))
	out := make([]byte, 0, n)
	var buf [16]byte
	for len(out) < n {
		rand.Read(buf[:])
		for _, b := range buf {
			if b < limit && len(out) < n {
				out = append(out, a[int(b)%len(a)])
			}
		}
	}
	return string(out)
}

// NormalizeCode reads a join code or key as a person typed it: any case,
// spaces or dashes between letters. It returns "" for text that cannot
// be a code of length n.
func NormalizeCode(typed string, n int) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(typed) {
		switch {
		case r == ' ' || r == '-' || r == '\t':
			continue
		case r < utf8.RuneSelf && strings.IndexByte(CodeAlphabet, byte(r)) >= 0:
			b.WriteRune(r)
		default:
			return ""
		}
		if b.Len() > n {
			return ""
		}
	}
	if b.Len() != n {
		return ""
	}
	return b.String()
}

// newToken makes an instructor token: TokenBytes random bytes, URL-safe.
func newToken() string {
	b := make([]byte, TokenBytes)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// tokenHash is what the database keeps of a token, so a copy of the
// database does not hand out the instructor links.
func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// newStudentID makes an anonymous student id: 16 random bytes, URL-safe.
func newStudentID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// validStudentID accepts the ids newStudentID makes and any the browser
// kept of similar shape: 16 to 64 letters, digits, '-' or '_'.
func validStudentID(id string) bool {
	if len(id) < 16 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Nick checks and tidies a nickname: spaces trimmed and collapsed, at
// most MaxNick runes of letters, digits, spaces and . - _ ' , and not
// starting with a sign a spreadsheet reads as a formula. "" is allowed.
func Nick(typed string) (string, error) {
	n, err := text(typed, MaxNick, func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) ||
			r == ' ' || r == '.' || r == '-' || r == '_' || r == '\''
	})
	if err != nil {
		return "", fmt.Errorf("%w: nickname: %w", ErrBadInput, err)
	}
	if n != "" && strings.ContainsRune("=+-@", rune(n[0])) {
		return "", fmt.Errorf("%w: nickname starts with %q", ErrBadInput, n[0])
	}
	return n, nil
}

// name checks a class name: printable text without control characters or
// markup signs, at most MaxName runes.
func name(typed string) (string, error) {
	n, err := text(typed, MaxName, func(r rune) bool {
		return unicode.IsPrint(r) && !strings.ContainsRune("<>", r)
	})
	if err != nil {
		return "", fmt.Errorf("%w: class name: %w", ErrBadInput, err)
	}
	return n, nil
}

// field checks a lab, lesson, question, goal, choice or command as the
// web layer reports it: printable, at most MaxText runes.
func field(what, typed string) (string, error) {
	n, err := text(typed, MaxText, unicode.IsPrint)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrBadInput, what, err)
	}
	return n, nil
}

// labField checks a lab and one text of it (a question, goal or
// command), as field does.
func labField(lab, what, v string) (string, string, error) {
	lab, err := field("lab", lab)
	if err == nil {
		v, err = field(what, v)
	}
	return lab, v, err
}

// text trims, collapses runs of white space to one space, and checks
// length and runes.
func text(typed string, max int, ok func(rune) bool) (string, error) {
	if !utf8.ValidString(typed) {
		return "", fmt.Errorf("not UTF-8")
	}
	t := strings.Join(strings.Fields(typed), " ")
	if utf8.RuneCountInString(t) > max {
		return "", fmt.Errorf("longer than %d characters", max)
	}
	for _, r := range t {
		if !ok(r) {
			return "", fmt.Errorf("character %q not allowed", r)
		}
	}
	return t, nil
}

// validLang accepts a language code of two or three lower-case letters;
// which languages exist is the catalog's business.
func validLang(lang string) bool {
	if len(lang) < 2 || len(lang) > 3 {
		return false
	}
	for i := 0; i < len(lang); i++ {
		if lang[i] < 'a' || lang[i] > 'z' {
			return false
		}
	}
	return true
}
