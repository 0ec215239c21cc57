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
	s := eventSay{b: b, e: e, names: names, lang: lang, words: wordsOf(lang)}
	s.n, s.p = catalog.Str(NodeName(names, e.Node, lang)), catalog.Str(NodeName(names, e.Peer(), lang))
	s.tok = catalog.Decimal(e.Token)
	s.reason = catalog.Str(s.words.reasonName(e.Reason(), lang))
	s.msg = catalog.Str(s.words.msgName(e.Msg(), lang))
	s.at = catalog.Moment(e.At) // an event's At is a moment, except a link's delay and a refusal's need
	// Called one by one, not through a table of functions: so s stays on
	// the stack, and a frame's sentences allocate nothing.
	if out, ok := s.messageEvent(); ok {
		return out
	}
	if out, ok := s.leaseEvent(); ok {
		return out
	}
	if out, ok := s.workerEvent(); ok {
		return out
	}
	if out, ok := s.storageEvent(); ok {
		return out
	}
	if out, ok := s.changeEvent(); ok {
		return out
	}
	return append(b, names.Describe(e)...)
}

// eventSay is one event being said: where it goes, and the words its
// sentences take (its node, its peer, its token, its reason, its message,
// its time).
type eventSay struct {
	b     []byte
	e     engine.Event
	names engine.Names
	lang  string
	words *eventWords

	n, p, tok, reason, msg, at catalog.Arg
}

// f appends key's sentence filled with args.
func (s *eventSay) f(key string, args ...catalog.Arg) []byte {
	return catalog.Append(s.b, s.lang, key, args...)
}

// messageEvent says a message sent, received, lost or timed out.
func (s *eventSay) messageEvent() ([]byte, bool) {
	e := s.e
	switch e.Kind {
	case engine.KindSend:
		return s.f("event.send", s.n, s.msg, s.p), true
	case engine.KindRecv:
		return s.f("event.recv", s.n, s.msg, s.p), true
	case engine.KindDrop:
		return s.f("event.drop", s.msg, s.n, s.p, s.reason), true
	case engine.KindUnavailable:
		return s.f("event.unavailable", s.p, s.reason), true
	case engine.KindTimeout:
		return s.f("event.timeout", s.msg, s.n), true
	}
	return nil, false
}

// leaseEvent says what the coordinator did with a lease, and its replicas.
func (s *eventSay) leaseEvent() ([]byte, bool) {
	e := s.e
	switch e.Kind {
	case engine.KindGrant:
		if e.At == engine.Never {
			s.b = s.f("event.grant", s.p, s.tok)
		} else {
			s.b = s.f("event.grant.2", s.p, s.tok, s.at)
		}
		if e.Reason() == engine.ReasonLeaseID {
			return catalog.Append(s.b, s.lang, "event.lease-id", catalog.Int(e.Value)), true
		}
		return s.logIndex(e.Value), true
	case engine.KindQueue:
		return s.f("event.queue", s.p), true
	case engine.KindDeny:
		return s.f("event.deny", s.p, s.reason), true
	case engine.KindExtend:
		if r := e.Reason(); r == engine.ReasonRefresh || r == engine.ReasonResume {
			return s.f("event.extend."+r.String(), s.p, s.tok, s.at), true
		}
		return s.f("event.extend", s.p, s.tok, s.at), true
	case engine.KindRenewReject:
		if e.Reason() == engine.ReasonUnauthorized {
			return s.f("event.renew-reject.unauthorized", s.p, s.tok), true
		}
		return s.f("event.renew-reject", s.p, s.tok), true
	case engine.KindExpire:
		if r := e.Reason(); r == engine.ReasonTakeover || r == engine.ReasonForgotten || r == engine.ReasonRevoked {
			s.b = s.f("event.expire."+r.String(), s.p, s.tok)
		} else {
			s.b = s.f("event.expire", s.p, s.tok)
		}
		return s.logIndex(e.Value), true
	case engine.KindRelease:
		s.b = s.f("event.release", s.p, s.tok)
		return s.logIndex(e.Value), true
	case engine.KindElection:
		return s.f("event.election", s.at), true
	case engine.KindLeader:
		s.b = s.f("event.leader", catalog.Int(e.Value))
		return s.logIndex(e.Token), true
	case engine.KindReplica:
		if e.Reason() == engine.ReasonUp {
			return s.f("event.replica", catalog.Int(e.Value)), true
		}
		return s.f("event.replica.2", catalog.Int(e.Value)), true
	}
	return nil, false
}

// logIndex appends the index of the coordinator's log entry the event
// records, when the scenario shows the log (tokens=log): " (entri log
// ke-5)".
func (s *eventSay) logIndex(i int64) []byte {
	if i <= 0 {
		return s.b
	}
	return catalog.Append(s.b, s.lang, "event.log-index", catalog.Int(i))
}

