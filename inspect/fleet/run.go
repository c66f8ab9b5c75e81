package fleet

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/insights"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/inspect/mustgather"
)

// Options tune a run.
type Options struct {
	// Concurrency is how many targets are inspected at once (default
	// GOMAXPROCS): the bound on live snapshots, and so on memory.
	Concurrency int
	// Timeout bounds one target's collection and judgement (0: none), so that
	// one unreachable cluster does not hold the run.
	Timeout time.Duration
	// Kubeconfig is the kubeconfig file of live targets ("": client-go's
	// loading rules, $KUBECONFIG or ~/.kube/config).
	Kubeconfig string
	// Progress, when set, is called after each target with how many are done,
	// from one goroutine at a time.
	Progress func(done, total int)
	// Open builds a target's source (default: OpenSource).
	Open func(Target, Options) (inspect.Source, error)
}

// Result is one target's outcome: what the judge returned, or why not.
type Result[T any] struct {
	Target Target
	Value  T
	Err    error
}

// Run inspects every target, at most Concurrency at a time, and judges each
// snapshot as soon as it is collected; the snapshot is dropped after judge
// returns. Results come back in the targets' order. A target that fails has
// Err set and does not stop the others; cancelling ctx stops the run and
// marks the targets not yet done with ctx's error.
func Run[T any](ctx context.Context, targets []Target, o Options, judge func(context.Context, Target, *inspect.Snapshot) (T, error)) []Result[T] {
	n := o.Concurrency
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	if n > len(targets) {
		n = len(targets)
	}
	open := o.Open
	if open == nil {
		open = OpenSource
	}
	out := make([]Result[T], len(targets))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = runOne(ctx, targets[i], o, open, judge)
				if o.Progress != nil {
					mu.Lock()
					done++
					o.Progress(done, len(targets))
					mu.Unlock()
				}
			}
		}()
	}
	i := 0
feed:
	for ; i < len(targets) && ctx.Err() == nil; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	for ; i < len(targets); i++ {
		out[i] = Result[T]{Target: targets[i], Err: ctx.Err()}
	}
	return out
}

func runOne[T any](ctx context.Context, t Target, o Options, open func(Target, Options) (inspect.Source, error), judge func(context.Context, Target, *inspect.Snapshot) (T, error)) Result[T] {
	r := Result[T]{Target: t}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	src, err := open(t, o)
	if err != nil {
		r.Err = err
		return r
	}
	snap, err := src.Collect(ctx)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && o.Timeout > 0 {
			err = fmt.Errorf("not inspected within %s: %w", o.Timeout, err)
		}
		r.Err = err
		return r
	}
	r.Value, r.Err = judge(ctx, t, snap)
	return r
}

// OpenSource is the source of a target: a must-gather, an Insights archive,
// or the live cluster of a kubeconfig context.
func OpenSource(t Target, o Options) (inspect.Source, error) {
	switch t.Kind {
	case inspect.SourceMustGather:
		return mustgather.New(t.Path), nil
	case inspect.SourceInsights:
		return insights.New(t.Path), nil
	case inspect.SourceLive:
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		if o.Kubeconfig != "" {
			rules.ExplicitPath = o.Kubeconfig
		}
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: t.Context}).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("context %s: %w", t.Context, err)
		}
		return live.New(cfg, live.Options{})
	}
	return nil, fmt.Errorf("target %s: unknown source kind %q", t.Name, t.Kind)
}
