package engine

// The sizes of what a world keeps in its arrays, in bytes, for Footprint.
// The engine imports nothing that could measure them (unsafe is not pure);
// TestFootprintSizes holds these to unsafe.Sizeof, so a field added to one
// of these types fails it until the size here is mended.
const (
	sizeWorld        = 928
	sizeEvent        = 48
	sizeItem         = 24
	sizeMessage      = 64
	sizeCommand      = 160
	sizeWorker       = 408
	sizeLink         = 48
	sizeBeliefSpan   = 48
	sizeFreezeSpan   = 24
	sizeLease        = 96
	sizeLeaseSpan    = 56
	sizeWrite        = 64
	sizeKeyState     = 152
	sizeMasterKey    = 24
	sizeCopyWrite    = 24
	sizeBrain        = 128
	sizeProgramFault = 32
	sizeEventLine    = 56 // its Cause's name shares the program's text of it
)

// Footprint estimates the bytes a world holds on the heap: the room of its
// log, queue, messages, commands, actors and spans, counted by capacity
// (room grown and not yet used is held all the same). It leaves out what
// the world shares with every world of its scenario (the Prepared). A
// server uses it to bound what one client's live worlds may hold; it is an
// estimate, within a tenth of what the collector finds for a large world
// (TestFootprintIsWhatTheHeapHolds), and costs a few dozen additions.
func (w *World) Footprint() int {
	n := sizeWorld
	n += cap(w.log) * sizeEvent
	n += cap(w.q) * sizeItem
	n += cap(w.msgs) * sizeMessage
	n += cap(w.freeMsgs) * 4
	n += cap(w.cmds) * sizeCommand
	n += cap(w.workers) * sizeWorker
	for i := range w.workers {
		n += cap(w.workers[i].deferred) * sizeItem
		if b := w.workers[i].brain; b != nil {
			n += sizeBrain
			if f, ok := b.p.(interface{ Footprint() int }); ok {
				n += f.Footprint()
			}
		}
	}
	n += cap(w.faults)*sizeProgramFault + cap(w.lines)*sizeEventLine
	n += w.sides.footprint()
	n += cap(w.links) * sizeLink
	n += cap(w.beliefs) * sizeBeliefSpan
	n += cap(w.freezes) * sizeFreezeSpan
	n += cap(w.splitSeen) * 16
	n += cap(w.coord.keys)*sizeMasterKey + cap(w.coord.up) + cap(w.coord.rclk)*24 + cap(w.coord.leases)*sizeLease + cap(w.coord.spans)*sizeLeaseSpan
	n += cap(w.store.ledger)*sizeWrite + cap(w.store.keys)*sizeKeyState + cap(w.store.writes)*sizeCopyWrite
	for _, c := range w.store.copies {
		n += (cap(c.has) + cap(c.held)) * 4
	}
	return n
}