// workerEvent says what a worker did, believed or gave up.
func (s *eventSay) workerEvent() ([]byte, bool) {
	e := s.e
	switch e.Kind {
	case engine.KindStart:
		return s.f("event.start", s.n), true
	case engine.KindAcquired:
		return s.f("event.acquired", s.n, s.tok, s.at), true
	case engine.KindRenewed:
		return s.f("event.renewed", s.n, s.tok, s.at), true
	case engine.KindLost:
		return s.f("event.lost", s.n, s.tok, s.reason), true
	case engine.KindWork:
		return s.f("event.work", s.n, catalog.Time(engine.Time(e.Value))), true
	case engine.KindCheck:
		if e.Reason() == engine.ReasonOK {
			return s.f("event.check", s.n, s.at), true
		}
		return s.f("event.check.2", s.n, s.at), true
	case engine.KindWrite:
		var scratch [96]byte
		if e.Rename() {
			return s.f("event.write.rename", s.n, s.object(scratch[:0]), catalog.Str(ObjectName(s.names, e.Key, s.lang)), s.tok), true
		}
		verb := catalog.Str(catalog.T(s.lang, "event.write"))
		if e.Effect() {
			verb = catalog.Str(catalog.T(s.lang, "event.write.2"))
		}
		if e.Token == 0 {
			return s.f("event.write.3", s.n, verb, s.object(scratch[:0])), true
		}
		return s.f("event.write.4", s.n, verb, s.object(scratch[:0]), s.tok), true
	case engine.KindDone:
		return s.f("event.done", s.n), true
	case engine.KindRenewError:
		if e.Value == 1 {
			return s.f("event.renew-error", s.n, s.reason), true
		}
		return s.f("event.renew-error.2", s.n, s.reason), true
	case engine.KindUncertain:
		if r := e.Reason(); r == engine.ReasonJeopardy || r == engine.ReasonSuspended {
			return s.f("event.uncertain."+r.String(), s.n, s.at), true
		}
		return s.f("event.uncertain", s.n, catalog.Time(engine.Time(e.Value)), s.at), true
	case engine.KindGiveUp:
		return s.f("event.give-up", s.n, s.reason, s.at), true
	case engine.KindStaleReply:
		return s.f("event.stale-reply", s.n, catalog.Int(e.Value)), true
	case engine.KindPublish:
		return s.f("event.publish", s.n, s.tok), true
	case engine.KindRefuse:
		return s.f("event.refuse", s.n, catalog.Time(engine.Time(e.Value)), catalog.Time(e.At)), true
	}
	return nil, false
}

// storageEvent says what the storage did with a write, and a violation an observer found.
func (s *eventSay) storageEvent() ([]byte, bool) {
	e := s.e
	switch e.Kind {
	case engine.KindAccept:
		var scratch [96]byte
		what := s.object(scratch[:0])
		switch {
		case e.Temp():
			return s.copyNamed(s.f("event.accept.temp", what, s.p, s.tok)), true
		case e.Rename():
			return s.copyNamed(s.f("event.accept.rename", what, catalog.Str(ObjectName(s.names, e.Key, s.lang)), s.p, s.tok, catalog.Int(e.Value))), true
		case e.Reason() == engine.ReasonSameValue:
			return s.copyNamed(s.f("event.accept", what, s.p, s.tok)), true
		case e.Token == 0 && e.Value == 0:
			// A write that carried no token (the storage checks none): the
			// sentence says so, as the writer's did, not "token 0".
			return s.copyNamed(s.f("event.accept.3", what, s.p)), true
		}
		return s.copyNamed(s.f("event.accept.2", what, s.p, s.tok, catalog.Int(e.Value))), true
	case engine.KindReject:
		// Why, in s.words of its own, goes into the sentence: written into
		// scratch first.
		var scratch [96]byte
		why := s.reason
		switch e.Reason() {
		case engine.ReasonStaleToken:
			why = catalog.Bytes(catalog.Append(scratch[:0], s.lang, "event.reject", s.tok, catalog.Int(e.Value)))
		case engine.ReasonNotCurrent:
			why = catalog.Bytes(catalog.Append(scratch[:0], s.lang, "event.reject.2", catalog.Int(e.Value)))
		case engine.ReasonVersion:
			why = catalog.Bytes(catalog.Append(scratch[:0], s.lang, "event.reject.3", catalog.Int(e.Value)))
		}
		var what [96]byte
		if e.Rename() {
			return s.copyNamed(s.f("event.reject.rename", s.object(what[:0]), catalog.Str(ObjectName(s.names, e.Key, s.lang)), s.p, s.tok, why)), true
		}
		return s.copyNamed(s.f("event.reject.4", s.object(what[:0]), s.p, s.tok, why)), true
	case engine.KindRead:
		return s.f("event.read", s.p, catalog.Int(e.Value)), true
	case engine.KindReplicate:
		key := "event.replicate"
		switch e.Reason() {
		case engine.ReasonPartition:
			key = "event.replicate.held"
		case engine.ViolationDiverged:
			key = "event.replicate.refused"
		}
		return s.f(key, catalog.Str(ObjectName(s.names, e.Key, s.lang)), s.p, s.tok, catalog.Int(e.Value)), true
	case engine.KindViolation:
		if format := s.words.cause[[2]engine.Reason{e.Reason(), e.Cause()}]; format != "" {
			// The lease ended otherwise than by its expiry: the sentence
			// says how (its session revoked), not "expired".
			return catalog.Appendf(s.b, format, s.p, s.tok), true
		}
		if format := s.words.violationFormat(e.Reason(), s.lang); format != "" {
			return catalog.Appendf(s.b, format, s.p, s.tok), true
		}
		return s.f("violation.other", catalog.Str(e.Reason().String())), true
	}
	return nil, false
}

