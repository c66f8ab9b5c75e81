package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/openshift-recover/recover/apply"
)

// Printer renders events.
type Printer interface {
	Print(ev apply.Event) error
}

// JSON writes events as JSON lines after a version line.
type JSON struct {
	mu        sync.Mutex
	w         io.Writer
	generator string
	started   bool
}

// NewJSON returns a JSON-lines printer; generator is recover's version.
func NewJSON(w io.Writer, generator string) *JSON { return &JSON{w: w, generator: generator} }

// versionLine is the first line of the JSON stream.
type versionLine struct {
	Type          string `json:"type"`
	EventsVersion string `json:"eventsVersion"`
	Generator     string `json:"generator,omitempty"`
}

// Print writes one event (and the version line before the first).
func (p *JSON) Print(ev apply.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	enc := json.NewEncoder(p.w)
	if !p.started {
		p.started = true
		if err := enc.Encode(versionLine{Type: "version", EventsVersion: apply.EventsVersion, Generator: p.generator}); err != nil {
			return err
		}
	}
	return enc.Encode(ev)
}

// Plain writes human-readable lines. On a terminal the progress line of a waiting
// gate is redrawn in place; elsewhere each progress change is its own line.
type Plain struct {
	mu  sync.Mutex
	w   io.Writer
	tty bool
	// ShowDiffs prints each step's diff before it is applied.
	ShowDiffs bool

	applied  map[string]string
	gates    map[string][]string
	progress bool // a progress line is on screen (tty)
}

// NewPlain returns a plain printer; tty says whether w is a terminal.
func NewPlain(w io.Writer, tty bool) *Plain {
	return &Plain{w: w, tty: tty, applied: map[string]string{}, gates: map[string][]string{}}
}

func stepPrefix(s *apply.StepInfo) string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("[%d/%d] %s", s.Index, s.Total, s.ID)
}

func seconds(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(100 * time.Millisecond).String()
}

