package class

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The class list (issue 44): the students a lecturer expects, by NIM and,
// if the lecturer gives them, name, to see who has not joined. It is
// pasted or uploaded as a spreadsheet writes it, and read the way a
// spreadsheet user means it: UTF-8 with or without a BOM, UTF-16 (a
// spreadsheet's "Unicode text"), or Windows-1252 when it is not UTF-8;
// commas, semicolons (a spreadsheet in the Indonesian locale writes them)
// or tabs; a head row or none. Each row is taken or refused with the
// reason and its row number. The names stay on the server, and go with
// the class when it is deleted.

// Listed is one student of the class list.
type Listed struct {
	NIM    string
	Name   string // "" if the list gave none
	Line   int    // the row of the file it came from, from 1
	Joined bool   // a student of the class gave this NIM
}

// ListProblem is a row of a class list that was refused: its row in
// the file, why (one of the List* reasons), the cell's text (clipped),
// and for a duplicate, the row that has the NIM already.
type ListProblem struct {
	Line  int
	Why   string
	Value string
	Other int
}

// Why a row of a class list is refused.
const (
	ListFormula   = "formula"   // the NIM cell is a formula (= + - @)
	ListNumber    = "number"    // the NIM cell is a number a spreadsheet rounded (1.35E+07)
	ListBadNIM    = "nim"       // the NIM cell is not a student number
	ListDuplicate = "duplicate" // the NIM is on an earlier row
	ListBadName   = "name"      // the name is not text, or too long
	ListTooMany   = "toomany"   // past MaxList rows
)

// Limits of a class list.
const (
	MaxList     = 5000    // students on one class list
	MaxListName = 100     // runes of a name
	MaxListSize = 1 << 20 // bytes of a class list as sent
)

// ParseList reads a class list as a lecturer pasted or uploaded it: the
// rows taken, in order, and the rows refused. A file that is not a table
// at all is ErrBadInput.
func ParseList(data []byte) ([]Listed, []ListProblem, error) {
	if len(data) > MaxListSize {
		return nil, nil, fmt.Errorf("%w: a class list is at most %d bytes", ErrBadInput, MaxListSize)
	}
	text := decodeText(data)
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = separator(text)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	var (
		out      []Listed
		problems []ListProblem
		seen     = map[string]int{}
		nimCol   = 0
		nameCol  = 1
		first    = true
	)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, problems, fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		line, _ := r.FieldPos(0)
		if blank(rec) {
			continue
		}
		if first {
			first = false
			if n, m, head := listHead(rec); head {
				nimCol, nameCol = n, m
				continue
			}
		}
		cell := func(i int) string {
			if i < 0 || i >= len(rec) {
				return ""
			}
			return trimSpace(rec[i])
		}
		raw := strings.TrimPrefix(cell(nimCol), "'")
		if len(out)+len(problems) >= MaxList {
			problems = append(problems, ListProblem{Line: line, Why: ListTooMany, Other: MaxList})
			break
		}
		nim, err := NIM(raw)
		switch {
		case raw != "" && strings.ContainsRune("=+-@", rune(raw[0])):
			problems = append(problems, ListProblem{Line: line, Why: ListFormula, Value: clip(raw)})
			continue
		case sciNumber(raw):
			problems = append(problems, ListProblem{Line: line, Why: ListNumber, Value: clip(raw)})
			continue
		case err != nil || nim == "":
			problems = append(problems, ListProblem{Line: line, Why: ListBadNIM, Value: clip(raw)})
			continue
		}
		if at, ok := seen[nim]; ok {
			problems = append(problems, ListProblem{Line: line, Why: ListDuplicate, Value: nim, Other: at})
			continue
		}
		name := strings.Join(strings.Fields(cell(nameCol)), " ")
		if utf8.RuneCountInString(name) > MaxListName || strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			problems = append(problems, ListProblem{Line: line, Why: ListBadName, Value: clip(name)})
			continue
		}
		seen[nim] = line
		out = append(out, Listed{NIM: nim, Name: name, Line: line})
	}
	return out, problems, nil
}

// decodeText is a file's text: UTF-8 without its BOM, UTF-16 by its BOM,
// else (not UTF-8) Windows-1252, as a spreadsheet on Windows saves.
func decodeText(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		b = b[3:]
	case len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE || b[0] == 0xFE && b[1] == 0xFF):
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			if b[0] == 0xFF {
				u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
			} else {
				u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
			}
		}
		return string(utf16.Decode(u))
	}
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for _, c := range b {
		if c >= 0x80 && c < 0xA0 {
			sb.WriteRune(cp1252[c-0x80])
		} else {
			sb.WriteRune(rune(c)) // Latin-1 is Windows-1252 outside 0x80–0x9F
		}
	}
	return sb.String()
}

