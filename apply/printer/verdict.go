package printer

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/internal/nextcmd"
)

// VerdictStore is where the Verdict printer keeps the cluster's verdict
// (apply/fleet/verdictstore.Store keeps it in a ConfigMap).
type VerdictStore interface {
	Load(ctx context.Context) (*verdict.Verdict, error)
	Save(ctx context.Context, v *verdict.Verdict) error
}

// Verdict keeps an apply run's phase, step and result in the cluster's verdict,
// from the engine's events: a consumer of the stream beside the plain or JSON
// printer, never a part of the engine. It writes in the background, the latest
// state only, so a slow API server never holds the engine up; the last event
// (done) is written before Print returns.
type Verdict struct {
	ctx   context.Context
	store VerdictStore

	mu      sync.Mutex
	v       *verdict.Verdict
	state   verdict.ApplyState
	dirty   bool
	lastErr error
	wake    chan struct{}
	stopped chan struct{}
	closed  bool
}

// verdictWriteTimeout bounds one write of the verdict, so that the last one
// cannot hold the end of a run.
const verdictWriteTimeout = 30 * time.Second

// NewVerdict loads the verdict from store (a missing one starts a new
// verdict) and starts the background writer. Writes go on after ctx is
// cancelled (an aborted run is reported too), each bounded by
// verdictWriteTimeout.
func NewVerdict(ctx context.Context, store VerdictStore) (*Verdict, error) {
	v, err := loadVerdict(ctx, store)
	if err != nil {
		return nil, err
	}
	p := &Verdict{ctx: context.WithoutCancel(ctx), store: store, v: v, wake: make(chan struct{}, 1), stopped: make(chan struct{})}
	if v.Apply != nil {
		p.state = *v.Apply
	}
	go p.writer()
	return p, nil
}

// loadVerdict loads the verdict; a missing one starts a new verdict.
func loadVerdict(ctx context.Context, store VerdictStore) (*verdict.Verdict, error) {
	v, err := store.Load(ctx)
	if apierrors.IsNotFound(err) {
		return &verdict.Verdict{FormatVersion: verdict.FormatVersion, Remedy: verdict.Remedy{Answer: verdict.AnswerPlan,
			Reason: "applied without a verdict from recover inspect --verdict"}}, nil
	}
	return v, err
}

// NoPlan keeps in the verdict that an apply run found no plan to apply (the
// plan's ConfigMap says why, message): done, result verdict.ResultNoPlan. The
// run changed nothing, so the verdict settles nothing it did not settle
// before (a cluster nothing held is settled already).
func NoPlan(ctx context.Context, store VerdictStore, message string, now time.Time) error {
	v, err := loadVerdict(ctx, store)
	if err != nil {
		return err
	}
	v.SetApply(verdict.ApplyState{Phase: verdict.PhaseDone, Result: verdict.ResultNoPlan, Message: message, UpdatedAt: now.UTC()})
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), verdictWriteTimeout)
	defer cancel()
	if err := store.Save(ctx, v); err != nil {
		return fmt.Errorf("keeping the apply run in the verdict: %w", err)
	}
	return nil
}

// Print folds one event into the apply state.
func (p *Verdict) Print(ev apply.Event) error {
	p.mu.Lock()
	s := &p.state
	changed := true
	switch ev.Type {
	case apply.EventRunStarted:
		*s = verdict.ApplyState{Phase: verdict.PhasePreflight}
		if ev.Run != nil {
			s.StepsTotal, s.PlanDigest = ev.Run.Steps, ev.Run.PlanDigest
		}
	case apply.EventLock:
		s.Phase = verdict.PhaseRunning
	case apply.EventStepStarted:
		if ev.Step != nil {
			s.Phase, s.Step, s.StepIndex, s.StepsTotal = verdict.PhaseRunning, ev.Step.ID, ev.Step.Index, ev.Step.Total
		}
	case apply.EventReverting:
		s.Phase = verdict.PhaseReverting
	case apply.EventDone:
		s.Phase = verdict.PhaseDone
		if r := ev.Result; r != nil {
			s.Result, s.Message, s.CVODisabled = string(r.Outcome), r.Message, r.CVODisabled
			if r.StoppedAt != "" {
				s.Step = r.StoppedAt
			}
			if r.CVODisabled {
				s.HandBack, s.CVOReplicas = nextcmd.RestoreCVO(r.CVOReplicas), nextcmd.RestoreReplicas(r.CVOReplicas)
			}
			if len(r.Next) > 0 {
				s.Next = r.Next[0]
			}
		}
	default:
		changed = false
	}
	if changed {
		s.UpdatedAt = ev.Time.UTC()
		if s.UpdatedAt.IsZero() {
			s.UpdatedAt = time.Now().UTC()
		}
		p.dirty = true
	}
	done := ev.Type == apply.EventDone
	if changed && !done && !p.closed {
		select {
		case p.wake <- struct{}{}:
		default: // a write is pending; it takes the latest state
		}
	}
	p.mu.Unlock()
	if done {
		return p.Close()
	}
	return nil
}

// writer saves the latest state whenever Print has changed it.
func (p *Verdict) writer() {
	defer close(p.stopped)
	for range p.wake {
		p.flush()
	}
}

// flush saves the state if it changed since the last save.
func (p *Verdict) flush() {
	p.mu.Lock()
	if !p.dirty {
		p.mu.Unlock()
		return
	}
	p.dirty = false
	p.v.SetApply(p.state)
	v := *p.v
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(p.ctx, verdictWriteTimeout)
	defer cancel()
	if err := p.store.Save(ctx, &v); err != nil {
		p.mu.Lock()
		p.lastErr = err
		p.dirty = true // the next flush tries again
		p.mu.Unlock()
	}
}

// Close stops the background writer and writes the last state; it returns
// the error of the last write that failed, if the state could not be saved.
func (p *Verdict) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.wake)
	p.mu.Unlock()
	<-p.stopped
	p.flush()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dirty && p.lastErr != nil {
		return fmt.Errorf("keeping the apply run in the verdict: %w", p.lastErr)
	}
	return nil
}

// Verdict returns a copy of the verdict as last folded.
func (p *Verdict) Verdict() verdict.Verdict {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := *p.v
	a := p.state
	v.SetApply(a)
	return v
}
