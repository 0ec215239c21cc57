package engine

import (
	"fmt"
	"slices"
)

// Prepared is a scenario checked and filled in once for many worlds: its
// presets resolved, its defaults set, its workers and programs copied, its
// nodes, leases, keys and write results given their ids. Every world built
// from it shares it and only reads it, so a world holds just what its run
// changes, and worlds of one Prepared may run on different goroutines at
// once (many sessions of one lab do).
type Prepared struct {
	sc         Scenario // as the caller gave it, filled in; its own workers and programs
	limits     Limits   // sc.Limits with their defaults
	names      Names
	leaseNames []string
	leaseKeys  []KeyID  // leaseNames' ids in names.Keys
	values     []string // fixed write results, by message.value; values[0] is ""
}

// Prepare checks sc and fills it in for building worlds. sc is copied:
// changing it afterwards changes no world.
func Prepare(sc Scenario) (*Prepared, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if sc.Replicas == 0 {
		sc.Replicas = 3
	}
	if sc.FirstToken == 0 {
		sc.FirstToken = 1
	}
	if sc.Tick > 0 && sc.TTL > 0 {
		// ZooKeeper's server negotiates the session timeout into
		// [minSessionTimeout, maxSessionTimeout], by default 2 and 20
		// ticks; the client then works with what was negotiated.
		sc.TTL = min(max(sc.TTL, 2*sc.Tick), 20*sc.Tick)
	}
	sc.Workers = append([]WorkerSpec(nil), sc.Workers...)
	for i := range sc.Workers {
		if sc.Workers[i].Lease == "" {
			sc.Workers[i].Lease = DefaultLease
		}
		if err := sc.Workers[i].resolvePreset(sc.TTL); err != nil {
			return nil, err
		}
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	for i := range sc.Workers {
		ws := &sc.Workers[i]
		ws.Program = append([]Op(nil), ws.Program...)
		if ws.Drift == 0 {
			ws.Drift = 1_000_000
		}
		if ws.Renew.Retry == 0 {
			ws.Renew.Retry = ws.Renew.Every
		}
	}
	p := &Prepared{sc: sc, limits: sc.Limits}
	if p.limits.MaxEventsPerApply == 0 {
		p.limits.MaxEventsPerApply = 1_000_000
	}
	if p.limits.MaxTime == 0 {
		p.limits.MaxTime = 24 * Hour
	}
	p.names = Names{Nodes: make([]string, len(sc.Workers)), Keys: []string{""}}
	p.values = []string{""}
	for i, ws := range sc.Workers {
		p.names.Nodes[i] = ws.Name
		if !slices.Contains(p.leaseNames, ws.Lease) {
			p.leaseNames = append(p.leaseNames, ws.Lease)
			p.leaseKeys = append(p.leaseKeys, intern(&p.names.Keys, ws.Lease))
		}
	}
	// Every key a program names gets its id now, so the log holds ids only.
	for _, ws := range sc.Workers {
		for _, op := range ws.Program {
			if op.Kind == OpWrite || op.Kind == OpSend {
				intern(&p.names.Keys, op.Key)
				intern(&p.values, op.Value)
			}
		}
	}
	if len(p.names.Keys) > 1<<16 || len(p.values) > 1<<16 {
		return nil, fmt.Errorf("too many distinct keys or values (at most %d)", 1<<16)
	}
	return p, nil
}

// intern returns s's index in *table, adding it when it is new.
func intern(table *[]string, s string) KeyID {
	if i := slices.Index(*table, s); i >= 0 {
		return KeyID(i)
	}
	*table = append(*table, s)
	return KeyID(len(*table) - 1)
}

// Scenario is the prepared scenario, filled in. Its workers and their
// programs are the Prepared's own: read them, do not change them.
func (p *Prepared) Scenario() Scenario { return p.sc }

// New builds a world of the prepared scenario at time 0, with its random
// numbers from seed (the scenario's own seed is not used).
func (p *Prepared) New(seed uint64) *World {
	return p.NewIn(nil, seed)
}

// NewIn is New in the arrays w has grown (log, queue, actors, ...), when w
// is not nil, so that a caller that runs many worlds one after another
// allocates little. It returns the world, w itself when w is not nil;
// slices w returned before (Events, Commands, Spans) must not be used
// after.
func (p *Prepared) NewIn(w *World, seed uint64) *World {
	if w == nil {
		w = new(World)
	}
	w.p, w.seed, w.mode = p, seed, p.sc.Storage
	w.cmds, w.budget = w.cmds[:0], 0
	w.init() // every other field
	return w
}
