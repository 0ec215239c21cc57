// Package engine is leaselab's world: a deterministic simulation of a
// lease service, the storage it protects, and the workers that compete for
// the lease, with the faults the lessons are about.
//
// # The model
//
// Time is virtual, in milliseconds ([Time]). Everything that will happen —
// a message arriving, a timer firing, a lease expiring — is an item in one
// queue ordered by (time, sequence number), so ties always break the same
// way. Randomness (network jitter and loss) comes only from the scenario's
// seed. The engine does no I/O, never reads a real clock and starts no
// goroutines; a test enforces this. The same [Scenario] and the same
// commands therefore give the same events, byte for byte.
//
// The actors:
//
//   - The coordinator is the lease service: a number of replicas behind a
//     quorum, one lease, and a fencing-token counter that only rises (it
//     stands for a consensus log index). It grants, renews, releases and
//     expires leases by its own clock, which is the authority. Waiters
//     queue and are woken when the lease frees; pollers are denied. Options:
//     a lock without expiry (TTL 0), lock-delay after an expiry, an
//     election delay when its leader replica fails, a service time per
//     request (so load becomes latency), a new token on every renewal.
//     Without a quorum or a leader it answers "unavailable". With
//     candidate-side expiry (the scenario's expiry=candidate, as
//     Kubernetes' leader election) it never expires a lease: the lease is
//     a record whose version changes with every grant and renewal, and a
//     candidate that has seen the same version for a TTL by its own clock
//     overwrites it.
//   - The storage records every write attempt in a ledger and judges it by
//     its mode: none (accepts anything), fencing (rejects a token lower than
//     the highest it has seen), equality with the current lease,
//     compare-and-set on a version, or an idempotency key. The mode is a
//     switch the student can flip while the world runs.
//   - Workers run a small program ([ParseProgram]): acquire, work, check,
//     write, send, read, release, repeat. Each has a local clock with an
//     offset and a rate, and believes its lease lasts until a local deadline
//     it computes itself, from when it sent the request (safe) or when the
//     answer arrived (the unsafe variant many clients have). A worker may
//     renew periodically, time out requests, and stop at its deadline. A
//     frozen worker does nothing; everything that falls due meanwhile waits,
//     and on thawing it carries on exactly where it stopped, with the belief
//     it had — that is the stale owner. A crash loses its memory; a restart
//     runs the program from the top. A preset (etcd, kubernetes, zookeeper,
//     consul, chubby, redlock) stands for a real system: its client's
//     renewal policy and what its server does with the worker's lease (a
//     later expiry than the client is told, lock-delay, a fresh TTL on a
//     leader change). Options written on the worker win over its preset.
//   - The network delivers every message after a delay (fixed plus seeded
//     jitter), may lose it, and can be cut per link and per direction.
//
// Observers watch every event and record violations with the events that
// prove them ([Event.Ref], [Event.Ref2]): a stale write accepted, an effect
// done twice, a worker acting after its lease expired at the coordinator,
// two workers believing they hold the lease at the same true time (split
// brain), and a write with an older token overwriting a newer one. A
// holder's token stays its own for as long as its holding lasts, even when
// a renewal has handed out a newer one meanwhile.
//
// # Using it
//
// Build a world from a scenario, then apply commands. Each command returns
// an error and changes nothing when it is not valid; otherwise its events
// are appended to the log:
//
//	var sc engine.Scenario
//	sc.Set("ttl", "15s")
//	sc.Set("first-token", "7")
//	sc.Set("fencing", "on")
//	w1, _ := engine.ParseWorker("W1: acquire; work 5s; write file; release")
//	w2, _ := engine.ParseWorker("W2 start=1s: acquire; work 5s; write file; release")
//	sc.Workers = []engine.WorkerSpec{w1, w2}
//
//	w, err := engine.New(sc)
//	if err != nil { ... }
//	for _, cmd := range []string{"until 4s", "freeze W1 for=25s", "until 30s"} {
//		before := len(w.Events())
//		if err := w.Do(cmd); err != nil {
//			fmt.Println("error:", err) // the world is unchanged
//			continue
//		}
//		for _, e := range w.Events()[before:] {
//			fmt.Println(w.Names().Format(e))
//		}
//	}
//	snap := w.Snapshot() // leases real and believed, freezes, ledger, ...
//
// The commands, as text ([ParseCommand], [CommandHelp]): advance D, step,
// until T, freeze W [for=D] [on=check|work|acquired], thaw W, crash W,
// restart W, fencing on|off, storage MODE, partition A [B], heal [A [B]],
// link A->B|A B [delay=D] [loss=P], clock W [skew=D] [jump=D] [rate=R],
// replica N down|up, reset. A session is its scenario, seed and
// [World.Commands]; replaying them rebuilds it exactly. That is also how a
// command refused part way, over its event budget, is undone: the world is
// built again from its scenario and its commands before the refused one.
//
// The log is one slice of flat events without pointers: a lease or a
// storage key is a [KeyID] that [Names.Key] turns back into its name, so
// the garbage collector never scans the log. A caller building many worlds
// of one scenario prepares it once ([Prepare]): every world built from the
// [Prepared] scenario shares its workers, programs and names and only
// reads them, so a world holds just what its run changes (a lab's
// sessions do this). A caller running many worlds one after another
// ([Challenge] runs) builds each in the last one's arrays
// ([Prepared.NewIn], [World.Reuse]); a reset and a refused command's undo
// reuse them too. A World belongs to one goroutine; separate worlds change
// nothing they share, so a caller may run many at once (labs judges a
// challenge's runs on every core through [Challenge.PlayRun] and
// [Challenge.Tally], in the same order and with the same verdict as
// [Challenge.Judge]).
//
// A [Search] tries every fault schedule within stated bounds (kinds of
// fault, a grid of sizes, at most three faults) instead of a random
// sample: it forks the world at each fault's moment, recognises a state
// explored before by [World.StateHash], and either proves a design within
// the bounds or returns the shortest schedule that breaks it, as a command
// list. It splits its work into parts that a caller may run on every core
// and merges them in order, so the verdict and its counts do not depend on
// how many ran at once.
//
// Scenario tests live in testdata/ and read like etcd's raft tests: a
// "world" directive with options and one worker per line, then "do" blocks
// of commands whose expected output is the trace.
package engine
