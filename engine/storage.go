package engine

import "slices"

// storage is the protected resource. It records every write attempt.
//
// With two copies (scenario option copies: 2) it is two databases at two
// sites, each the primary for the workers of its site (worker option
// copy): a copy checks and accepts writes by what it holds itself, and
// sends every write it accepts to the other copy, which applies it after
// the network's delay. While the link between the copies is cut
// (partition copy1 copy2) those writes wait, and go when it heals. A copy
// that receives a write while it holds one of its own that the sender
// lacks refuses it: the copies have diverged, each holding a write the
// other lacks, and no order of applying them makes them one again (a
// person reconciles them, as GitHub's engineers did in 2018). The
// observer reports it once, with the two accepts that prove it.
type storage struct {
	highest int64 // highest token seen on any key, for display
	version int64
	ledger  []Write
	keys    []keyState // by KeyID; with two copies, copy 2's follow copy 1's (keyAt)

	// Two copies only.
	copies   [2]storeCopy
	writes   []copyWrite // every write a copy accepted from a worker, by serial
	cut      bool        // the link between the copies is cut
	diverged bool        // the divergence was reported
}

// storeCopy is what one copy holds, as serials of storage.writes.
type storeCopy struct {
	has  []uint32 // every write it holds: its own and the other's it applied
	held []uint32 // its own writes waiting for the link to the other copy
}

// copyWrite is a write a copy accepted from a worker: what replication
// carries to the other copy.
type copyWrite struct {
	from   Node
	token  int64
	key    KeyID
	copy   uint8 // the copy that accepted it: 0 or 1
	accept int32 // its accept event (history: proof only)
}

// keyAt is where copy c's state of key k is in keys.
func (s *storage) keyAt(w *World, c int, k KeyID) int { return c*len(w.p.names.Keys) + int(k) }

// copyOf is the copy a worker writes to: 0 or 1.
func (w *World) copyOf(n Node) int {
	if n < 0 || w.p.sc.Copies < 2 {
		return 0
	}
	return max(w.p.sc.Workers[n].Copy-1, 0)
}

// keyState is what the storage and the observers remember per key.
type keyState struct {
	used       bool   // idempotency: accepted once
	highest    int64  // highest token seen on this key, in every mode
	lastToken  int64  // token of the last accepted put
	lastAccept int32  // log index of the last accepted put
	firstSend  int32  // log index of the first accepted send, -1 if none
	doubled    bool   // a double effect on this key was reported already
	lastValue  uint16 // value of the last accepted put (index in World.values; 0 for a holder's own result)
	parts      parts  // the key as written in parts
}

// parts is what the observer of writes in parts remembers of a key: whose
// write each part holds, and the last write that holds the key whole (a
// write in one piece, or the last part of a write in parts). A mark is a
// writer and the token it held: one holding's write.
type parts struct {
	from    [MaxParts]Node  // NoNode: the part is as the whole write left it
	token   [MaxParts]int64 // the token its writer held
	accept  [MaxParts]int32 // its accept (history: proof only)
	whole   Node            // the last whole write's writer, NoNode if none
	wtoken  int64
	waccept int32 // its accept (history: proof only)
	mixed   bool  // the key mixes two writes: reported, until a write makes it whole again
}

// Write is one entry of the storage ledger.
type Write struct {
	T        Time
	Worker   Node
	Token    int64 // the token the write carried (0: none)
	Key      string
	Effect   bool  // a send rather than a put
	Temp     bool  // to the key's temporary name (KEY.TOKEN.tmp)
	Rename   bool  // the rename of that name onto the key
	Part     uint8 // which part of a write in parts, 0 for none
	Accepted bool
	Reason   Reason
	Highest  int64 // the highest token on this key after this write
	Event    int32 // log index of the accept or reject event
}

func (s *storage) receive(w *World, m message) {
	if m.kind == MsgRead {
		s.read(w, m)
		return
	}
	s.write(w, m)
}

