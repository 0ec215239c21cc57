package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"leaselab/load"
)

// loadOptions is what load's flags ask for: a run of sessions (cfg), of
// classes (cc), or both.
type loadOptions struct {
	cfg         load.Config
	cc          load.ClassConfig
	voteOnStdin bool
}

// loadCmd opens many live lab sessions against a server on this machine
// and prints what they cost it.
func loadCmd(args []string, stdout, stderr io.Writer) (exit int) {
	var o loadOptions
	fl := o.flags()
	pos, code, ok := fl.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(stderr, "load", "unexpected argument %q", pos[0])
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, cc := o.cfg, o.cc
	if cc.Students > 0 {
		cc.URL, cc.Lang, cc.Lab = cfg.URL, cfg.Lang, cfg.Lab // cc.StudentURL from its flag
		if msg := firstQuestion(&cc); msg != "" {
			return usageError(stderr, "load", "%s", msg)
		}
		if o.voteOnStdin {
			cc.VoteAt, cc.Until = stdinSignals(os.Stdin)
			cc.Joined = func() { fmt.Fprintln(stdout, classesJoined) }
		}
		if !fl.given("sessions") {
			return classLoad(ctx, cc, stdout, stderr)
		}
		classes, err := startClasses(ctx, args, stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "leaselab load: %v\n", err)
			return 1
		}
		besideClasses(&cfg, cc, classes)
		defer func() {
			if code := classes.wait(); code != 0 && exit == 0 {
				exit = code
			}
		}()
	}
	return sessionsLoad(ctx, cfg, stdout, stderr)
}

// flags is load's flag set, writing into o.
func (o *loadOptions) flags() *cmdFlags {
	fl := newFlags("load", "leaselab load [--sessions N] [--url http://127.0.0.1:PORT] [--pid PID] [flags]", `
Opens N live lab sessions against a server on this machine that play and
send controls, beside --idle sessions that only stay connected, holds them,
and prints sessions held, the server's memory per idle and per playing
session, its CPU time per frame and command-to-frame latency.
Every session sends an X-Forwarded-For address of its own, as a proxy on
this machine would: run the server with --trusted-proxies 127.0.0.1 to
measure that many students rather than one address's budget and
connection cap.

With --class-students N it runs class mode instead: --classes classes of N
students, each class with its dashboard's event stream open and a vote
opened on the first question of --lab (with a --class-timer, and asking
how sure: --class-confidence), every student on the lab's page (its
socket open) voting in the same second; it prints the votes recorded and
the vote-to-dashboard latency.
With --sessions given too, the classes vote while the sessions play.`)
	cfg := &o.cfg
	fl.StringVar(&cfg.URL, "url", "http://127.0.0.1:8080", "the server, on a loopback address")
	fl.IntVar(&cfg.Sessions, "sessions", 100, fmt.Sprintf("live sessions to open, play and hold (with --idle, at most %d)", load.MaxSessions))
	fl.IntVar(&cfg.Idle, "idle", 0, "sessions that only connect and answer pings, opened before the playing ones")
	fl.StringVar(&cfg.Lab, "lab", "w1-w2", "the lab every session plays")
	fl.StringVar(&cfg.Lang, "lang", "en", "the sessions' language")
	fl.DurationVar(&cfg.Hold, "hold", 20*time.Second, "how long the sessions play once all are open (at most 10m)")
	fl.DurationVar(&cfg.Every, "every", 2*time.Second, "how often each session sends a control")
	fl.Float64Var(&cfg.Speed, "speed", 5, "play speed, virtual seconds per real second")
	fl.IntVar(&cfg.Dialers, "dialers", 50, "sessions being opened at once")
	fl.IntVar(&cfg.Searches, "searches", 0, "schedule searches to keep running beside the sessions, each a new design (\"prove it within bounds\")")
	fl.StringVar(&cfg.SearchLab, "search-lab", "renew-policy", "the lab whose design challenge the searches prove")
	fl.IntVar(&cfg.PID, "pid", 0, "the server's process id, to read its memory and CPU time from /proc (default: the server's /metrics)")
	o.classFlags(fl)
	return fl
}

