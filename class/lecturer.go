package class

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A lecture hall (issue 43): what a class needs beyond its one
// instructor link.
//
//   - The projector has a capability of its own, read-only: its token is
//     derived from the instructor token (ProjectorToken), so the dashboard
//     can always show it, and it does not lead back to the instructor
//     token. The database keeps only its hash, as for the instructor's.
//   - A lecturer key (no account) lists the classes it opened. The key
//     derives an X25519 key pair; the database keeps the key's hash and
//     the public key, and each class's instructor token sealed to that
//     public key (an ephemeral X25519 exchange, SHA-256 of the secret and
//     both public keys as the AES-256-GCM key): the holder of the key can
//     open the tokens again, the database alone cannot. A token rotated
//     from the dashboard (which does not hold the key) is sealed to the
//     same public key.
//   - Ending a class can be undone for UndoEnd.

// UndoEnd is how long after ending a class its instructor may undo it.
const UndoEnd = 10 * time.Minute

// LecturerKeyLength is the letters of a lecturer key (of CodeAlphabet:
// about 88 bits), written in groups of five.
const LecturerKeyLength = 20

// More errors a caller tells apart with errors.Is.
var (
	// ErrNoLecturer: no lecturer has this key.
	ErrNoLecturer = errors.New("class: no lecturer has this key")
	// ErrUndoLate: the class ended longer than UndoEnd ago, or runs.
	ErrUndoLate = errors.New("class: the end of this class can no longer be undone")
	// ErrCodeTaken: another class took the ended class's join code.
	ErrCodeTaken = errors.New("class: another class took this join code")
)

// ProjectorToken is the projector's token of a class whose instructor
// token is token: whoever holds it sees the projector view, and nothing
// more; it does not give the instructor token back.
func ProjectorToken(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("leaselab projector"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:24])
}

// ByProjector finds the class a projector token shows, ended or not; a
// forged token is ErrNoClass.
func (s *Service) ByProjector(ctx context.Context, ptoken string) (Class, error) {
	if len(ptoken) < 16 || len(ptoken) > 100 {
		return Class{}, ErrNoClass
	}
	c, err := scanClass(s.rdb.QueryRowContext(ctx, s.sql.classByProjector, tokenHash(ptoken)))
	return c, s.fail(err)
}

// KeepProjector gives a class opened before projector tokens its
// projector's token, derived from its instructor token; a class that has
// one keeps it.
func (s *Service) KeepProjector(ctx context.Context, classID, token string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.sql.keepProjector,
			tokenHash(ProjectorToken(token)), classID, tokenHash(token))
		return err
	})
}

// Lecturer is the holder of a lecturer key, as a class opened for them
// is sealed to. nil is no lecturer.
type Lecturer struct {
	hash string
	pub  *ecdh.PublicKey
}

func (l *Lecturer) id() string {
	if l == nil {
		return ""
	}
	return l.hash
}

// seal is token sealed to the lecturer's public key, "" for no lecturer.
func (l *Lecturer) seal(token string) string {
	if l == nil {
		return ""
	}
	out, err := seal(l.pub, []byte(token))
	if err != nil {
		return ""
	}
	return out
}

// lecturerPrivate is the key pair a lecturer key derives.
func lecturerPrivate(key string) *ecdh.PrivateKey {
	seed := sha256.Sum256([]byte("leaselab lecturer key\x00" + key))
	p, err := ecdh.X25519().NewPrivateKey(seed[:])
	if err != nil {
		panic(err) // every 32 bytes are an X25519 private key
	}
	return p
}

// lecturerHash is what the database keeps of a lecturer key.
func lecturerHash(key string) string { return tokenHash("lecturer\x00" + key) }

// FormatLecturerKey writes a key in groups of five letters.
func FormatLecturerKey(key string) string {
	var parts []string
	for len(key) > 5 {
		parts = append(parts, key[:5])
		key = key[5:]
	}
	return strings.Join(append(parts, key), "-")
}

// NewLecturer makes a lecturer key and keeps its hash and public key. The
// key itself is not kept: it is shown once, and lost with its holder.
func (s *Service) NewLecturer(ctx context.Context) (string, *Lecturer, error) {
	key := randomCode(LecturerKeyLength)
	l := &Lecturer{hash: lecturerHash(key), pub: lecturerPrivate(key).PublicKey()}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.sql.insertLecturer,
			l.hash, hex.EncodeToString(l.pub.Bytes()), s.ms())
		return err
	})
	if err != nil {
		return "", nil, err
	}
	return key, l, nil
}

// LecturerOf finds the lecturer of a key as a person typed it.
func (s *Service) LecturerOf(ctx context.Context, typed string) (*Lecturer, error) {
	key := NormalizeCode(typed, LecturerKeyLength)
	if key == "" {
		return nil, ErrNoLecturer
	}
	var pub string
	err := s.rdb.QueryRowContext(ctx, s.sql.lecturerPub, lecturerHash(key)).Scan(&pub)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoLecturer
	}
	if err != nil {
		return nil, s.fail(err)
	}
	l, err := lecturerOfPub(lecturerHash(key), pub)
	if err != nil {
		return nil, s.fail(err)
	}
	return l, nil
}

func lecturerOfPub(hash, pub string) (*Lecturer, error) {
	b, err := hex.DecodeString(pub)
	if err != nil {
		return nil, err
	}
	k, err := ecdh.X25519().NewPublicKey(b)
	if err != nil {
		return nil, err
	}
	return &Lecturer{hash: hash, pub: k}, nil
}

