package apply

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/user"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/apply/gate"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Engine runs plans against one cluster. It is safe to start several runs; the
// apply lock lets only one of them change a cluster at a time.
type Engine struct {
	kube   kubernetes.Interface
	dyn    dynamic.Interface
	mapper *resource.Mapper
	gates  *gate.Checker
	server string
}

// New returns an engine for the cluster cfg points at.
func New(cfg *rest.Config) (*Engine, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the Kubernetes client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the dynamic client: %w", err)
	}
	mapper := resource.NewMapper(kube.Discovery())
	return &Engine{kube: kube, dyn: dyn, mapper: mapper, gates: gate.NewChecker(dyn, mapper), server: cfg.Host}, nil
}

// Run executes the plan and returns its events. The channel is closed after the
// last event, EventDone, whose Result says how the run ended. The caller must
// drain the channel; the engine waits for it.
func (e *Engine) Run(ctx context.Context, p *planfile.Plan, opts Options) <-chan Event {
	ch := make(chan Event, 16)
	go func() {
		defer close(ch)
		r := newRun(e, p, opts, ch)
		res := r.execute(ctx)
		r.emit(Event{Type: EventDone, Message: res.Message, Result: res, Error: res.Error})
	}()
	return ch
}

// Execute runs the plan, hands every event to handle (if not nil), and returns
// the result, with the run's error (an *Error) when it did not complete.
func (e *Engine) Execute(ctx context.Context, p *planfile.Plan, opts Options, handle func(Event)) (*Result, error) {
	var res *Result
	for ev := range e.Run(ctx, p, opts) {
		if handle != nil {
			handle(ev)
		}
		if ev.Type == EventDone {
			res = ev.Result
		}
	}
	if res == nil {
		return nil, fmt.Errorf("the engine ended without a result")
	}
	return res, res.Err
}

func newRunID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// DefaultHolder is the lock holder identity: user@host pid N.
func DefaultHolder() string {
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s@%s pid %d", name, host, os.Getpid())
}

// timeoutFor picks a gate's timeout: the options' per-kind override (the
// admin's: hard, it ends a wait even where the CVO would still wait), else the
// plan's, else the kind's default. explicit is false for the default, which
// the gate may scale (machine-config's, to its pools).
func timeoutFor(g *planfile.Gate, overrides map[planfile.GateKind]time.Duration) (d time.Duration, explicit, hard bool) {
	if d, ok := overrides[g.Kind]; ok && d > 0 {
		return d, true, true
	}
	if g.Timeout != "" {
		if d, err := time.ParseDuration(g.Timeout); err == nil && d > 0 {
			return d, true, false
		}
	}
	return gate.DefaultTimeouts[g.Kind], false, false
}