func (s *storage) write(w *World, m message) {
	s.needKeys(w)
	if w.writtenStorage() {
		w.storageDecides(m) // a written storage decides (storage_program.go)
		return
	}
	c := w.copyOf(m.from)
	at := s.keyAt(w, c, m.key)
	ks := s.keys[at]
	var copyNo Time // the copy the events name, when there are two
	if w.p.sc.Copies > 1 {
		copyNo = Time(c + 1)
	}
	ev := EventFields{Node: Storage, Peer: m.from, Token: m.token, Key: m.key, Effect: m.effect, Temp: m.form.temp(), Rename: m.form.rename(), Part: m.form.part(), At: copyNo, Ref: m.ev, Ref2: -1}
	entry := Write{T: w.now, Worker: m.from, Token: m.token, Key: w.p.names.Keys[m.key], Effect: m.effect, Temp: m.form.temp(), Rename: m.form.rename(), Part: m.form.part()}
	if m.form.temp() {
		// A temporary name carries its writer's token: no two writers
		// share one, nothing reads it, and no store checks it.
		ev.Kind = KindAccept
		entry.Accepted, entry.Highest, entry.Event = true, ks.highest, w.emit(ev)
		s.ledger = append(s.ledger, entry)
		w.send(message{kind: MsgWriteOK, from: Storage, to: m.from, req: m.req, token: m.token, version: s.version})
		return
	}
	reason, shown := s.judge(w, m, &ks)
	ks.highest = max(ks.highest, m.token)
	s.highest = max(s.highest, m.token)
	entry.Highest = ks.highest
	if reason != ReasonNone {
		if reason == ReasonStaleToken && shown == 0 {
			shown = ks.highest
		}
		s.keys[at] = ks
		ev.Kind, ev.Reason, ev.Value = KindReject, reason, shown
		entry.Reason, entry.Event = reason, w.emit(ev)
		s.ledger = append(s.ledger, entry)
		reply := MsgWriteErr
		if reason == ReasonDuplicate {
			// The effect is already done: the writer may carry on.
			reply = MsgWriteOK
		}
		w.send(message{kind: reply, from: Storage, to: m.from, req: m.req, reason: reason, token: m.token, version: s.version})
		return
	}
	s.version++
	ks.used = true
	// The same fixed result written again changes nothing: no harm.
	same := !m.effect && m.value != 0 && ks.lastAccept >= 0 && ks.lastValue == m.value
	if same {
		ev.Reason = ReasonSameValue
	}
	ev.Kind, ev.Value = KindAccept, ks.highest
	idx := w.emit(ev)
	entry.Accepted, entry.Event = true, idx
	s.ledger = append(s.ledger, entry)
	if !same {
		w.observeAccept(m, idx, &ks)
	}
	s.keys[at] = ks
	if w.p.sc.Copies > 1 {
		s.replicate(w, copyWrite{from: m.from, token: m.token, key: m.key, copy: uint8(c), accept: idx})
	}
	w.send(message{kind: MsgWriteOK, from: Storage, to: m.from, req: m.req, token: m.token, version: s.version})
}

// judge is the storage's verdict on a write by its mode: ReasonNone to
// accept it, or why it refuses, with what the refusal shows (the current
// lease's token, the version, the token of the file in place; 0 for a
// stale token: the highest seen).
func (s *storage) judge(w *World, m message, ks *keyState) (Reason, int64) {
	switch w.mode {
	case StorageFencing:
		switch {
		case m.token == 0:
			return ReasonNoToken, 0
		case m.token < ks.highest:
			return ReasonStaleToken, 0
		}
	case StorageEquality:
		if l := &w.coord.leases[m.lease]; m.token == 0 || !w.coord.live(m.lease, m.from, m.token, w.now) {
			if l.holder == NoNode {
				return ReasonNotCurrent, 0
			}
			return ReasonNotCurrent, l.token
		}
	case StorageCAS:
		if m.version != s.version {
			return ReasonVersion, s.version
		}
	case StorageIdempotent:
		if ks.used {
			return ReasonDuplicate, 0
		}
	case StorageRename:
		// A plain file store: it takes every write as it comes, and
		// checks only a rename, by the token in the temporary name
		// against the token of the file in place.
		switch {
		case !m.form.rename():
		case m.token == 0:
			return ReasonNoToken, 0
		case ks.lastAccept >= 0 && m.token < ks.lastToken:
			return ReasonStaleToken, ks.lastToken
		}
	}
	return ReasonNone, 0
}