// CreateFor opens a class as Create does, for the lecturer l: the class
// is listed by the lecturer's key (ClassesOf).
func (s *Service) CreateFor(ctx context.Context, className, lang string, l *Lecturer) (Class, string, error) {
	return s.create(ctx, className, lang, l)
}

// Owned is a class a lecturer key opened, with its instructor token ("" if
// it cannot be opened again).
type Owned struct {
	Class
	Token string
}

// ClassesOf lists the classes the lecturer key typed opened, newest first,
// ended ones too (until they are purged).
func (s *Service) ClassesOf(ctx context.Context, typed string) ([]Owned, error) {
	key := NormalizeCode(typed, LecturerKeyLength)
	if _, err := s.LecturerOf(ctx, key); err != nil {
		return nil, err
	}
	priv := lecturerPrivate(key)
	rows, err := s.rdb.QueryContext(ctx, s.sql.classesOfLecturer, lecturerHash(key))
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	var out []Owned
	for rows.Next() {
		var sealed string
		var o Owned
		var created int64
		var ended sql.NullInt64
		if err := rows.Scan(&o.ID, &o.Code, &o.Name, &o.Lang, &created, &ended,
			&o.Now.Lesson, &o.Now.Lab, &o.Now.Question, &o.Now.Goal, &o.Pushed, &sealed); err != nil {
			return nil, s.fail(err)
		}
		o.Created = time.UnixMilli(created).UTC()
		if ended.Valid {
			t := time.UnixMilli(ended.Int64).UTC()
			o.Ended = &t
		}
		if b, err := unseal(priv, sealed); err == nil {
			o.Token = string(b)
		}
		out = append(out, o)
	}
	return out, s.fail(rows.Err())
}

// Rotate gives a class a new instructor token, and so a new projector
// token: the old links lead nowhere. The new token is sealed to the
// class's lecturer, if it has one.
func (s *Service) Rotate(ctx context.Context, classID string) (string, error) {
	token := newToken()
	err := s.change(ctx, Change{Class: classID, What: ChangedActivity}, func(tx *sql.Tx) error {
		var lect string
		err := tx.QueryRowContext(ctx, s.sql.classLecturer, classID).Scan(&lect)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNoClass
		}
		if err != nil {
			return err
		}
		sealed := ""
		if lect != "" {
			var pub string
			if err := tx.QueryRowContext(ctx, s.sql.lecturerPub, lect).Scan(&pub); err == nil {
				if l, err := lecturerOfPub(lect, pub); err == nil {
					sealed = l.seal(token)
				}
			} else if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, s.sql.rotateTokens,
			tokenHash(token), tokenHash(ProjectorToken(token)), sealed, classID)
		return err
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// Reopen undoes the end of a class that ended at most UndoEnd ago: its
// code joins again and its students go on. ErrUndoLate past that (or for
// a class that runs), ErrCodeTaken when a new class took its code.
func (s *Service) Reopen(ctx context.Context, classID string) error {
	since := s.now().Add(-UndoEnd).UnixMilli()
	return s.change(ctx, Change{Class: classID, What: ChangedEnd}, func(tx *sql.Tx) error {
		var code string
		var ended sql.NullInt64
		err := tx.QueryRowContext(ctx, s.sql.classCodeEnded, classID).Scan(&code, &ended)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNoClass
		}
		if err != nil {
			return err
		}
		if !ended.Valid || ended.Int64 < since {
			return ErrUndoLate
		}
		var other int
		if err := tx.QueryRowContext(ctx, s.sql.runningWithCode, code).Scan(&other); err != nil {
			return err
		}
		if other > 0 {
			return ErrCodeTaken
		}
		_, err = tx.ExecContext(ctx, s.sql.reopenClass, classID)
		return err
	})
}

// UndoUntil is until when the end of an ended class can be undone.
func UndoUntil(c Class) time.Time {
	if c.Ended == nil {
		return time.Time{}
	}
	return c.Ended.Add(UndoEnd)
}

// seal encrypts msg to pub: an ephemeral key pair's public key, then
// AES-256-GCM under SHA-256 of the shared secret and both public keys (a
// key used once, so the nonce is zero), in base64.
func seal(pub *ecdh.PublicKey, msg []byte) (string, error) {
	eph, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	secret, err := eph.ECDH(pub)
	if err != nil {
		return "", err
	}
	aead, err := sealKey(secret, eph.PublicKey().Bytes(), pub.Bytes())
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	out := append(eph.PublicKey().Bytes(), aead.Seal(nil, nonce, msg, nil)...)
	return base64.RawURLEncoding.EncodeToString(out), nil
}

// unseal decrypts what seal made for priv's public key.
func unseal(priv *ecdh.PrivateKey, sealed string) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil || len(b) < 32 {
		return nil, fmt.Errorf("class: not a sealed token")
	}
	ephPub, err := ecdh.X25519().NewPublicKey(b[:32])
	if err != nil {
		return nil, err
	}
	secret, err := priv.ECDH(ephPub)
	if err != nil {
		return nil, err
	}
	aead, err := sealKey(secret, b[:32], priv.PublicKey().Bytes())
	if err != nil {
		return nil, err
	}
	return aead.Open(nil, make([]byte, aead.NonceSize()), b[32:], nil)
}

func sealKey(secret, ephPub, pub []byte) (cipher.AEAD, error) {
	h := sha256.New()
	h.Write(secret)
	h.Write(ephPub)
	h.Write(pub)
	block, err := aes.NewCipher(h.Sum(nil))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
