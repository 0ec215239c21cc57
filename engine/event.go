package engine

import (
	"strconv"
	"strings"
)

// Node names a participant. Workers are 0..n-1; the coordinator and the
// storage have fixed negative numbers.
type Node int8

const (
	Coord   Node = -1
	Storage Node = -2
	NoNode  Node = -3
)

// Kind is what an event records.
type Kind uint8

const (
	KindNone Kind = iota
	// Network.
	KindSend // Node sends Msg to Peer
	KindRecv // Peer's Msg arrives at Node
	KindDrop // Msg from Node to Peer is lost (Reason says why)
	// Coordinator, Node = Coord.
	KindGrant       // lease granted to Peer: Token, until At
	KindQueue       // Peer waits in line for the lease
	KindDeny        // Peer may not have the lease now (Reason)
	KindExtend      // Peer's lease extended until At
	KindRenewReject // Peer asked to renew a lease it does not hold
	KindUnavailable // the coordinator cannot answer Peer (no leader or no quorum)
	KindExpire      // Peer's lease Token expired at the coordinator
	KindRelease     // Peer released Token
	KindElection    // a leader election started; done at At
	KindLeader      // replica Value became leader
	KindReplica     // replica Value went down (Reason=down) or up
	// Worker, Node = the worker.
	KindStart    // the program (re)starts
	KindAcquired // the worker learned it holds Token; believes until At (local)
	KindRenewed  // the worker's belief extended to At (local)
	KindLost     // the worker stopped holding Token (Reason)
	KindWork     // the worker starts Value ms of work
	KindCheck    // the worker checks its belief: Reason ok or expired; At = belief (local)
	KindWrite    // the worker writes Key with Token (acts on the storage); Effect: a send
	KindTimeout  // a request went unanswered
	KindDone     // the program ended
	// Renewal status, Node = the worker.
	KindRenewError // an attempt failed (Reason); Value 0 transient, 1 definitive
	KindUncertain  // status uncertain: may still hold, cannot show it; At = deadline, Value = time left
	KindGiveUp     // no further attempt this cycle (Reason no-time or tries)
	KindStaleReply // an answer for an older generation (Gen) was dropped; Value = current generation
	KindPublish    // a late-published token becomes the one the worker uses
	KindRefuse     // a work step refused to start: Value = time left, At = time needed
	// Storage, Node = Storage.
	KindAccept // write of Key from Peer with Token accepted; Value = highest token; At = the copy (1 or 2) when the storage keeps two
	KindReject // write rejected (Reason); Value = highest token or version
	KindRead   // Peer read version Value
	// Commands.
	KindFreeze    // Node frozen (until At when set)
	KindThaw      // Node resumes
	KindCrash     // Node lost its memory
	KindRestart   // Node starts its program again
	KindFencing   // storage mode changed to Value
	KindPartition // link Node—Peer cut (Peer NoNode: Node cut off)
	KindHeal      // link healed
	KindLink      // link Node→Peer delay At, loss Value ppm
	KindClock     // Node's clock changed; local reading now At, rate Value ppm
	KindReset     // the world started again
	// Observers.
	KindViolation // Reason names the violation; Ref and Ref2 prove it; Value is its Cause
	// Storage copies (scenario option copies: 2), Node = Storage.
	KindReplicate // copy Value receives Peer's write of Key with Token from the other copy (Ref: its accept); Reason partition: held, diverged: refused
	kindCount
)

var kindNames = [kindCount]string{
	"none", "send", "recv", "drop",
	"grant", "queue", "deny", "extend", "renew-reject", "unavailable", "expire", "release", "election", "leader", "replica",
	"start", "acquired", "renewed", "lost", "work", "check", "write", "timeout", "done",
	"renew-error", "uncertain", "give-up", "stale-reply", "publish", "refuse",
	"accept", "reject", "read",
	"freeze", "thaw", "crash", "restart", "fencing", "partition", "heal", "link", "clock", "reset",
	"violation",
	"replicate",
}