func (s *storage) read(w *World, m message) {
	w.emit(EventFields{Kind: KindRead, Node: Storage, Peer: m.from, Value: s.version})
	w.send(message{kind: MsgReadOK, from: Storage, to: m.from, req: m.req, version: s.version})
}

// needKeys makes the per-key state, every copy's, before the first write.
func (s *storage) needKeys(w *World) {
	if len(s.keys) > 0 {
		return
	}
	s.keys = grown(s.keys, max(w.p.sc.Copies, 1)*len(w.p.names.Keys))
	for i := range s.keys {
		s.keys[i] = keyState{lastAccept: -1, firstSend: -1}
		p := &s.keys[i].parts
		p.whole = NoNode
		for j := range p.from {
			p.from[j] = NoNode
		}
	}
}

// replicate records a write a copy accepted from a worker and sends it to
// the other copy, or holds it while the link between them is cut.
func (s *storage) replicate(w *World, cw copyWrite) {
	k := uint32(len(s.writes))
	s.writes = append(s.writes, cw)
	src := &s.copies[cw.copy]
	src.has = append(src.has, k)
	if s.cut {
		src.held = append(src.held, k)
		w.emit(EventFields{Kind: KindReplicate, Node: Storage, Peer: cw.from, Token: cw.token, Key: cw.key, Value: int64(2 - cw.copy), Reason: ReasonPartition, Ref: cw.accept, Ref2: -1})
		return
	}
	s.ship(w, k)
}

// ship puts write k on its way to the other copy.
func (s *storage) ship(w *World, k uint32) {
	w.schedule(item{at: w.now + w.p.sc.Delay, kind: itReplicate, id: k})
}

// setCut cuts or heals the link between the copies; a heal sends what
// waited, in order.
func (s *storage) setCut(w *World, cut bool) {
	s.cut = cut
	if cut {
		return
	}
	for c := range s.copies {
		for _, k := range s.copies[c].held {
			s.ship(w, k)
		}
		s.copies[c].held = s.copies[c].held[:0]
	}
}

// arrive applies write k at the copy that lacks it, unless that copy holds
// a write of its own the sender lacks: then they have diverged.
func (s *storage) arrive(w *World, k uint32) {
	cw := s.writes[k]
	dst, src := &s.copies[1-cw.copy], &s.copies[cw.copy]
	ev := EventFields{Kind: KindReplicate, Node: Storage, Peer: cw.from, Token: cw.token, Key: cw.key, Value: int64(2 - cw.copy), Ref: cw.accept, Ref2: -1}
	if s.cut {
		// Cut while it was on its way: it waits with the others.
		src.held = append(src.held, k)
		ev.Reason = ReasonPartition
		w.emit(ev)
		return
	}
	for _, j := range dst.has {
		if o := s.writes[j]; o.copy != cw.copy && !slices.Contains(src.has, j) {
			ev.Reason = ViolationDiverged
			w.emit(ev)
			if !s.diverged {
				s.diverged = true
				w.emit(EventFields{Kind: KindViolation, Reason: ViolationDiverged, Node: NoNode, Peer: cw.from, Token: cw.token, Ref: cw.accept, Ref2: o.accept})
			}
			return
		}
	}
	dst.has = append(dst.has, k)
	at := s.keyAt(w, int(1-cw.copy), cw.key)
	s.keys[at].highest = max(s.keys[at].highest, cw.token)
	w.emit(ev)
}
