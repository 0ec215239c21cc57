package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The checks a world makes before it carries out a command (the command
// table's check), one a kind: a refused command changes nothing.

func (w *World) worldEnd(what string) error {
	end := w.p.limits.MaxTime
	return refuse(RefuseWorldEnd, fmt.Sprintf("%s this world stops at %s of virtual time", what, end), end)
}

func (w *World) checkAdvance(c Command) error {
	if c.Dur <= 0 {
		return refuse(RefusePositive, "advance: duration must be positive", "advance")
	}
	if c.Dur > w.p.limits.MaxTime-w.now {
		return w.worldEnd("advance:")
	}
	return nil
}

func (w *World) checkUntil(c Command) error {
	if c.At < w.now {
		return refuse(RefuseUntilPast, fmt.Sprintf("until %s: it is already %s", c.At, w.now), c.At, w.now)
	}
	if c.At > w.p.limits.MaxTime {
		return w.worldEnd("until:")
	}
	return nil
}

func (w *World) checkStep(Command) error {
	if len(w.q) == 0 {
		return refuse(RefuseStepNothing, "step: nothing more will happen")
	}
	if w.q[0].at > w.p.limits.MaxTime {
		end := w.p.limits.MaxTime
		return refuse(RefuseWorldEnd, fmt.Sprintf("step: the next event is after the world's end at %s", end), end)
	}
	return nil
}

func (w *World) checkFreeze(c Command) error {
	wk, err := w.worker(c.A)
	switch {
	case err != nil:
		return err
	case wk.crashed:
		return refuse(RefuseFreezeCrashed, fmt.Sprintf("freeze: %s is crashed", c.A), c.A)
	case wk.frozen:
		return refuse(RefuseFreezeFrozen, fmt.Sprintf("freeze: %s is already frozen", c.A), c.A)
	case c.Dur < 0 || c.Dur > w.p.limits.MaxTime:
		end := w.p.limits.MaxTime
		return refuse(RefuseFreezeDuration, fmt.Sprintf("freeze: duration must be between 0 and %s", end), end)
	case c.On != KindNone && c.On != KindCheck && c.On != KindWork && c.On != KindAcquired:
		return refuse(RefuseFreezeOn, "freeze on: want check, work or acquired")
	}
	return nil
}

func (w *World) checkThaw(c Command) error {
	wk, err := w.worker(c.A)
	if err != nil {
		return err
	}
	if !wk.frozen && wk.freezeOn == KindNone {
		return refuse(RefuseThawNotFrozen, fmt.Sprintf("thaw: %s is not frozen", c.A), c.A)
	}
	return nil
}

func (w *World) checkCrash(c Command) error {
	wk, err := w.worker(c.A)
	if err != nil {
		return err
	}
	if wk.crashed {
		return refuse(RefuseCrashCrashed, fmt.Sprintf("crash: %s is already crashed", c.A), c.A)
	}
	return nil
}

func (w *World) checkRestart(c Command) error {
	wk, err := w.worker(c.A)
	if err != nil {
		return err
	}
	if !wk.crashed {
		return refuse(RefuseRestartRunning, fmt.Sprintf("restart: %s is running; crash it first", c.A), c.A)
	}
	return nil
}

// checkClock checks a worker's clock, or the coordinator's ("coord",
// unless a worker has that name), which measures every lease.
func (w *World) checkClock(c Command) error {
	if _, isWorker := w.Worker(c.A); isWorker || c.A != "coord" {
		if _, err := w.worker(c.A); err != nil {
			return err
		}
	}
	if c.Replica > 0 {
		if c.A != "coord" {
			return refuse(RefuseClockWhat, "clock: replica= names a coordinator replica: clock coord replica=N ...")
		}
		if c.Replica > len(w.coord.up) {
			return refuse(RefuseReplicaRange, fmt.Sprintf("clock: there are %d replicas", len(w.coord.up)), len(w.coord.up))
		}
	}
	switch {
	case !c.HasSkew && !c.HasJump && !c.HasRate:
		return refuse(RefuseClockWhat, "clock: say skew=, jump= or rate=")
	case c.HasRate && (c.Rate < 1000 || c.Rate > 100_000_000):
		return refuse(RefuseClockRange, "clock: rate out of range")
	case (c.HasSkew && !withinHour(c.Skew)) || (c.HasJump && !withinHour(c.Jump)):
		return refuse(RefuseClockRange, "clock: skew and jump are at most an hour either way")
	}
	return nil
}

func (w *World) checkPolicy(c Command) error {
	wk, err := w.worker(c.A)
	if err == nil && c.RenewEvery && wk.spec.Renew.Every == 0 {
		return refuse(RefusePolicy, fmt.Sprintf("policy: %s does not renew at a fixed period to change", c.A), c.A)
	}
	return err
}

func (w *World) checkRevoke(c Command) error {
	wk, err := w.worker(c.A)
	if err != nil {
		return err
	}
	if w.coord.revoked&(1<<wk.id) != 0 {
		return refuse(RefuseRevoked, fmt.Sprintf("revoke: %s's session is revoked already", c.A), c.A)
	}
	return nil
}

func (w *World) checkStorage(c Command) error {
	if c.Mode > StorageRename {
		return refuse(RefuseStorageMode, "storage: unknown mode")
	}
	return nil
}

// checkLink checks a partition's or a link's ends, and a link's delay and
// loss.
// copyNames are the storage copies' names, when the scenario keeps two.
var copyNames = [2]string{"copy1", "copy2"}

// copiesLink reports whether c names the link between the storage copies
// (partition copy1 copy2, heal copy2 copy1), and refuses a command that
// names a copy in any other way.
func (w *World) copiesLink(c Command) (bool, error) {
	ca, cb := slices.Contains(copyNames[:], c.A), slices.Contains(copyNames[:], c.B)
	if !ca && !cb {
		return false, nil
	}
	if w.p.sc.Copies < 2 {
		name := c.A
		if !ca {
			name = c.B
		}
		return false, refuse(RefuseNoNode, fmt.Sprintf("no node called %q (workers: %v, or coord, storage)", name, w.p.names.Nodes), name, nodeList(w.p.names.Nodes))
	}
	if !ca || !cb || c.A == c.B || c.Kind == CmdLink {
		return false, refuse(RefuseLinkCopies, c.Kind.Word()+": the storage copies have one link, between them: partition copy1 copy2, heal copy1 copy2")
	}
	return true, nil
}

func (w *World) checkLink(c Command) error {
	if _, err := w.copiesLink(c); err != nil || slices.Contains(copyNames[:], c.A) {
		return err
	}
	a, err := w.node(c.A)
	if err != nil {
		return err
	}
	if c.B != "" {
		b, err := w.node(c.B)
		if err != nil {
			return err
		}
		if a == b {
			return refuse(RefuseLinkSame, fmt.Sprintf("%s: a link joins two different nodes", c.Kind.Word()))
		}
	} else if c.Kind == CmdLink {
		return refuse(RefuseLinkEnds, "link: name both ends")
	}
	if c.Kind != CmdLink {
		return nil
	}
	if !c.HasDelay && !c.HasLoss && c.HasParts == 0 {
		return refuse(RefuseLinkWhat, "link: say delay=D and/or loss=P")
	}
	if c.Dur < 0 || c.Dur > Hour || c.LossPPM < 0 || c.LossPPM > 1_000_000 {
		return refuse(RefuseLinkRange, "link: delay or loss out of range")
	}
	return nil
}

func (w *World) checkHeal(c Command) error {
	if _, err := w.copiesLink(c); err != nil || slices.Contains(copyNames[:], c.A) {
		return err
	}
	if c.A != "" {
		if _, err := w.node(c.A); err != nil {
			return err
		}
	}
	if c.B != "" {
		if c.A == "" {
			return refuse(RefuseLinkEnds, "heal: name the first end too")
		}
		if _, err := w.node(c.B); err != nil {
			return err
		}
	}
	return nil
}

func (w *World) checkLease(c Command) error {
	if w.p.sc.TTL == 0 {
		return refuse(RefuseLeaseLock, "lease: this coordinator grants locks that never expire; there is no lease length to change")
	}
	if c.Dur < 0 || c.Dur > Hour {
		return refuse(RefuseLeaseRange, "lease: a lease lasts at most an hour (0s: a lock that never expires)")
	}
	for _, ws := range w.p.sc.Workers {
		if c.Dur > 0 && ws.Renew.Margin >= c.Dur {
			return refuse(RefuseLeaseMargin, fmt.Sprintf("lease: %s renews %s before the end, which a %s lease does not leave", ws.Name, ws.Renew.Margin, c.Dur), ws.Name, ws.Renew.Margin, c.Dur)
		}
	}
	return nil
}

func (w *World) checkReplica(c Command) error {
	n := len(w.coord.up)
	if c.Replica < 1 || c.Replica > n {
		return refuse(RefuseReplicaRange, fmt.Sprintf("replica: there are replicas 1 to %d", n), strconv.Itoa(n))
	}
	if w.coord.up[c.Replica-1] != c.Up {
		return nil
	}
	if c.Up {
		return refuse(RefuseReplicaUp, fmt.Sprintf("replica %d is already up", c.Replica), strconv.Itoa(c.Replica))
	}
	return refuse(RefuseReplicaDown, fmt.Sprintf("replica %d is already down", c.Replica), strconv.Itoa(c.Replica))
}

// nodeList is the workers' names as a refusal lists them.
func nodeList(names []string) string { return strings.Join(names, ", ") }