func (k Kind) String() string {
	if k < kindCount {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// MsgKind is the type of a network message.
type MsgKind uint8

const (
	MsgNone MsgKind = iota
	MsgAcquire
	MsgGrant
	MsgDeny
	MsgRenew
	MsgRenewOK
	MsgRenewReject
	MsgRelease
	MsgUnavailable
	MsgWrite
	MsgWriteOK
	MsgWriteErr
	MsgRead
	MsgReadOK
	MsgWake
	msgCount
)

var msgNames = [msgCount]string{"", "acquire", "grant", "deny", "renew", "renew-ok", "renew-reject", "release", "unavailable", "write", "write-ok", "write-err", "read", "read-ok", "wake"}

func (m MsgKind) String() string {
	if m < msgCount {
		return msgNames[m]
	}
	return "msg(" + strconv.Itoa(int(m)) + ")"
}

// Reason qualifies an event: why a write was rejected, why a lease was lost,
// which violation an observer found.
type Reason uint8

const (
	ReasonNone Reason = iota
	// Storage rejections.
	ReasonStaleToken // token lower than the highest seen
	ReasonNoToken    // fencing storage got a write without a token
	ReasonNotCurrent // token is not the current lease's
	ReasonVersion    // compare-and-set version mismatch
	ReasonDuplicate  // idempotency key already used
	// Lost leases and denials.
	ReasonRejected  // the storage rejected the worker's write
	ReasonNotHolder // the coordinator says the worker is not the holder
	ReasonDeadline  // the local belief ran out
	ReasonExpired   // a check found the belief expired
	ReasonHeld      // another worker holds the lease
	ReasonLockDelay // the lease is in its lock-delay
	ReasonCrash     // the worker crashed
	// Drops.
	ReasonPartition
	ReasonLoss
	ReasonDown // the receiver is crashed
	// Check results, replica states.
	ReasonOK
	ReasonUp
	ReasonNoQuorum
	ReasonNoLeader
	// Renewal.
	ReasonTimeout
	ReasonStaleGen
	ReasonNoTime
	ReasonTries
	ReasonAgain // a grant repeated to its holder
	// Storage.
	ReasonSameValue // an accepted write that put the result already there
	// Real systems.
	ReasonTakeover  // a candidate overwrote a record it judged expired by its own clock
	ReasonRefresh   // a new coordinator leader gave the lease a fresh TTL
	ReasonJeopardy  // the holder's own lease ran out; it keeps trying for a grace period
	ReasonResume    // a new master let the lease's stopped timer run on (Chubby)
	ReasonSuspended // the client heard nothing for its read timeout: disconnected (ZooKeeper, Curator SUSPENDED)
	ReasonForgotten // a Redlock master forgot the holder's key on restart, and another client got a majority
	ReasonLeaseID   // a grant's token is a lease ID made by replica Value (tokens=lease-id)
	// Credentials.
	ReasonRevoked      // an operator revoked the holder's session: its lease ends now
	ReasonUnauthorized // the coordinator refuses a request whose session (credentials) was revoked
	// Violations.
	ViolationStaleWrite       // storage accepted a write from a holder whose lease was gone
	ViolationDoubleEffect     // the same effect was accepted twice
	ViolationActedAfterExpiry // a worker wrote after its lease expired at the coordinator
	ViolationSplitBrain       // two workers believed they held the lease at the same true time
	ViolationLostUpdate       // a write with an older token overwrote a newer one
	ViolationDiverged         // each storage copy holds a write the other lacks
	ViolationRefusedHolder    // a written storage refused the lease holder's write (but as a duplicate of an effect done)
	ViolationMixed            // a key holds the parts of two writers' writes: neither's result
	ViolationDoubleGrant      // a written coordinator granted the lease while another's promised lease ran
	ViolationTokenReused      // a written coordinator granted a token not above every one before
	reasonCount
)

var reasonNames = [reasonCount]string{
	"",
	"stale-token", "no-token", "not-current", "version", "duplicate",
	"rejected", "not-holder", "deadline", "expired", "held", "lock-delay", "crash",
	"partition", "loss", "down",
	"ok", "up", "no-quorum", "no-leader",
	"timeout", "stale-generation", "no-time", "tries", "again",
	"same-value",
	"takeover", "refresh", "jeopardy", "resume", "suspended", "forgotten", "lease-id",
	"revoked", "unauthorized",
	"stale-write", "double-effect", "acted-after-expiry", "split-brain", "lost-update", "diverged",
	"refused-holder", "mixed", "double-grant", "token-reused",
}

func (r Reason) String() string {
	if r < reasonCount {
		return reasonNames[r]
	}
	return "reason(" + strconv.Itoa(int(r)) + ")"
}

// ParseReason reads a reason or violation by name.
func ParseReason(s string) (Reason, bool) {
	for i, n := range reasonNames {
		if n == s && i != 0 {
			return Reason(i), true
		}
	}
	return 0, false
}

// IsViolation reports whether r names a violation.
func (r Reason) IsViolation() bool { return r >= ViolationStaleWrite && r < reasonCount }

// IsHarm reports whether r names a violation that did harm: a stale write
// the storage accepted, a lost update, an effect done twice, two workers
// acting as holder at once, copies that diverged, or a key whose parts
// mix two writers' writes. Acting after expiry is a warning, not
// harm: whether it harms depends on what the storage does with the act.
func (r Reason) IsHarm() bool {
	switch r {
	case ViolationStaleWrite, ViolationLostUpdate, ViolationDoubleEffect, ViolationSplitBrain, ViolationDiverged, ViolationMixed, ViolationDoubleGrant, ViolationTokenReused:
		return true
	}
	return false
}

// Event is one thing that happened. It is a flat value without pointers so
// that the log is one slice the garbage collector never scans, and
// recording an event allocates nothing.
//
// An event is 48 bytes. Its time, kind, node, key, token, At and Value are
// fields of every event. The rest is what the kind of event says besides,
// read with the methods Peer, Msg, Reason, Effect, Ref, Ref2, Gen and Prev:
// most events say whom they concern, a message, a reason, an effect and up
// to two proofs; a renewal-status event says a generation instead of the
// proofs; a renewal (renewed), which says none of these, says its
// generation and the believed end before it. EventFields spells an event
// out, every field its own.
type Event struct {
	T     Time
	Token int64
	At    Time
	Value int64
	Kind  Kind
	Node  Node
	Key   KeyID // the lease (coordinator events, renewed) or the storage key (write, accept, reject); Names.Key gives its name

	peer   Node
	msg    MsgKind
	reason Reason
	flags  uint8 // flagEffect
	ref    int32
	ref2   int32 // a renewal-status event's or a renewal's generation
	// A renewal keeps Prev in ref (its low half) and in peer, msg, reason
	// and flags (its high half, a byte each, in that order): with the time,
	// token, At and Value it says five 8-byte numbers, which 48 bytes hold
	// only in the room of what it does not say.
}

// The flags of a write, an accept or a reject: an effect (send), not a
// put; a write to a temporary name; the rename of that name onto its key;
// and, in the three bits from partShift, which part of a write in parts
// it is (1 to MaxParts; 0 for a write in one piece).
const (
	flagEffect = 1
	flagTemp   = 2
	flagRename = 4
	partShift  = 3
	partMask   = 7 << partShift
)

// EventFields is an event spelled out, every field its own. The engine
// records events from it; a test or a tool may build one (Event) or read
// one whole (Event.Fields). An event keeps what its kind says: a renewal
// no peer, message, reason, effect or proof; a renewal-status event no
// proof; any other event no generation or previous end.
type EventFields struct {
	T      Time
	Kind   Kind
	Node   Node
	Peer   Node
	Msg    MsgKind
	Reason Reason
	Effect bool  // write, accept, reject: an effect (send), not a put
	Temp   bool  // write, accept, reject: to the key's temporary name (KEY.TOKEN.tmp)
	Rename bool  // write, accept, reject: the rename of that temporary name onto the key
	Part   uint8 // write, accept, reject: which part of a write in parts (1 to MaxParts), 0 for none; a write's At is how many parts
	Key    KeyID // the lease (coordinator events, renewed) or the storage key (write, accept, reject); Names.Key gives its name
	Token  int64
	At     Time
	Value  int64
	Prev   Time   // renewed: the believed end before
	Gen    uint32 // renewal generation
	Ref    int32  // index in the log of an event this one points at; -1 if none
	Ref2   int32
}

// saysGeneration reports whether events of kind k say a renewal
// generation (in ref2) rather than proofs.
func (k Kind) saysGeneration() bool {
	switch k {
	case KindRenewed, KindRenewError, KindUncertain, KindGiveUp, KindStaleReply, KindPublish:
		return true
	}
	return false
}

// Event packs f. Proofs left at 0 and 0 are none (-1, -1), as the engine
// records them.
func (f EventFields) Event() Event {
	var e Event
	f.pack(&e)
	return e
}

// pack writes f into *e, every field of it: the engine packs each event
// straight into its place in the log.
func (f *EventFields) pack(e *Event) {
	e.T, e.Token, e.At, e.Value, e.Kind, e.Node, e.Key = f.T, f.Token, f.At, f.Value, f.Kind, f.Node, f.Key
	if f.Kind == KindRenewed {
		u := uint64(f.Prev)
		hi := uint32(u >> 32)
		e.ref = int32(uint32(u))
		e.peer, e.msg, e.reason, e.flags = Node(int8(hi)), MsgKind(hi>>8), Reason(hi>>16), uint8(hi>>24)
		e.ref2 = int32(f.Gen)
		return
	}
	e.peer, e.msg, e.reason, e.flags = f.Peer, f.Msg, f.Reason, f.Part<<partShift&partMask
	if f.Effect {
		e.flags |= flagEffect
	}
	if f.Temp {
		e.flags |= flagTemp
	}
	if f.Rename {
		e.flags |= flagRename
	}
	switch {
	case f.Kind.saysGeneration():
		e.ref, e.ref2 = -1, int32(f.Gen)
	case f.Ref == 0 && f.Ref2 == 0:
		e.ref, e.ref2 = -1, -1
	default:
		e.ref, e.ref2 = f.Ref, f.Ref2
	}
}

// Fields spells e out.
func (e Event) Fields() EventFields {
	return EventFields{T: e.T, Kind: e.Kind, Node: e.Node, Peer: e.Peer(), Msg: e.Msg(), Reason: e.Reason(), Effect: e.Effect(),
		Temp: e.Temp(), Rename: e.Rename(), Part: e.Part(), Key: e.Key, Token: e.Token, At: e.At, Value: e.Value, Prev: e.Prev(), Gen: e.Gen(), Ref: e.Ref(), Ref2: e.Ref2()}
}

// Peer is the other node the event concerns, NoNode if none.
func (e Event) Peer() Node {
	if e.Kind == KindRenewed {
		return NoNode
	}
	return e.peer
}

// Msg is the message sent, received, dropped or timed out, MsgNone if none.
func (e Event) Msg() MsgKind {
	if e.Kind == KindRenewed {
		return MsgNone
	}
	return e.msg
}

// Reason qualifies the event (why a write was rejected, which violation),
// ReasonNone if nothing does.
func (e Event) Reason() Reason {
	if e.Kind == KindRenewed {
		return ReasonNone
	}
	return e.reason
}

// Effect reports whether a write, accept or reject is of an effect (a
// send), not a put.
func (e Event) Effect() bool { return e.Kind != KindRenewed && e.flags&flagEffect != 0 }

// Temp reports whether a write, accept or reject is of the key's
// temporary name (KEY.TOKEN.tmp), which nothing reads: the first half of
// a commit by rename.
func (e Event) Temp() bool { return e.Kind != KindRenewed && e.flags&flagTemp != 0 }

// Rename reports whether a write, accept or reject is the rename of the
// writer's temporary name onto the key: the commit of a write by rename.
func (e Event) Rename() bool { return e.Kind != KindRenewed && e.flags&flagRename != 0 }

// Part is which part of a write in parts a write, accept or reject is (1
// to MaxParts), 0 for a write in one piece. A write event's At says how
// many parts the write has.
func (e Event) Part() uint8 {
	if e.Kind == KindRenewed {
		return 0
	}
	return e.flags & partMask >> partShift
}

// Ref is the index in the log of an event this one points at (the send a
// receive answers, the write a storage judged, a violation's first proof),
// -1 if none.
func (e Event) Ref() int32 {
	if e.Kind.saysGeneration() {
		return -1
	}
	return e.ref
}

// Cause is why the lease a stale write or a late act came after ended,
// when it was not its expiry: ReasonRevoked (an operator revoked the
// holder's session) or ReasonForgotten (a Redlock master forgot the
// lock); ReasonNone for an expiry and for other events. A violation's
// sentence follows it: "after its session was revoked", not "after its
// lease expired".
func (e Event) Cause() Reason {
	if e.Kind != KindViolation || e.Value <= 0 || e.Value >= int64(reasonCount) {
		return ReasonNone
	}
	return Reason(e.Value)
}

// Ref2 is a violation's second proof, -1 if none.
func (e Event) Ref2() int32 {
	if e.Kind.saysGeneration() {
		return -1
	}
	return e.ref2
}

// Gen is a renewal's or a renewal-status event's generation, 0 for other
// events.
func (e Event) Gen() uint32 {
	if e.Kind.saysGeneration() {
		return uint32(e.ref2)
	}
	return 0
}

// Prev is a renewal's believed end before it, 0 for other events.
func (e Event) Prev() Time {
	if e.Kind != KindRenewed {
		return 0
	}
	hi := uint32(uint8(e.peer)) | uint32(e.msg)<<8 | uint32(e.reason)<<16 | uint32(e.flags)<<24
	return Time(uint64(hi)<<32 | uint64(uint32(e.ref)))
}

// KeyID names a lease or a storage key in a world's log: an index into
// Names.Keys. 0 is no key.
type KeyID uint16

// Names maps a world's nodes and keys to display names.
type Names struct {
	Nodes []string // workers, by Node
	Keys  []string // leases and storage keys, by KeyID; Keys[0] is ""
}

// Key returns a key's name ("" for none or an unknown id).
func (n Names) Key(k KeyID) string {
	if int(k) < len(n.Keys) {
		return n.Keys[k]
	}
	return ""
}

// KeyID finds a key by name; false when the world has no such key.
func (n Names) KeyID(s string) (KeyID, bool) {
	for i, k := range n.Keys {
		if k == s && i > 0 {
			return KeyID(i), true
		}
	}
	return 0, false
}

// Of returns a node's name.
func (n Names) Of(x Node) string {
	switch x {
	case Coord:
		return "coord"
	case Storage:
		return "storage"
	case NoNode:
		return "-"
	}
	if int(x) >= 0 && int(x) < len(n.Nodes) {
		return n.Nodes[x]
	}
	return "node" + strconv.Itoa(int(x))
}

// Format renders an event as one trace line, for tests and the text output
// of leaselab run. The layout is stable: golden files depend on it.
func (n Names) Format(e Event) string {
	var b strings.Builder
	t := e.T.String()
	b.WriteString(strings.Repeat(" ", max(0, 8-len(t))))
	b.WriteString(t)
	b.WriteString("  ")
	who := n.Of(e.Node)
	b.WriteString(who)
	b.WriteString(strings.Repeat(" ", max(1, 8-len(who))))
	b.WriteString(n.Describe(e))
	return b.String()
}

// Describe is the event without its time and node.
func (n Names) Describe(e Event) string {
	s := n.describe(e)
	switch e.Kind {
	case KindGrant, KindQueue, KindDeny, KindExtend, KindRenewReject, KindExpire, KindRelease:
		if k := n.Key(e.Key); k != "" && k != DefaultLease {
			s += " lease=" + k
		}
	}
	return s
}

// describers say each family of events; describe asks them in turn.
var describers = [...]func(Names, Event) (string, bool){
	Names.describeMessage, Names.describeLease, Names.describeWorker, Names.describeStorage, Names.describeChange,
}

func (n Names) describe(e Event) string {
	for _, say := range describers {
		if s, ok := say(n, e); ok {
			return s
		}
	}
	return e.Kind.String()
}

// describeMessage says a message sent, received, lost or timed out.
func (n Names) describeMessage(e Event) (string, bool) {
	tok := func() string { return " token=" + strconv.FormatInt(e.Token, 10) }
	switch e.Kind {
	case KindSend:
		s := "send " + e.Msg().String() + " -> " + n.Of(e.Peer())
		if e.Token != 0 {
			s += tok()
		}
		return s, true
	case KindRecv:
		return "recv " + e.Msg().String() + " <- " + n.Of(e.Peer()), true
	case KindDrop:
		return "drop " + e.Msg().String() + " -> " + n.Of(e.Peer()) + " (" + e.Reason().String() + ")", true
	case KindUnavailable:
		return "unavailable -> " + n.Of(e.Peer()) + " (" + e.Reason().String() + ")", true
	case KindTimeout:
		return "timeout " + e.Msg().String(), true
	}
	return "", false
}

// describeLease says what the coordinator did with a lease, and its replicas.
func (n Names) describeLease(e Event) (string, bool) {
	tok := func() string { return " token=" + strconv.FormatInt(e.Token, 10) }
	switch e.Kind {
	case KindGrant:
		s := "grant " + n.Of(e.Peer()) + tok() + " until=" + e.At.String()
		if e.At == Never {
			s = "grant " + n.Of(e.Peer()) + tok() + " (no expiry)"
		}
		switch {
		case e.Reason() == ReasonAgain:
			s += " (again)"
		case e.Reason() == ReasonLeaseID:
			s += " (lease-id of replica " + strconv.FormatInt(e.Value, 10) + ")"
		case e.Value > 0:
			s += logIndex(e.Value)
		}
		return s, true
	case KindQueue:
		return "queue " + n.Of(e.Peer()), true
	case KindDeny:
		s := "deny " + n.Of(e.Peer()) + " (" + e.Reason().String() + ")"
		if e.Value > 0 {
			s += " record=" + strconv.FormatInt(e.Value, 10)
		}
		return s, true
	case KindExtend:
		s := "extend " + n.Of(e.Peer()) + tok() + " until=" + e.At.String()
		if r := e.Reason(); r == ReasonRefresh || r == ReasonResume {
			s += " (" + r.String() + ")"
		}
		return s, true
	case KindRenewReject:
		if e.Reason() != ReasonNone {
			return "renew-reject " + n.Of(e.Peer()) + tok() + " (" + e.Reason().String() + ")", true
		}
		return "renew-reject " + n.Of(e.Peer()) + tok(), true
	case KindExpire:
		if r := e.Reason(); r == ReasonTakeover || r == ReasonForgotten || r == ReasonRevoked {
			return "expire " + n.Of(e.Peer()) + tok() + " (" + r.String() + ")" + logIndex(e.Value), true
		}
		return "expire " + n.Of(e.Peer()) + tok() + logIndex(e.Value), true
	case KindRelease:
		return "release " + n.Of(e.Peer()) + tok() + logIndex(e.Value), true
	case KindElection:
		return "election until=" + e.At.String(), true
	case KindLeader:
		return "leader replica=" + strconv.FormatInt(e.Value, 10) + logIndex(e.Token), true
	case KindReplica:
		if e.Reason() == ReasonUp {
			return "replica " + strconv.FormatInt(e.Value, 10) + " up", true
		}
		return "replica " + strconv.FormatInt(e.Value, 10) + " down", true
	}
	return "", false
}

// describeWorker says what a worker did, believed or gave up.
func (n Names) describeWorker(e Event) (string, bool) {
	tok := func() string { return " token=" + strconv.FormatInt(e.Token, 10) }
	switch e.Kind {
	case KindStart:
		return "start", true
	case KindAcquired:
		return "acquired" + tok() + " believes-until=" + e.At.String(), true
	case KindRenewed:
		s := "renewed" + tok() + " believes-until=" + e.At.String()
		if e.Gen() > 0 {
			s += " gen=" + strconv.FormatUint(uint64(e.Gen()), 10)
		}
		if e.Prev() != 0 {
			s += " was=" + e.Prev().String() + " left=" + Time(e.Value).String()
			if e.At < e.Prev() {
				s += " (rolled back)"
			}
		}
		return s, true
	case KindRenewError:
		class := "transient"
		if e.Value == 1 {
			class = "definitive"
		}
		return "renew-error " + e.Reason().String() + " class=" + class, true
	case KindUncertain:
		return "uncertain (" + e.Reason().String() + ") deadline=" + e.At.String() + " left=" + Time(e.Value).String(), true
	case KindGiveUp:
		return "give-up (" + e.Reason().String() + ") deadline=" + e.At.String(), true
	case KindStaleReply:
		return "stale-reply gen=" + strconv.FormatUint(uint64(e.Gen()), 10) + " current=" + strconv.FormatInt(e.Value, 10) + " dropped", true
	case KindPublish:
		return "publish" + tok(), true
	case KindRefuse:
		return "refuse work: " + Time(e.Value).String() + " left, needs " + e.At.String(), true
	case KindLost:
		return "lost" + tok() + " (" + e.Reason().String() + ")", true
	case KindWork:
		return "work " + Time(e.Value).String(), true
	case KindCheck:
		return "check " + e.Reason().String() + " believes-until=" + e.At.String(), true
	case KindWrite:
		s := "write " + n.what(e)
		switch {
		case e.Effect():
			s = "send " + n.Key(e.Key)
		case e.Rename():
			s = n.what(e)
		}
		if e.Token != 0 {
			s += tok()
		} else {
			s += " (no token)"
		}
		return s, true
	case KindDone:
		return "done", true
	}
	return "", false
}

// describeStorage says what the storage did with a write, and a violation an observer found.
func (n Names) describeStorage(e Event) (string, bool) {
	tok := func() string { return " token=" + strconv.FormatInt(e.Token, 10) }
	switch e.Kind {
	case KindAccept:
		s := "accept " + n.what(e) + " from " + n.Of(e.Peer()) + tok()
		if e.Temp() {
			return s + " (temporary)" + copyOf(e), true
		}
		s += " highest=" + strconv.FormatInt(e.Value, 10)
		if e.Reason() == ReasonSameValue {
			s += " (same-value)"
		}
		return s + copyOf(e), true
	case KindReject:
		s := "reject " + n.what(e) + " from " + n.Of(e.Peer()) + tok() + " (" + e.Reason().String()
		switch e.Reason() {
		case ReasonStaleToken:
			s += ": " + strconv.FormatInt(e.Token, 10) + " < " + strconv.FormatInt(e.Value, 10)
		case ReasonNotCurrent:
			if e.Value == 0 {
				s += ": no current lease"
			} else {
				s += ": current " + strconv.FormatInt(e.Value, 10)
			}
		case ReasonVersion:
			s += ": version " + strconv.FormatInt(e.Value, 10)
		}
		return s + ")" + copyOf(e), true
	case KindRead:
		return "read " + n.Of(e.Peer()) + " version=" + strconv.FormatInt(e.Value, 10), true
	case KindReplicate:
		s := "replicate " + n.Key(e.Key) + " from " + n.Of(e.Peer()) + tok() + " -> copy" + strconv.FormatInt(e.Value, 10)
		switch e.Reason() {
		case ReasonPartition:
			s += " (held: partition)"
		case ViolationDiverged:
			s += " (refused: diverged)"
		}
		return s, true
	case KindViolation:
		s := "VIOLATION " + e.Reason().String()
		if e.Peer() != NoNode {
			s += " " + n.Of(e.Peer())
		}
		if e.Token != 0 {
			s += tok()
		}
		if e.Ref() >= 0 {
			s += " proof=#" + strconv.Itoa(int(e.Ref()))
			if e.Ref2() >= 0 {
				s += ",#" + strconv.Itoa(int(e.Ref2()))
			}
		}
		if c := e.Cause(); c != ReasonNone {
			s += " (" + c.String() + ")"
		}
		return s, true
	}
	return "", false
}

// logIndex is the index of the coordinator's log entry an event records
// (tokens=log): " log-index=5", or "" when the log is not shown (0).
func logIndex(i int64) string {
	if i <= 0 {
		return ""
	}
	return " log-index=" + strconv.FormatInt(i, 10)
}

// what names what a write, an accept or a reject acts on: the key; the
// key's temporary name, which carries the writer's token
// ("report.7.tmp"); the rename of that name onto the key; or one part of
// the key ("report part=2", and of how many on the write: "part=2/3").
func (n Names) what(e Event) string {
	k := n.Key(e.Key)
	s := k
	if e.Temp() || e.Rename() {
		s = k + "." + strconv.FormatInt(e.Token, 10) + ".tmp"
	}
	if e.Rename() {
		return "rename " + s + " -> " + k
	}
	if e.Part() > 0 {
		s += " part=" + strconv.Itoa(int(e.Part()))
		if e.Kind == KindWrite {
			s += "/" + strconv.FormatInt(int64(e.At), 10)
		}
	}
	return s
}

// copyOf names the storage copy of an accept or a reject (its At) when
// the storage keeps two: " copy=1".
func copyOf(e Event) string {
	if e.At != 1 && e.At != 2 {
		return ""
	}
	return " copy=" + strconv.FormatInt(int64(e.At), 10)
}

// describeChange says a command that changed the world.
func (n Names) describeChange(e Event) (string, bool) {
	switch e.Kind {
	case KindFreeze:
		if e.At != 0 {
			return "freeze until=" + e.At.String(), true
		}
		return "freeze", true
	case KindThaw:
		return "thaw", true
	case KindCrash:
		return "crash", true
	case KindRestart:
		return "restart", true
	case KindFencing:
		return "storage mode=" + StorageMode(e.Value).String(), true
	case KindPartition:
		if e.Peer() == NoNode {
			return "partition (isolated)", true
		}
		if e.Node == Storage && e.Peer() == Storage {
			return "partition copy1 | copy2", true
		}
		return "partition " + n.Of(e.Node) + " | " + n.Of(e.Peer()), true
	case KindHeal:
		if e.Peer() == NoNode {
			return "heal all", true
		}
		if e.Node == Storage && e.Peer() == Storage {
			return "heal copy1 - copy2", true
		}
		return "heal " + n.Of(e.Node) + " - " + n.Of(e.Peer()), true
	case KindLink:
		return "link -> " + n.Of(e.Peer()) + " delay=" + e.At.String() + " loss=" + strconv.FormatFloat(float64(e.Value)/1e6, 'f', -1, 64), true
	case KindClock:
		s := "clock local=" + e.At.String() + " rate=" + formatRate(e.Value)
		if e.Node == Coord && e.Token > 0 {
			s += " replica=" + strconv.FormatInt(e.Token, 10)
		}
		return s, true
	case KindReset:
		return "reset", true
	}
	return "", false
}
