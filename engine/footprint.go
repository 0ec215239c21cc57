package engine

import "unsafe"

// Footprint estimates the bytes a world holds on the heap: the room of its
// log, queue, messages, commands, actors and spans, counted by capacity
// (room grown and not yet used is held all the same). It leaves out what
// the world shares with every world of its scenario (the Prepared). A
// server uses it to bound what one client's live worlds may hold; it is an
// estimate, within a few hundred bytes of what the collector sees for a
// large world, and costs a few dozen additions.
func (w *World) Footprint() int {
	n := int(unsafe.Sizeof(*w))
	n += cap(w.log) * int(unsafe.Sizeof(Event{}))
	n += cap(w.q) * int(unsafe.Sizeof(item{}))
	n += cap(w.msgs) * int(unsafe.Sizeof(message{}))
	n += cap(w.freeMsgs) * 4
	n += cap(w.cmds) * int(unsafe.Sizeof(Command{}))
	n += cap(w.workers) * int(unsafe.Sizeof(worker{}))
	for i := range w.workers {
		n += cap(w.workers[i].deferred) * int(unsafe.Sizeof(item{}))
	}
	n += cap(w.links) * int(unsafe.Sizeof(link{}))
	n += cap(w.beliefs) * int(unsafe.Sizeof(BeliefSpan{}))
	n += cap(w.freezes) * int(unsafe.Sizeof(FreezeSpan{}))
	n += cap(w.splitSeen) * int(unsafe.Sizeof([2]int64{}))
	n += cap(w.coord.up) + cap(w.coord.leases)*int(unsafe.Sizeof(lease{})) + cap(w.coord.spans)*int(unsafe.Sizeof(LeaseSpan{}))
	n += cap(w.store.ledger)*int(unsafe.Sizeof(Write{})) + cap(w.store.keys)*int(unsafe.Sizeof(keyState{}))
	return n
}
