package engine

// storage is the protected resource. It records every write attempt.
type storage struct {
	highest int64 // highest token seen on any key, for display
	version int64
	ledger  []Write
	keys    []keyState // by KeyID
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
}

// Write is one entry of the storage ledger.
type Write struct {
	T        Time
	Worker   Node
	Token    int64 // the token the write carried (0: none)
	Key      string
	Effect   bool // a send rather than a put
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
	if len(s.keys) == 0 {
		s.keys = grown(s.keys, len(w.p.names.Keys))
		for i := range s.keys {
			s.keys[i] = keyState{lastAccept: -1, firstSend: -1}
		}
	}
	ks := s.keys[m.key]
	reason := ReasonNone
	var shown int64
	switch w.mode {
	case StorageFencing:
		switch {
		case m.token == 0:
			reason = ReasonNoToken
		case m.token < ks.highest:
			reason = ReasonStaleToken
		}
	case StorageEquality:
		if l := &w.coord.leases[m.lease]; m.token == 0 || !w.coord.live(m.lease, m.from, m.token, w.now) {
			reason, shown = ReasonNotCurrent, l.token
			if l.holder == NoNode {
				shown = 0
			}
		}
	case StorageCAS:
		if m.version != s.version {
			reason, shown = ReasonVersion, s.version
		}
	case StorageIdempotent:
		if ks.used {
			reason = ReasonDuplicate
		}
	}
	ks.highest = max(ks.highest, m.token)
	s.highest = max(s.highest, m.token)
	var idx int32
	if reason != ReasonNone {
		if reason == ReasonStaleToken {
			shown = ks.highest
		}
		s.keys[m.key] = ks
		idx = w.emit(EventFields{Kind: KindReject, Node: Storage, Peer: m.from, Token: m.token, Key: m.key, Reason: reason, Value: shown, Effect: m.effect, Ref: m.ev, Ref2: -1})
		s.ledger = append(s.ledger, Write{T: w.now, Worker: m.from, Token: m.token, Key: w.p.names.Keys[m.key], Effect: m.effect, Reason: reason, Highest: ks.highest, Event: idx})
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
	why := ReasonNone
	if same {
		why = ReasonSameValue
	}
	idx = w.emit(EventFields{Kind: KindAccept, Node: Storage, Peer: m.from, Token: m.token, Key: m.key, Reason: why, Value: ks.highest, Effect: m.effect, Ref: m.ev, Ref2: -1})
	s.ledger = append(s.ledger, Write{T: w.now, Worker: m.from, Token: m.token, Key: w.p.names.Keys[m.key], Effect: m.effect, Accepted: true, Highest: ks.highest, Event: idx})
	if !same {
		w.observeAccept(m, idx, &ks)
	}
	s.keys[m.key] = ks
	w.send(message{kind: MsgWriteOK, from: Storage, to: m.from, req: m.req, token: m.token, version: s.version})
}

func (s *storage) read(w *World, m message) {
	w.emit(EventFields{Kind: KindRead, Node: Storage, Peer: m.from, Value: s.version})
	w.send(message{kind: MsgReadOK, from: Storage, to: m.from, req: m.req, version: s.version})
}
