package labs

import (
	"fmt"
	"strconv"

	"leaselab/catalog"
	"leaselab/engine"
)

// DescribeEvent is one event as a sentence in lang ("id" or "en"; any
// other language gets Indonesian), without its time.
func DescribeEvent(e engine.Event, names engine.Names, lang string) string {
	pick := func(key string) string { return catalog.T(lang, key) }
	n, p := NodeName(names, e.Node, lang), NodeName(names, e.Peer(), lang)
	tok := strconv.FormatInt(e.Token, 10)
	reason := reasonText(e.Reason(), lang)
	switch e.Kind {
	case engine.KindSend:
		return fmt.Sprintf(pick("event.send"), n, MsgName(e.Msg(), lang), p)
	case engine.KindRecv:
		return fmt.Sprintf(pick("event.recv"), n, MsgName(e.Msg(), lang), p)
	case engine.KindDrop:
		return fmt.Sprintf(pick("event.drop"), MsgName(e.Msg(), lang), n, p, reason)
	case engine.KindGrant:
		if e.At == engine.Never {
			return fmt.Sprintf(pick("event.grant"), p, tok)
		}
		return fmt.Sprintf(pick("event.grant.2"), p, tok, e.At)
	case engine.KindQueue:
		return fmt.Sprintf(pick("event.queue"), p)
	case engine.KindDeny:
		return fmt.Sprintf(pick("event.deny"), p, reason)
	case engine.KindExtend:
		if e.Reason() == engine.ReasonRefresh {
			return fmt.Sprintf(pick("event.extend.refresh"), p, tok, e.At)
		}
		return fmt.Sprintf(pick("event.extend"), p, tok, e.At)
	case engine.KindRenewReject:
		return fmt.Sprintf(pick("event.renew-reject"), p, tok)
	case engine.KindUnavailable:
		return fmt.Sprintf(pick("event.unavailable"), p, reason)
	case engine.KindExpire:
		if e.Reason() == engine.ReasonTakeover {
			return fmt.Sprintf(pick("event.expire.takeover"), p, tok)
		}
		return fmt.Sprintf(pick("event.expire"), p, tok)
	case engine.KindRelease:
		return fmt.Sprintf(pick("event.release"), p, tok)
	case engine.KindElection:
		return fmt.Sprintf(pick("event.election"), e.At)
	case engine.KindLeader:
		return fmt.Sprintf(pick("event.leader"), e.Value)
	case engine.KindReplica:
		if e.Reason() == engine.ReasonUp {
			return fmt.Sprintf(pick("event.replica"), e.Value)
		}
		return fmt.Sprintf(pick("event.replica.2"), e.Value)
	case engine.KindStart:
		return fmt.Sprintf(pick("event.start"), n)
	case engine.KindAcquired:
		return fmt.Sprintf(pick("event.acquired"), n, tok, e.At)
	case engine.KindRenewed:
		return fmt.Sprintf(pick("event.renewed"), n, tok, e.At)
	case engine.KindLost:
		return fmt.Sprintf(pick("event.lost"), n, tok, reason)
	case engine.KindWork:
		return fmt.Sprintf(pick("event.work"), n, engine.Time(e.Value))
	case engine.KindCheck:
		if e.Reason() == engine.ReasonOK {
			return fmt.Sprintf(pick("event.check"), n, e.At)
		}
		return fmt.Sprintf(pick("event.check.2"), n, e.At)
	case engine.KindWrite:
		verb := pick("event.write")
		if e.Effect() {
			verb = pick("event.write.2")
		}
		if e.Token == 0 {
			return fmt.Sprintf(pick("event.write.3"), n, verb, names.Key(e.Key))
		}
		return fmt.Sprintf(pick("event.write.4"), n, verb, names.Key(e.Key), tok)
	case engine.KindTimeout:
		return fmt.Sprintf(pick("event.timeout"), e.Msg(), n)
	case engine.KindDone:
		return fmt.Sprintf(pick("event.done"), n)
	case engine.KindAccept:
		if e.Reason() == engine.ReasonSameValue {
			return fmt.Sprintf(pick("event.accept"), names.Key(e.Key), p, tok)
		}
		return fmt.Sprintf(pick("event.accept.2"), names.Key(e.Key), p, tok, e.Value)
	case engine.KindReject:
		why := reason
		switch e.Reason() {
		case engine.ReasonStaleToken:
			why = fmt.Sprintf(pick("event.reject"), tok, e.Value)
		case engine.ReasonNotCurrent:
			why = fmt.Sprintf(pick("event.reject.2"), e.Value)
		case engine.ReasonVersion:
			why = fmt.Sprintf(pick("event.reject.3"), e.Value)
		}
		return fmt.Sprintf(pick("event.reject.4"), names.Key(e.Key), p, tok, why)
	case engine.KindRead:
		return fmt.Sprintf(pick("event.read"), p, e.Value)
	case engine.KindFreeze:
		if e.At != 0 {
			return fmt.Sprintf(pick("event.freeze"), n, e.At)
		}
		return fmt.Sprintf(pick("event.freeze.2"), n)
	case engine.KindThaw:
		return fmt.Sprintf(pick("event.thaw"), n)
	case engine.KindCrash:
		return fmt.Sprintf(pick("event.crash"), n)
	case engine.KindRestart:
		return fmt.Sprintf(pick("event.restart"), n)
	case engine.KindFencing:
		return fmt.Sprintf(pick("event.fencing"), engine.StorageMode(e.Value))
	case engine.KindPartition:
		if e.Peer() == engine.NoNode {
			return fmt.Sprintf(pick("event.partition"), n)
		}
		return fmt.Sprintf(pick("event.partition.2"), n, p)
	case engine.KindHeal:
		if e.Peer() == engine.NoNode {
			return pick("event.heal")
		}
		return fmt.Sprintf(pick("event.heal.2"), n, p)
	case engine.KindLink:
		return fmt.Sprintf(pick("event.link"), n, p, e.At, strconv.FormatFloat(float64(e.Value)/1e6, 'f', -1, 64))
	case engine.KindClock:
		return fmt.Sprintf(pick("event.clock"), n, e.At)
	case engine.KindReset:
		return pick("event.reset")
	case engine.KindViolation:
		return violationText(e, p, tok, lang)
	}
	switch e.Kind {
	case engine.KindRenewError:
		if e.Value == 1 {
			return fmt.Sprintf(pick("event.renew-error"), n, reason)
		}
		return fmt.Sprintf(pick("event.renew-error.2"), n, reason)
	case engine.KindUncertain:
		if e.Reason() == engine.ReasonJeopardy {
			return fmt.Sprintf(pick("event.uncertain.jeopardy"), n, e.At)
		}
		return fmt.Sprintf(pick("event.uncertain"), n, engine.Time(e.Value), e.At)
	case engine.KindGiveUp:
		return fmt.Sprintf(pick("event.give-up"), n, reason, e.At)
	case engine.KindStaleReply:
		return fmt.Sprintf(pick("event.stale-reply"), n, e.Value)
	case engine.KindPublish:
		return fmt.Sprintf(pick("event.publish"), n, tok)
	case engine.KindRefuse:
		return fmt.Sprintf(pick("event.refuse"), n, engine.Time(e.Value), e.At)
	}
	return names.Describe(e)
}

// violationTexts is built once: violations are described on every frame.

func violationText(e engine.Event, p, tok, lang string) string {
	if f, ok := catalog.Lookup(lang, "violation."+e.Reason().String()); ok {
		return fmt.Sprintf(f, p, tok)
	}
	return fmt.Sprintf(catalog.T(lang, "violation.other"), e.Reason())
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

// MsgName is a message kind in lang's words.
func MsgName(m engine.MsgKind, lang string) string {
	if t, ok := catalog.Lookup(lang, "msg."+m.String()); ok {
		return t
	}
	return m.String()
}

func reasonText(r engine.Reason, lang string) string {
	if t, ok := catalog.Lookup(lang, "reason."+r.String()); ok {
		return t
	}
	return r.String()
}