// cp1252 is Windows-1252 from 0x80 to 0x9F; the five bytes it leaves
// undefined read as the replacement character.
var cp1252 = [32]rune{
	'€', '\uFFFD', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\uFFFD', 'Ž', '\uFFFD',
	'\uFFFD', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\uFFFD', 'ž', 'Ÿ',
}

// separator guesses a file's separator from its first line: the commonest
// of tab, semicolon and comma outside quotes; a comma when none.
func separator(text string) rune {
	line, _, _ := strings.Cut(text, "\n")
	counts := map[rune]int{}
	quoted := false
	for _, r := range line {
		switch {
		case r == '"':
			quoted = !quoted
		case !quoted && (r == '\t' || r == ';' || r == ','):
			counts[r]++
		}
	}
	best := ','
	for _, r := range []rune{'\t', ';'} {
		if counts[r] > counts[best] {
			best = r
		}
	}
	return best
}

// listHead says whether a first row is a head, and which columns are
// the NIM and the name: a row that names a column as a lecturer's
// spreadsheet does ("NIM", "Nama", "ID number", …), or whose first cell
// is words (no student number, no digit, no formula).
func listHead(rec []string) (nimCol, nameCol int, head bool) {
	nimCol, nameCol = -1, -1
	for i, c := range rec {
		switch strings.ToLower(strings.Join(strings.Fields(c), " ")) {
		case "nim", "npm", "nrp", "no. induk", "nomor induk", "nomor induk mahasiswa", "id number", "idnumber", "student number", "student id", "id":
			if nimCol < 0 {
				nimCol = i
			}
		case "nama", "name", "nama lengkap", "nama mahasiswa", "full name", "student name":
			if nameCol < 0 {
				nameCol = i
			}
		}
	}
	first := strings.TrimPrefix(trimSpace(rec[0]), "'")
	words := strings.IndexFunc(first, unicode.IsDigit) < 0 && (first == "" || !strings.ContainsRune("=+-@", rune(first[0])))
	if nimCol < 0 && nameCol < 0 && !words {
		return 0, 1, false
	}
	if nimCol < 0 {
		nimCol = 0
		if nameCol == 0 {
			nimCol = 1
		}
	}
	if nameCol < 0 {
		nameCol = 1
		if nimCol == 1 {
			nameCol = 0
		}
	}
	return nimCol, nameCol, true
}

// sciNumber: "1.3519E+07", a long number a spreadsheet showed in
// scientific notation and wrote so, its digits lost.
func sciNumber(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i <= 0 || i+1 >= len(s) || s[i+1] != '+' {
		return false
	}
	return strings.Trim(s[:i], "0123456789.,") == "" && strings.Trim(s[i+2:], "0123456789") == ""
}

func blank(rec []string) bool {
	for _, c := range rec {
		if trimSpace(c) != "" {
			return false
		}
	}
	return true
}

// clip shortens a refused cell for the message that quotes it.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:39]) + "…"
	}
	return s
}

// SetList replaces a class's list with rows (ParseList's), all or none.
func (s *Service) SetList(ctx context.Context, classID string, rows []Listed) error {
	if len(rows) > MaxList {
		return fmt.Errorf("%w: a class list has at most %d students", ErrBadInput, MaxList)
	}
	return s.change(ctx, Change{Class: classID, What: ChangedJoin}, func(tx *sql.Tx) error {
		if err := s.running(ctx, tx, classID); err != nil && !errors.Is(err, ErrEnded) {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.sql.deleteRoster, classID); err != nil {
			return err
		}
		for _, n := range chunks(len(rows), listChunk) {
			part := rows[:n]
			rows = rows[n:]
			args := make([]any, 0, 4*n)
			for _, l := range part {
				args = append(args, classID, l.NIM, l.Name, l.Line)
			}
			if _, err := tx.ExecContext(ctx, s.sql.insertRoster(n), args...); err != nil {
				return err
			}
		}
		return nil
	})
}

// listChunk is the most rows of a class list one statement inserts.
const listChunk = 256

// ClassList is a class's list in its file's order, each row saying
// whether a student gave its NIM.
func (s *Service) ClassList(ctx context.Context, classID string) ([]Listed, error) {
	rows, err := s.rdb.QueryContext(ctx, s.sql.classList, classID)
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	var out []Listed
	for rows.Next() {
		var l Listed
		if err := rows.Scan(&l.NIM, &l.Name, &l.Line, &l.Joined); err != nil {
			return nil, s.fail(err)
		}
		out = append(out, l)
	}
	return out, s.fail(rows.Err())
}