// Print renders one event.
func (p *Plain) Print(ev apply.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var lines []string
	switch ev.Type {
	case apply.EventRunStarted:
		r := ev.Run
		mode := "apply"
		switch {
		case r.DryRun:
			mode = "DRY RUN (nothing will change)"
		case r.Resume:
			mode = "resume"
		}
		target := fmt.Sprintf("target %s (%s)", r.TargetVersion, r.TargetImage)
		if r.Mode == "remediation" || r.TargetVersion == "" {
			target = "remediation only, no new release"
		}
		line := fmt.Sprintf("recover apply: %s, %s, %d steps", mode, target, r.Steps)
		if r.Journal != "" && !r.DryRun {
			line += ", journal " + r.Journal
		}
		lines = append(lines, line)
	case apply.EventPreflight:
		c := ev.Preflight
		status := "ok"
		if !c.OK {
			status = "FAILED"
		}
		if len(c.Problems) > 1 {
			lines = append(lines, fmt.Sprintf("preflight %s: %s", c.Name, status))
			for _, pr := range c.Problems {
				lines = append(lines, "  - "+pr)
			}
		} else {
			lines = append(lines, fmt.Sprintf("preflight %s: %s: %s", c.Name, status, c.Message))
		}
	case apply.EventLock:
		lines = append(lines, "lock: "+ev.Message)
	case apply.EventDiff:
		if p.ShowDiffs && ev.Change != nil && ev.Change.Diff != "" {
			lines = append(lines, fmt.Sprintf("%s: %s %s%s", stepPrefix(ev.Step), ev.Change.Operation, ev.Change.Object, pairing(ev.Change.RevertedBy, ev.Change.Reverts)))
			lines = append(lines, indent(ev.Change.Diff))
		}
	case apply.EventApplied:
		if ev.Step != nil && ev.Change != nil {
			p.applied[ev.Step.ID] = ev.Change.Result + " " + ev.Change.Object
		}
	case apply.EventWaiting:
		g := ev.Gate
		line := fmt.Sprintf("%s: waiting %s/%s for %s: %s", stepPrefix(ev.Step), seconds(g.ElapsedSeconds), seconds(g.TimeoutSeconds), g.Subject, g.Message)
		if p.tty {
			fmt.Fprintf(p.w, "\r\x1b[K%s", truncate(line, 200))
			p.progress = true
			return nil
		}
		lines = append(lines, line)
	case apply.EventGatePassed:
		if ev.Step != nil {
			p.gates[ev.Step.ID] = append(p.gates[ev.Step.ID], fmt.Sprintf("gate %s passed in %s", ev.Gate.Kind, seconds(ev.Gate.ElapsedSeconds)))
		}
	case apply.EventGateFailed:
		lines = append(lines, fmt.Sprintf("%s: gate %s FAILED: %s", stepPrefix(ev.Step), ev.Gate.Kind, ev.Error))
		for _, pending := range ev.Gate.Pending {
			lines = append(lines, "  - "+pending)
		}
	case apply.EventSkipped:
		if ev.Step != nil {
			lines = append(lines, fmt.Sprintf("%s: skipped: %s", stepPrefix(ev.Step), ev.Message))
		}
	case apply.EventStepDone:
		parts := []string{}
		if a := p.applied[ev.Step.ID]; a != "" {
			parts = append(parts, a)
		}
		parts = append(parts, p.gates[ev.Step.ID]...)
		if len(parts) == 0 {
			parts = append(parts, ev.Message)
		}
		lines = append(lines, fmt.Sprintf("%s: %s%s", stepPrefix(ev.Step), strings.Join(parts, "; "), pairing(ev.Step.RevertedBy, ev.Step.Reverts)))
		delete(p.applied, ev.Step.ID)
		delete(p.gates, ev.Step.ID)
	case apply.EventReverting:
		lines = append(lines, fmt.Sprintf("%s: %s", stepPrefix(ev.Step), ev.Message))
	case apply.EventReverted:
		if ev.Error != "" {
			lines = append(lines, fmt.Sprintf("%s: NOT reverted: %s", stepPrefix(ev.Step), ev.Error))
		} else {
			lines = append(lines, fmt.Sprintf("%s: reverted: %s", stepPrefix(ev.Step), ev.Message))
		}
	case apply.EventCVO:
		lines = append(lines, "cvo: "+ev.Message)
	case apply.EventStage:
		lines = append(lines, "== "+ev.Message)
	case apply.EventWarning:
		lines = append(lines, "warning: "+ev.Message)
	case apply.EventError:
		lines = append(lines, fmt.Sprintf("%s: error: %s", stepPrefix(ev.Step), ev.Error))
	case apply.EventDone:
		r := ev.Result
		lines = append(lines, fmt.Sprintf("%s: %s", r.Outcome, r.Message))
		for _, ri := range r.Reverted {
			lines = append(lines, fmt.Sprintf("reverted: step %s's temporary change of %s, back to its pre-image", ri.Step, ri.Object))
		}
		for _, ri := range r.NotReverted {
			lines = append(lines, fmt.Sprintf("NOT reverted: step %s's temporary change of %s: %s", ri.Step, ri.Object, ri.Error))
		}
		if r.Holds != "" {
			lines = append(lines, "held by "+r.Holds)
		}
		if len(r.Next) > 0 {
			lines = append(lines, "next:")
			for _, n := range r.Next {
				lines = append(lines, "  "+n)
			}
		}
	}
	if len(lines) == 0 {
		return nil
	}
	if p.progress {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.progress = false
	}
	_, err := fmt.Fprintln(p.w, strings.Join(lines, "\n"))
	return err
}

// pairing says what a temporary change and its revert step are to each other.
func pairing(revertedBy, reverts string) string {
	switch {
	case revertedBy != "":
		return " (temporary: restored by step " + revertedBy + ")"
	case reverts != "":
		return " (restores what step " + reverts + " changed)"
	}
	return ""
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