// object writes, into scratch, what a write, an accept or a reject acts
// on, in the reader's words: the key ("laporan"); the key's temporary
// name, which carries the writer's token ("laporan.7.tmp"); one part of
// either ("bagian ke-2 laporan", and on the writer's side of how many).
func (s *eventSay) object(scratch []byte) catalog.Arg {
	e := s.e
	name := ObjectName(s.names, e.Key, s.lang)
	if !e.Temp() && !e.Rename() && e.Part() == 0 {
		return catalog.Str(name)
	}
	b := scratch[:0]
	what := catalog.Str(name)
	if e.Temp() || e.Rename() {
		b = append(strconv.AppendInt(append(append(b, name...), '.'), e.Token, 10), ".tmp"...)
		what = catalog.Bytes(b)
	}
	if e.Part() == 0 {
		return what
	}
	start := len(b)
	if e.Kind == engine.KindWrite {
		b = catalog.Append(b, s.lang, "event.part.of", catalog.Int(int64(e.Part())), catalog.Int(int64(e.At)), what)
	} else {
		b = catalog.Append(b, s.lang, "event.part", catalog.Int(int64(e.Part())), what)
	}
	return catalog.Bytes(b[start:])
}

// copyNamed appends which storage copy an accept or a reject happened
// on, when the storage keeps two (the event's At): " (salinan 1)".
func (s *eventSay) copyNamed(b []byte) []byte {
	if s.e.At != 1 && s.e.At != 2 {
		return b
	}
	return catalog.Append(b, s.lang, "event.copy", catalog.Int(int64(s.e.At)))
}

// changeEvent says a command that changed the world.
func (s *eventSay) changeEvent() ([]byte, bool) {
	e := s.e
	switch e.Kind {
	case engine.KindFreeze:
		if e.At != 0 {
			return s.f("event.freeze", s.n, s.at), true
		}
		return s.f("event.freeze.2", s.n), true
	case engine.KindThaw:
		return s.f("event.thaw", s.n), true
	case engine.KindCrash:
		return s.f("event.crash", s.n), true
	case engine.KindRestart:
		return s.f("event.restart", s.n), true
	case engine.KindFencing:
		return s.f("event.fencing", catalog.Str(catalog.T(s.lang, "mode."+engine.StorageMode(e.Value).String()))), true
	case engine.KindPartition:
		if e.Peer() == engine.NoNode {
			return s.f("event.partition", s.n), true
		}
		if e.Node == engine.Storage && e.Peer() == engine.Storage {
			return append(s.b, catalog.T(s.lang, "event.partition.copies")...), true
		}
		return s.f("event.partition.2", s.n, s.p), true
	case engine.KindHeal:
		if e.Peer() == engine.NoNode {
			return append(s.b, catalog.T(s.lang, "event.heal")...), true // words, not a format
		}
		if e.Node == engine.Storage && e.Peer() == engine.Storage {
			return append(s.b, catalog.T(s.lang, "event.heal.copies")...), true
		}
		return s.f("event.heal.2", s.n, s.p), true
	case engine.KindLink:
		var scratch [32]byte
		var point [32]byte
		loss := catalog.Bytes(catalog.AppendNumber(scratch[:0], s.lang, strconv.AppendFloat(point[:0], float64(e.Value)/1e6, 'f', -1, 64)))
		return s.f("event.link", s.n, s.p, catalog.Time(e.At), loss), true
	case engine.KindClock:
		if e.Node == engine.Coord && e.Token > 0 {
			var scratch [48]byte
			who := catalog.Bytes(catalog.Append(scratch[:0], s.lang, "node.replica", catalog.Int(e.Token)))
			return s.f("event.clock", who, s.at), true
		}
		return s.f("event.clock", s.n, s.at), true
	case engine.KindReset:
		return append(s.b, catalog.T(s.lang, "event.reset")...), true
	}
	return nil, false
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
	// cause is a violation's sentence by the violation and its cause
	// (engine.Event.Cause), where the catalog has one of its own
	// (violation.NAME.CAUSE).
	cause map[[2]engine.Reason]string
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
		w.cause = map[[2]engine.Reason]string{}
		for _, v := range []engine.Reason{engine.ViolationStaleWrite, engine.ViolationActedAfterExpiry} {
			for _, c := range []engine.Reason{engine.ReasonRevoked, engine.ReasonForgotten} {
				if t, ok := catalog.Lookup(lang, "violation."+v.String()+"."+c.String()); ok {
					w.cause[[2]engine.Reason{v, c}] = t
				}
			}
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
