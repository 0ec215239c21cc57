package labs

import (
	"fmt"
	"strconv"

	"leaselab/catalog"
	"leaselab/engine"
)

// Unmet says which parts of the predicate do not hold on events, one
// sentence each in lang, with what the log shows instead where that helps
// the student on ("token 7 went to W2: W1 was frozen before it held the
// lease"). It is empty when the predicate holds.
func (p *Predicate) Unmet(events []engine.Event, names engine.Names, lang string) []string {
	if ok, _ := p.root.eval(events, names); ok {
		return nil
	}
	var out []string
	unmet(p.root, events, names, lang, &out)
	if len(out) == 0 {
		out = append(out, explainText(lang, "generic"))
	}
	return out
}

func unmet(n pnode, ev []engine.Event, names engine.Names, lang string, out *[]string) {
	if ok, _ := n.eval(ev, names); ok {
		return
	}
	switch n := n.(type) {
	case *andNode:
		for _, x := range n.xs {
			unmet(x, ev, names, lang, out)
		}
	case *orNode:
		// None of the ways holds: the first one, the author's main way, is
		// what the student is told about.
		if len(n.xs) > 0 {
			unmet(n.xs[0], ev, names, lang, out)
		}
	case *orderNode:
		if ok, _ := n.left.eval(ev, names); !ok {
			*out = append(*out, explainFact(n.left, ev, names, lang)...)
			return
		}
		if ok, _ := n.right.eval(ev, names); !ok {
			*out = append(*out, explainFact(n.right, ev, names, lang)...)
			return
		}
		key := "order.after"
		if n.before {
			key = "order.before"
		}
		*out = append(*out, explainText(lang, key))
	case *notNode:
		*out = append(*out, explainText(lang, "not"))
	case *fact:
		*out = append(*out, explainFact(n, ev, names, lang)...)
	}
}

// explainFact says why one fact does not hold.
func explainFact(f *fact, ev []engine.Event, names engine.Names, lang string) []string {
	w := f.worker
	if w == "" {
		w = explainText(lang, "someone")
	}
	tok := ""
	if f.token != 0 {
		tok = strconv.FormatInt(f.token, 10)
	}
	switch f.kind {
	case factVerdict:
		return explainVerdict(f, ev, names, lang, w, tok)
	case factActs:
		if s := explainNoWrite(f, ev, names, lang, w, tok); s != nil {
			return s
		}
		return []string{fmt.Sprintf(explainText(lang, "acts"), w)}
	case factAfterExp:
		if !anyEvent(ev, func(e engine.Event) bool { return e.Kind == engine.KindExpire && f.isWorker(e.Peer()) }) {
			return []string{fmt.Sprintf(explainText(lang, "expire.none"), w)}
		}
		return []string{fmt.Sprintf(explainText(lang, "after.none"), w)}
	case factExpires:
		return []string{fmt.Sprintf(explainText(lang, "expire.none"), w)}
	case factAcquires:
		return []string{fmt.Sprintf(explainText(lang, "acquire.none"), w)}
	case factLeader:
		return []string{explainText(lang, "leader.none")}
	case factViolation:
		switch {
		case f.harm:
			return []string{explainText(lang, "harm.none")}
		case f.reason == engine.ReasonNone:
			return []string{explainText(lang, "violation.any")}
		}
		return []string{fmt.Sprintf(explainText(lang, "violation.none"), lookupName(lang, "harm.", f.reason.String()))}
	case factNoViolate:
		if f.harm {
			return []string{explainText(lang, "harm.some")}
		}
		return []string{explainText(lang, "violation.some")}
	}
	return []string{explainText(lang, "generic")}
}

// explainVerdict: a write should be accepted or rejected and was not.
func explainVerdict(f *fact, ev []engine.Event, names engine.Names, lang, w, tok string) []string {
	var accepted, rejected, written bool
	var harmAccept bool
	for i, e := range ev {
		switch {
		case e.Kind == engine.KindWrite && f.isWorker(e.Node) && (f.key == "" || names.Key(e.Key) == f.key) && (f.token == 0 || e.Token == f.token):
			written = true
		case (e.Kind == engine.KindAccept || e.Kind == engine.KindReject) && f.isWorker(e.Peer()) && (f.key == "" || names.Key(e.Key) == f.key) && (f.token == 0 || e.Token == f.token):
			if e.Kind == engine.KindAccept {
				accepted = true
				for _, v := range ev[i:] {
					if v.Kind == engine.KindViolation && int(v.Ref()) == i {
						harmAccept = true
					}
				}
			} else {
				rejected = true
			}
		}
	}
	switch {
	case !written:
		if s := explainNoWrite(f, ev, names, lang, w, tok); s != nil {
			return s
		}
		return []string{fmt.Sprintf(explainText(lang, "write.none"), w)}
	case f.accepted && rejected:
		return []string{fmt.Sprintf(explainText(lang, "write.rejected"), w)}
	case !f.accepted && accepted && harmAccept:
		return []string{fmt.Sprintf(explainText(lang, "write.accepted.unchecked"), w)}
	case !f.accepted && accepted:
		return []string{fmt.Sprintf(explainText(lang, "write.accepted.live"), w)}
	}
	return []string{fmt.Sprintf(explainText(lang, "write.pending"), w)}
}

// explainNoWrite says why a worker has not written (with the token asked
// for): the token went to someone else, or the worker is still frozen.
// nil when the log shows nothing better than "not yet".
func explainNoWrite(f *fact, ev []engine.Event, names engine.Names, lang, w, tok string) []string {
	if f.worker == "" {
		return nil
	}
	var out []string
	if tok != "" {
		for _, e := range ev {
			if e.Kind == engine.KindGrant && e.Token == f.token && e.Peer() != f.wnode && e.Peer() >= 0 {
				out = append(out, fmt.Sprintf(explainText(lang, "token.other"), tok, names.Of(e.Peer()), w))
				break
			}
		}
	}
	frozen := false
	for _, e := range ev {
		switch {
		case e.Kind == engine.KindReset:
			frozen = false
		case e.Node != f.wnode:
		case e.Kind == engine.KindFreeze:
			frozen = true
		case e.Kind == engine.KindThaw, e.Kind == engine.KindCrash:
			frozen = false
		}
	}
	if frozen {
		out = append(out, fmt.Sprintf(explainText(lang, "frozen"), w))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func anyEvent(ev []engine.Event, ok func(engine.Event) bool) bool {
	for _, e := range ev {
		if ok(e) {
			return true
		}
	}
	return false
}

func explainText(lang, key string) string { return catalog.T(lang, "explain."+key) }