// classFlags are load's flags for a run of class mode.
func (o *loadOptions) classFlags(fl *cmdFlags) {
	cc := &o.cc
	fl.IntVar(&cc.Students, "class-students", 0, fmt.Sprintf("students per class in a run of class mode (at most %d)", load.MaxClassStudents))
	fl.StringVar(&cc.StudentURL, "student-url", "", "in a run of class mode, another replica (on the same --database) where the students join and vote, the dashboards staying on --url")
	fl.BoolVar(&cc.Sockets, "class-sockets", true, "in a run of class mode, every student is on the class's lab page: keeps its socket open, hears the class bar and votes over it; false: votes with the form, as a page without a live world does")
	fl.BoolVar(&cc.Bars, "class-bars", true, "in a run of class mode with --class-sockets=false, every student keeps the class bar's stream open, as such a page does")
	fl.DurationVar(&cc.Within, "vote-within", time.Second, "in a run of class mode, each student votes at a random moment within this time of the vote's start, as a room answering in the same second does; 0: all at one instant")
	fl.DurationVar(&cc.Apart, "classes-apart", 0, "in a run of class mode, the classes vote one after another, this far apart (the students of each still within --vote-within); 0: every class in the same second")
	fl.BoolVar(&cc.Confidence, "class-confidence", true, "in a run of class mode, the class asks how sure each student is, and they say (sure and not sure in turn)")
	fl.DurationVar(&cc.Timer, "class-timer", 2*time.Minute, "in a run of class mode, the vote opens with a timer of this long, which closes it by itself; 0: none")
	fl.IntVar(&cc.Classes, "classes", 1, fmt.Sprintf("classes in a run of class mode (at most %d)", load.MaxClasses))
	fl.BoolVar(&o.voteOnStdin, "vote-on-stdin", false, "in a run of class mode, join, then vote when a line comes on stdin, and leave when stdin ends (how load runs its classes beside sessions, in a process of their own)")
}

// besideClasses has the sessions' run wait for the classes and set them
// voting. The classes open and join while the sessions open; the hold
// begins when both are in (it measures the sessions beside the classes,
// not beside a lecture room arriving). They vote a third into the hold,
// while the sessions play, and stay until the sessions have played
// (students do not all leave at once). They run in a process of their
// own, as the other devices they are: a class's flood of votes in this
// process would hold up the reads of the playing sessions' answers in the
// same scheduler, and count as the server's delay.
func besideClasses(cfg *load.Config, cc load.ClassConfig, classes *classProcess) {
	cfg.Ready = classes.ready
	at := voteStart(cfg.Hold, cc)
	cfg.Holding = func() { time.AfterFunc(at, classes.vote) }
}

// sessionsLoad runs the live sessions and prints their figures.
func sessionsLoad(ctx context.Context, cfg load.Config, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "leaselab load: %d sessions of %s on %s for %s, a control every %s", cfg.Sessions, cfg.Lab, cfg.URL, cfg.Hold, cfg.Every)
	if cfg.Idle > 0 {
		fmt.Fprintf(stdout, ", beside %d idle", cfg.Idle)
	}
	if cfg.Searches > 0 {
		fmt.Fprintf(stdout, ", and %d schedule searches", cfg.Searches)
	}
	fmt.Fprintln(stdout)
	res, err := load.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab load: %v\n", err)
		return 1
	}
	res.Report(stdout)
	if res.Held == 0 {
		return 1
	}
	return 0
}

// voteStart is when, into the sessions' hold, the classes start voting: a
// third in, or earlier when they vote apart, so that the last class has
// voted and been counted well before the hold ends.
func voteStart(hold time.Duration, cc load.ClassConfig) time.Duration {
	last := time.Duration(cc.Classes-1)*cc.Apart + cc.Within
	return max(0, min(hold/3, hold-last-5*time.Second))
}

// firstQuestion sets the class run's question to the first of its lab in
// the embedded course; it returns what is wrong, "" if nothing.
func firstQuestion(cc *load.ClassConfig) string {
	course, _ := embeddedCourse()
	if course == nil {
		return "the embedded course does not load"
	}
	l := course.Lab(cc.Lab)
	if l == nil || len(l.Questions) == 0 {
		return fmt.Sprintf("--lab %s: a class run needs a lab with a question", cc.Lab)
	}
	q := l.Questions[0]
	cc.Question = q.ID
	for _, ch := range q.Choices {
		cc.Choices = append(cc.Choices, ch.ID)
	}
	return ""
}

// classLoad runs class mode and prints its figures.
func classLoad(ctx context.Context, cc load.ClassConfig, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "leaselab load: %d class(es) of %d students on %s voting on %s/%s\n", cc.Classes, cc.Students, cc.URL, cc.Lab, cc.Question)
	res, err := load.RunClasses(ctx, cc)
	if err != nil {
		fmt.Fprintf(stderr, "leaselab load: %v\n", err)
		return 1
	}
	res.Report(stdout)
	if res.Recorded < res.Sent {
		return 1
	}
	return 0
}

// loadChildEnv marks a load process that another load started for its
// classes (a test binary then acts as leaselab: main_test.go).
const loadChildEnv = "LEASELAB_LOAD_CHILD"

// classesJoined is the line a class process writes when its students are
// all in, on their lab pages: the sessions' hold begins then.
const classesJoined = "leaselab load: classes joined"

// classProcess is a run's classes in a load process of their own: a line
// on its stdin has them vote, the end of its stdin has them leave.
type classProcess struct {
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	once           sync.Once
	out, errs      bytes.Buffer // what it says, said after the sessions' figures
	stdout, stderr io.Writer
	joined         chan struct{} // closed at the classesJoined line
	read           chan struct{} // closed when its stdout ends
}

// startClasses starts this program's load with args, less --sessions
// (and the flags only sessions take), and --vote-on-stdin.
func startClasses(ctx context.Context, args []string, stdout, stderr io.Writer) (*classProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find this program to start the classes apart: %w", err)
	}
	child := []string{"load", "--vote-on-stdin"}
	for i := 0; i < len(args); i++ {
		name, _, inline := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		switch name {
		case "sessions", "idle", "hold", "every", "speed", "dialers", "searches", "search-lab", "pid":
			if !inline && i+1 < len(args) {
				i++ // its value
			}
			continue
		}
		child = append(child, args[i])
	}
	p := &classProcess{cmd: exec.CommandContext(ctx, exe, child...), stdout: stdout, stderr: stderr,
		joined: make(chan struct{}), read: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), loadChildEnv+"=1")
	p.cmd.Stderr = &p.errs
	in, err := p.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	p.stdin = in
	go func() {
		defer close(p.read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == classesJoined {
				close(p.joined)
				continue
			}
			p.out.Write(sc.Bytes())
			p.out.WriteByte('\n')
		}
	}()
	return p, nil
}

// ready waits until the classes have joined; an error if they ended
// before (what they said comes with the run's figures).
func (p *classProcess) ready(ctx context.Context) error {
	select {
	case <-p.joined:
		return nil
	case <-p.read:
		select {
		case <-p.joined:
			return nil
		default:
		}
		return errors.New("the classes ended before their students joined (what they said follows)")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// vote has the classes vote, once.
func (p *classProcess) vote() { p.once.Do(func() { io.WriteString(p.stdin, "vote\n") }) }

// wait has the classes leave and returns their exit code.
func (p *classProcess) wait() int {
	p.stdin.Close()
	<-p.read // before Wait, which closes the pipe
	err := p.cmd.Wait()
	p.stdout.Write(p.out.Bytes())
	p.stderr.Write(p.errs.Bytes())
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}

// stdinSignals: vote closes at the first line of r, until at its end.
func stdinSignals(r io.Reader) (vote, until <-chan struct{}) {
	v, u := make(chan struct{}), make(chan struct{})
	go func() {
		sc := bufio.NewScanner(r)
		voted := false
		for sc.Scan() {
			if !voted {
				voted = true
				close(v)
			}
		}
		if !voted {
			close(v)
		}
		close(u)
	}()
	return v, u
}
