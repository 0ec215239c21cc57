package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"leaselab/labs"
)

// JudgeCommand makes the process that judges one written worker a page
// submitted: leaselab judge LAB --background, with the course the server
// serves, and ctx ending it. The process reads the program on its
// standard input and prints one labs.JudgementLine.
//
// A judgement in a process of its own, at the lowest CPU priority the
// system has, runs only on what the students' sessions leave, and its
// garbage is collected apart from theirs: four students submitting at
// once do not slow a classmate's frames, and a judgement that grew too
// large would die alone.
type JudgeCommand func(ctx context.Context, lab string) *exec.Cmd

// judgeProcess judges src in a process of its own and replays the
// deciding schedules here (labs.ProgramSpec.VerdictFrom).
func (s *Server) judgeProcess(ctx context.Context, lab *labs.Lab, src string) (*labs.ProgramVerdict, error) {
	cmd := s.judgeCommand(ctx, lab.ID)
	cmd.Stdin = strings.NewReader(src)
	var errs tailWriter
	cmd.Stderr = &errs
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("judge process: %v: %s", err, errs.last())
	}
	var line labs.JudgementLine
	if err := json.Unmarshal(out, &line); err != nil {
		return nil, fmt.Errorf("judge process: %w", err)
	}
	s.judgeCPU.Add(int64(line.CPU))
	s.judgeRuns.Add(1)
	return lab.Program().VerdictFrom(src, line)
}

// writeJudgeMetrics writes the judgements' counters for /metrics.
func (s *Server) writeJudgeMetrics(w io.Writer) {
	fmt.Fprintf(w, "# HELP leaselab_judgements_in_process_total Submitted programs judged in a process of their own at the lowest CPU priority.\n# TYPE leaselab_judgements_in_process_total counter\nleaselab_judgements_in_process_total %d\n", s.judgeRuns.Load())
	fmt.Fprintf(w, "# HELP leaselab_judge_cpu_seconds_total CPU time the judgement processes used, as they report it.\n# TYPE leaselab_judge_cpu_seconds_total counter\nleaselab_judge_cpu_seconds_total %.3f\n", time.Duration(s.judgeCPU.Load()).Seconds())
}
