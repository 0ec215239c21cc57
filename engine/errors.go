package engine

import "fmt"

// Readable is an error a student or an author reads: a catalog key and the
// arguments its text is filled with, so that a page says it in the reader's
// language. Error is the English sentence that logs, traces and tests read.
// Every layer's errors meet it (the engine's refusals, the session's limits,
// the web layer's); the catalog renders it (catalog.Error). It lives here,
// at the bottom, so that the engine can speak it without knowing the
// catalog.
//
// Arguments are strings, integers, Times, Commands (said in the reader's
// words) or other errors (said in the reader's language in turn).
type Readable interface {
	error
	Key() string
	Args() []any
}

// Refusal names why a command cannot be read or carried out; its catalog
// key is "err." followed by the reason.
type Refusal string

// The reasons a command is refused. Callers match them with errors.As and
// Why, never by the English text.
const (
	RefuseEmpty          Refusal = "empty"
	RefuseForm           Refusal = "form"         // command, its form
	RefuseUnknownName    Refusal = "unknown-name" // the word
	RefuseUnknown        Refusal = "unknown"
	RefuseDuration       Refusal = "duration" // what, the text that is not a duration
	RefuseOption         Refusal = "option"   // command, the option, the options it takes
	RefusePositive       Refusal = "positive" // advance or freeze for=
	RefuseUntilNegative  Refusal = "until-negative"
	RefuseUntilPast      Refusal = "until-past" // the time asked, now
	RefuseStepNothing    Refusal = "step-nothing"
	RefuseWorldEnd       Refusal = "world-end" // the end
	RefuseFreezeCrashed  Refusal = "freeze-crashed"
	RefuseFreezeFrozen   Refusal = "freeze-frozen"
	RefuseFreezeDuration Refusal = "freeze-duration"
	RefuseFreezeOn       Refusal = "freeze-on"
	RefuseFreezeOnWord   Refusal = "freeze-on-word" // the moment asked
	RefuseThawNotFrozen  Refusal = "thaw-not-frozen"
	RefuseCrashCrashed   Refusal = "crash-crashed"
	RefuseRestartRunning Refusal = "restart-running"
	RefuseOnOff          Refusal = "on-off" // command, the word
	RefuseStorageMode    Refusal = "storage-mode"
	RefuseStorageName    Refusal = "storage-name" // the word, the modes
	RefuseNoNode         Refusal = "no-node"      // the name, the workers
	RefuseNoWorker       Refusal = "no-worker"    // the name, the workers
	RefuseLinkSame       Refusal = "link-same"
	RefuseLinkEnds       Refusal = "link-ends"
	RefuseLinkWhat       Refusal = "link-what"
	RefuseLinkRange      Refusal = "link-range"
	RefuseLinkCopies     Refusal = "link-copies" // a storage copy's link: only partition or heal copy1 copy2
	RefuseLoss           Refusal = "loss"        // the text
	RefuseClockWhat      Refusal = "clock-what"
	RefuseClockRange     Refusal = "clock-range"
	RefuseRate           Refusal = "rate"   // the text
	RefuseJitter         Refusal = "jitter" // the text
	RefusePolicy         Refusal = "policy" // the text
	RefuseLeaseLock      Refusal = "lease-lock"
	RefuseLeaseRange     Refusal = "lease-range"
	RefuseLeaseMargin    Refusal = "lease-margin" // worker, its margin, the lease
	RefuseReplicaNumber  Refusal = "replica-number"
	RefuseReplicaRange   Refusal = "replica-range" // the number of replicas
	RefuseReplicaState   Refusal = "replica-state" // the word
	RefuseReplicaDown    Refusal = "replica-down"  // the replica
	RefuseReplicaUp      Refusal = "replica-up"    // the replica
	RefuseRevoked        Refusal = "revoked"       // the worker
)

// CommandError is a command the world cannot read or carry out: why
// (Why) and what it is about (Args), for the catalog; Error is the same
// in English, as every error of the engine reads.
type CommandError struct {
	Why  Refusal
	args []any
	msg  string
}

func (e *CommandError) Error() string { return e.msg }

// Key is the catalog key of the reason.
func (e *CommandError) Key() string { return "err." + string(e.Why) }

// Args are what the catalog's text is filled with.
func (e *CommandError) Args() []any { return e.args }

// refuse builds a CommandError; msg is the English sentence.
func refuse(why Refusal, msg string, args ...any) error {
	return &CommandError{Why: why, args: args, msg: msg}
}

// UnknownOptionError is a scenario or worker option the engine does not
// have: its name is wrong, not its value.
type UnknownOptionError struct {
	Of  string // scenario or worker
	Key string
}

func (e *UnknownOptionError) Error() string { return fmt.Sprintf("unknown %s option %q", e.Of, e.Key) }

// StepError is a worker's program with a step that does not read, or out
// of place: the program is wrong, not the rest of the worker's line.
type StepError struct{ Err error }

func (e *StepError) Error() string { return e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }
