package labs

import (
	"fmt"
	"time"

	"leaselab/engine"
)

// A search can run in a process of its own: a server runs leaselab
// search --format stream at the lowest CPU priority, so that the students
// it serves always come first, and reads what the search prints, one JSON
// object a line (SearchLine): progress reports as it goes, then the
// result. The server replays the result's schedule itself (VerdictOf).

// SearchLine is one line of leaselab search --format stream.
type SearchLine struct {
	// Progress is how far the search is, with the CPU time its process
	// has used so far (a server charges it to whoever asked).
	Progress *SearchProgress `json:"progress,omitempty"`
	CPU      time.Duration   `json:"cpu_ns,omitempty"`
	// Result ends the stream.
	Result *StreamResult `json:"result,omitempty"`
}

// StreamResult is a search's result as a stream says it: its counts,
// and the shortest breaking schedule's faults and commands.
type StreamResult struct {
	Schedules int                  `json:"schedules"`
	Broken    int                  `json:"broken"`
	States    int                  `json:"states"`
	Pruned    int                  `json:"pruned"`
	Moments   int                  `json:"moments"`
	Parts     int                  `json:"parts"`
	TooLarge  bool                 `json:"too_large,omitempty"`
	Faults    []engine.SearchFault `json:"faults,omitempty"`
	Commands  []string             `json:"commands,omitempty"`
}

// StreamResultOf says res as a stream does.
func StreamResultOf(res engine.SearchResult) *StreamResult {
	r := &StreamResult{
		Schedules: res.Schedules, Broken: res.Broken, States: res.States, Pruned: res.Pruned,
		Moments: res.Moments, Parts: res.Parts, TooLarge: res.TooLarge,
	}
	if br := res.Shortest; br != nil {
		r.Faults = br.Faults
		r.Commands = make([]string, len(br.Commands))
		for i, c := range br.Commands {
			r.Commands[i] = c.String()
		}
	}
	return r
}

// SearchResult reads the result back; its shortest schedule's harm is
// left for VerdictOf to find by replaying it.
func (r *StreamResult) SearchResult() (engine.SearchResult, error) {
	res := engine.SearchResult{
		SearchPart: engine.SearchPart{Schedules: r.Schedules, Broken: r.Broken, States: r.States, Pruned: r.Pruned, TooLarge: r.TooLarge},
		Moments:    r.Moments, Parts: r.Parts,
	}
	if len(r.Commands) == 0 {
		if len(r.Faults) > 0 {
			return res, fmt.Errorf("search result: %d faults but no commands", len(r.Faults))
		}
		return res, nil
	}
	if len(r.Faults) > 3 {
		// None is a design the run without faults breaks already.
		return res, fmt.Errorf("search result: a breaking schedule has 0 to 3 faults, not %d", len(r.Faults))
	}
	br := &engine.Breaking{Faults: r.Faults}
	for _, s := range r.Commands {
		c, err := engine.ParseCommand(s)
		if err != nil {
			return res, fmt.Errorf("search result: %w", err)
		}
		br.Commands = append(br.Commands, c)
	}
	res.Shortest = br
	return res, nil
}
