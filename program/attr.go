package program

// attrMissing is an attribute of w or ev that does not exist, with the
// name the program most likely meant: the interpreter's own hint is in
// English, inside a sentence the student reads in their language.
type attrMissing struct{ owner, name, near string }

func (e *attrMissing) Error() string {
	s := e.owner + " has no ." + e.name
	if e.near != "" {
		s += " (did you mean ." + e.near + "?)"
	}
	return s
}

func missing(owner, name string, names []string) error {
	return &attrMissing{owner: owner, name: name, near: nearest(name, names)}
}

// nearest is the name within two edits of name (a typo), or "".
func nearest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := edits(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// edits is the Levenshtein distance between a and b, by bytes.
func edits(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
