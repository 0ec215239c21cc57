package engine

import "slices"

// Metrics sums up how renewals went in a run: the numbers the second seed
// says to watch. They are computed from the event log alone.
type Metrics struct {
	Attempts   int    // renewal requests sent
	Successes  int    // renewals that extended a worker's belief
	Failures   int    // attempts that failed (timeout, unavailable, rejected)
	Transient  int    // failures of the transient class
	Definitive int    // failures of the definitive class
	Rejected   int    // renewals the coordinator refused: holder or generation changed
	Lost       int    // leases lost after renewals failed (deadline or rejection)
	StaleDrops int    // answers for an older generation that were dropped
	Latency    []Time // each answered attempt: send to answer, in order
	Remaining  []Time // time left on the belief at each success, in order
	Retries    []int  // extra attempts each successful renewal needed
}

// Metrics computes the renewal metrics of the world's log.
func (w *World) Metrics() Metrics { return ComputeMetrics(w.Events()) }

// ComputeMetrics computes renewal metrics from an event log.
func ComputeMetrics(evs []Event) Metrics {
	var m Metrics
	type key struct {
		node Node
		req  int64
	}
	sent := map[key]Time{}
	attempts := map[Node]int{}
	for _, e := range evs {
		switch e.Kind {
		case KindSend:
			if e.Msg() == MsgRenew {
				m.Attempts++
				attempts[e.Node]++
				sent[key{e.Node, e.Value}] = e.T
			}
		case KindRecv:
			switch e.Msg() {
			case MsgRenewOK, MsgRenewReject, MsgUnavailable:
				if t, ok := sent[key{e.Node, e.Value}]; ok {
					m.Latency = append(m.Latency, e.T-t)
					delete(sent, key{e.Node, e.Value})
				}
			}
		case KindRenewed:
			m.Successes++
			m.Remaining = append(m.Remaining, Time(e.Value))
			m.Retries = append(m.Retries, max(0, attempts[e.Node]-1))
			attempts[e.Node] = 0
		case KindRenewError:
			m.Failures++
			if e.Value == 1 {
				m.Definitive++
			} else {
				m.Transient++
			}
		case KindRenewReject:
			m.Rejected++
		case KindLost:
			if e.Reason() == ReasonDeadline || e.Reason() == ReasonNotHolder {
				m.Lost++
			}
		case KindStaleReply:
			m.StaleDrops++
		case KindAcquired:
			attempts[e.Node] = 0
		}
	}
	return m
}

// Percentile returns the p-th percentile (0–100) of ts, or 0 when empty.
func Percentile(ts []Time, p int) Time {
	if len(ts) == 0 {
		return 0
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}
