package engine

// CommandError is a command the world cannot carry out or cannot read.
// Kind names the trouble so that a page can say it in the student's
// language ("thaw: W1 is not frozen" is Kind "thaw-not-frozen" with Args
// ["W1"]); Error is the same in English, as every error here reads.
type CommandError struct {
	Kind string
	Args []string
	msg  string
}

func (e *CommandError) Error() string { return e.msg }

// refuse builds a CommandError; msg is the English sentence.
func refuse(kind, msg string, args ...string) error {
	return &CommandError{Kind: kind, Args: args, msg: msg}
}
