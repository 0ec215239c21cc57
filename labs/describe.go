package labs

import (
	"strconv"

	"leaselab/catalog"
	"leaselab/engine"
)

// DescribeEvent is one event as a sentence in lang ("id" or "en"; any
// other language gets Indonesian), without its time.
func DescribeEvent(e engine.Event, names engine.Names, lang string) string {
	var buf [160]byte
	return string(AppendEvent(buf[:0], e, names, lang))
}

// AppendEvent appends DescribeEvent's sentence to b: a live frame writes
// event rows and mark titles into its buffer without a string for each
// (TestAppendEventIsTheSentence holds it to the sentences fmt made).
func AppendEvent(b []byte, e engine.Event, names engine.Names, lang string) []byte {
	f := func(key string, args ...catalog.Arg) []byte { return catalog.Append(b, lang, key, args...) }
	words := wordsOf(lang)
	n, p := catalog.Str(NodeName(names, e.Node, lang)), catalog.Str(NodeName(names, e.Peer(), lang))
	tok := catalog.Decimal(e.Token)
	reason := catalog.Str(words.reasonName(e.Reason(), lang))
	msg := catalog.Str(words.msgName(e.Msg(), lang))
	at := catalog.Time(e.At)
	switch e.Kind {
	case engine.KindSend:
		return f("event.send", n, msg, p)
	case engine.KindRecv:
		return f("event.recv", n, msg, p)
	case engine.KindDrop:
		return f("event.drop", msg, n, p, reason)
	case engine.KindGrant:
		if e.At == engine.Never {
			return f("event.grant", p, tok)
		}
		return f("event.grant.2", p, tok, at)
	case engine.KindQueue:
		return f("event.queue", p)
	case engine.KindDeny:
		return f("event.deny", p, reason)
	case engine.KindExtend:
		if e.Reason() == engine.ReasonRefresh {
			return f("event.extend.refresh", p, tok, at)
		}
		return f("event.extend", p, tok, at)
	case engine.KindRenewReject:
		return f("event.renew-reject", p, tok)
	case engine.KindUnavailable:
		return f("event.unavailable", p, reason)
	case engine.KindExpire:
		if e.Reason() == engine.ReasonTakeover {
			return f("event.expire.takeover", p, tok)
		}
		return f("event.expire", p, tok)
	case engine.KindRelease:
		return f("event.release", p, tok)
	case engine.KindElection:
		return f("event.election", at)
	case engine.KindLeader:
		return f("event.leader", catalog.Int(e.Value))
	case engine.KindReplica:
		if e.Reason() == engine.ReasonUp {
			return f("event.replica", catalog.Int(e.Value))
		}
		return f("event.replica.2", catalog.Int(e.Value))
	case engine.KindStart:
		return f("event.start", n)
	case engine.KindAcquired:
		return f("event.acquired", n, tok, at)
	case engine.KindRenewed:
		return f("event.renewed", n, tok, at)
	case engine.KindLost:
		return f("event.lost", n, tok, reason)
	case engine.KindWork:
		return f("event.work", n, catalog.Time(engine.Time(e.Value)))
	case engine.KindCheck:
		if e.Reason() == engine.ReasonOK {
			return f("event.check", n, at)
		}
		return f("event.check.2", n, at)
	case engine.KindWrite:
		verb := catalog.Str(catalog.T(lang, "event.write"))
		if e.Effect() {
			verb = catalog.Str(catalog.T(lang, "event.write.2"))
		}
		if e.Token == 0 {
			return f("event.write.3", n, verb, catalog.Str(ObjectName(names, e.Key, lang)))
		}
		return f("event.write.4", n, verb, catalog.Str(ObjectName(names, e.Key, lang)), tok)
	case engine.KindTimeout:
		return f("event.timeout", msg, n)
	case engine.KindDone:
		return f("event.done", n)
	case engine.KindAccept:
		if e.Reason() == engine.ReasonSameValue {
			return f("event.accept", catalog.Str(ObjectName(names, e.Key, lang)), p, tok)
		}
		return f("event.accept.2", catalog.Str(ObjectName(names, e.Key, lang)), p, tok, catalog.Int(e.Value))
	case engine.KindReject:
		// Why, in words of its own, goes into the sentence: written into
		// scratch first.
		var scratch [96]byte
		why := reason
		switch e.Reason() {
		case engine.ReasonStaleToken:
			why = catalog.Bytes(catalog.Append(scratch[:0], lang, "event.reject", tok, catalog.Int(e.Value)))
		case engine.ReasonNotCurrent:
			why = catalog.Bytes(catalog.Append(scratch[:0], lang, "event.reject.2", catalog.Int(e.Value)))
		case engine.ReasonVersion:
			why = catalog.Bytes(catalog.Append(scratch[:0], lang, "event.reject.3", catalog.Int(e.Value)))
		}
		return f("event.reject.4", catalog.Str(ObjectName(names, e.Key, lang)), p, tok, why)
	case engine.KindRead:
		return f("event.read", p, catalog.Int(e.Value))
	case engine.KindFreeze:
		if e.At != 0 {
			return f("event.freeze", n, at)
		}
		return f("event.freeze.2", n)
	case engine.KindThaw:
		return f("event.thaw", n)
	case engine.KindCrash:
		return f("event.crash", n)
	case engine.KindRestart:
		return f("event.restart", n)
	case engine.KindFencing:
		return f("event.fencing", catalog.Str(catalog.T(lang, "mode."+engine.StorageMode(e.Value).String())))
	case engine.KindPartition:
		if e.Peer() == engine.NoNode {
			return f("event.partition", n)
		}
		return f("event.partition.2", n, p)
	case engine.KindHeal:
		if e.Peer() == engine.NoNode {
			return append(b, catalog.T(lang, "event.heal")...) // words, not a format
		}
		return f("event.heal.2", n, p)
	case engine.KindLink:
		var scratch [32]byte
		var point [32]byte
		loss := catalog.Bytes(catalog.AppendNumber(scratch[:0], lang, strconv.AppendFloat(point[:0], float64(e.Value)/1e6, 'f', -1, 64)))
		return f("event.link", n, p, at, loss)
	case engine.KindClock:
		return f("event.clock", n, at)
	case engine.KindReset:
		return append(b, catalog.T(lang, "event.reset")...)
	case engine.KindViolation:
		if format := words.violationFormat(e.Reason(), lang); format != "" {
			return catalog.Appendf(b, format, p, tok)
		}
		return f("violation.other", catalog.Str(e.Reason().String()))
	case engine.KindRenewError:
		if e.Value == 1 {
			return f("event.renew-error", n, reason)
		}
		return f("event.renew-error.2", n, reason)
	case engine.KindUncertain:
		if e.Reason() == engine.ReasonJeopardy {
			return f("event.uncertain.jeopardy", n, at)
		}
		return f("event.uncertain", n, catalog.Time(engine.Time(e.Value)), at)
	case engine.KindGiveUp:
		return f("event.give-up", n, reason, at)
	case engine.KindStaleReply:
		return f("event.stale-reply", n, catalog.Int(e.Value))
	case engine.KindPublish:
		return f("event.publish", n, tok)
	case engine.KindRefuse:
		return f("event.refuse", n, catalog.Time(engine.Time(e.Value)), at)
	}
	return append(b, names.Describe(e)...)
}

// NodeName is a node's name for a student: a worker's own name, and the
// coordinator and the storage in lang's words.
func NodeName(names engine.Names, n engine.Node, lang string) string {
	switch n {
	case engine.Coord:
		return catalog.T(lang, "node.coord")
	case engine.Storage:
		return catalog.T(lang, "node.storage")
	}
	return names.Of(n)
}

// ObjectName is the name of what a write puts, for a student: lang's
// word for it where the catalog has one (object.KEY: "report" is
// "laporan" in Indonesian), else the key itself. The engine and the
// lab files keep the key.
func ObjectName(names engine.Names, k engine.KeyID, lang string) string {
	return lookupName(lang, "object.", names.Key(k))
}

// ReasonName is a reason in lang's words.
func ReasonName(r engine.Reason, lang string) string { return wordsOf(lang).reasonName(r, lang) }

// MsgName is a message kind in lang's words.
func MsgName(m engine.MsgKind, lang string) string { return wordsOf(lang).msgName(m, lang) }

// eventWords are the words an event's sentence takes by an engine name
// (msg.NAME, reason.NAME, violation.NAME), for one language, found once:
// joining each key anew cost every sentence a string or two.
type eventWords struct {
	msg, reason, violation []string // by value; violation "" for none
}

// eventWordsOf is every catalog language's eventWords; wordsOf falls
// back to the default language's, as catalog.Lookup does.
var eventWordsOf = func() map[string]*eventWords {
	m := map[string]*eventWords{}
	for _, lang := range catalog.Langs() {
		w := &eventWords{msg: make([]string, 256), reason: make([]string, 256), violation: make([]string, 256)}
		for i := range 256 {
			w.msg[i] = lookupName(lang, "msg.", engine.MsgKind(i).String())
			w.reason[i] = lookupName(lang, "reason.", engine.Reason(i).String())
			w.violation[i], _ = catalog.Lookup(lang, "violation."+engine.Reason(i).String())
		}
		m[lang] = w
	}
	return m
}()

func wordsOf(lang string) *eventWords {
	if w, ok := eventWordsOf[lang]; ok {
		return w
	}
	return eventWordsOf[catalog.Default]
}

// lookupName is prefix+name's text in lang, else name.
func lookupName(lang, prefix, name string) string {
	if t, ok := catalog.Lookup(lang, prefix+name); ok {
		return t
	}
	return name
}

func (w *eventWords) msgName(m engine.MsgKind, lang string) string {
	if int(m) < len(w.msg) {
		return w.msg[m]
	}
	return lookupName(lang, "msg.", m.String())
}

func (w *eventWords) reasonName(r engine.Reason, lang string) string {
	if int(r) < len(w.reason) {
		return w.reason[r]
	}
	return lookupName(lang, "reason.", r.String())
}

// violationFormat is violation r's sentence, "" when it has none of its
// own.
func (w *eventWords) violationFormat(r engine.Reason, lang string) string {
	if int(r) < len(w.violation) {
		return w.violation[r]
	}
	s, _ := catalog.Lookup(lang, "violation."+r.String())
	return s
}
