package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/apply/resource"
)

// Options tune a simulator beyond its scenario.
type Options struct {
	// Out, when set, receives every event as a log line (the lab sets os.Stdout).
	Out io.Writer
	// Timing, when set, replaces the scenario's timing (zero fields still default).
	Timing *Timing
	// Seed, when not 0, replaces the scenario's seed.
	Seed uint64
	// NoFaults drops the scenario's faults: tests inject their own.
	NoFaults bool
	// KubeletCA, when set, is the CA the API server trusts for kubelets: the
	// simulator signs its kubelet server's certificate with it and serves its
	// loopback nodes' pod logs (kubelet_logs.go).
	KubeletCA *KubeletCA
}

// Sim is a simulated OpenShift cluster: a scenario loaded into a real API server,
// and the fake controllers that react to what is applied to it.
type Sim struct {
	scn  *Scenario
	seed uint64

	timingMu      sync.Mutex
	timing        Timing
	timingChanged chan struct{}

	cfg    *rest.Config
	kube   kubernetes.Interface
	dyn    dynamic.Interface
	config configclient.Interface
	mcfg   mcfgclient.Interface
	crds   apiextensionsclient.Interface
	mapper *resource.Mapper

	rec    *recorder
	faults *faultSet
	// logs are the pods' logs the simulated kubelets serve, with kubeletCA.
	logs      *podLogs
	kubeletCA *KubeletCA
	own       *ownDegraded
	releases  *releaseSet

	mu      sync.Mutex
	started bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	ops     *operators
}

// New prepares a simulator for scenario scn against the API server of cfg. It
// starts nothing: call Load, then Start.
func New(cfg *rest.Config, scn *Scenario, opts Options) (*Sim, error) {
	if scn == nil {
		return nil, errors.New("sim: no scenario")
	}
	cfg = rest.CopyConfig(cfg)
	// The fixtures and payloads are written against newer and older APIs than the
	// server's; its warnings about unknown fields are noise here.
	cfg.WarningHandler = rest.NoWarnings{}
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 200, 400
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	config, err := configclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	mcfg, err := mcfgclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	crds, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	timing := scn.Timing
	if opts.Timing != nil {
		timing = *opts.Timing
	}
	seed := scn.Seed
	if opts.Seed != 0 {
		seed = opts.Seed
	}
	if seed == 0 {
		seed = 1
	}
	var faults []Fault
	if !opts.NoFaults {
		faults = scn.Faults
	}
	s := &Sim{
		scn:           scn,
		timing:        timing.withDefaults(),
		timingChanged: make(chan struct{}),
		seed:          seed,
		cfg:           cfg,
		kube:          kube,
		dyn:           dyn,
		config:        config,
		mcfg:          mcfg,
		crds:          crds,
		mapper:        resource.NewMapper(kube.Discovery()),
		rec:           newRecorder(opts.Out),
		faults:        newFaultSet(faults),
		own:           &ownDegraded{conds: map[string]conditionUpdate{}},
		releases:      newReleaseSet(scn),
		logs:          newPodLogs(),
		kubeletCA:     opts.KubeletCA,
	}
	return s, nil
}

func (s *Sim) restConfig() *rest.Config { return rest.CopyConfig(s.cfg) }

// timings returns the current timing.
func (s *Sim) timings() Timing {
	s.timingMu.Lock()
	defer s.timingMu.Unlock()
	return s.timing
}

// delay waits until the delay pick selects from the timing has passed since the
// call, re-reading the timing whenever SetTiming changes it; it reports false when
// ctx ends or stop is closed first.
func (s *Sim) delay(ctx context.Context, pick func(Timing) time.Duration, stop <-chan struct{}) bool {
	start := time.Now()
	for {
		s.timingMu.Lock()
		d, changed := pick(s.timing), s.timingChanged
		s.timingMu.Unlock()
		remaining := time.Until(start.Add(d))
		if remaining <= 0 {
			return true
		}
		timer := time.NewTimer(remaining)
		select {
		case <-ctx.Done():
			timer.Stop()
			return false
		case <-stop:
			timer.Stop()
			return false
		case <-changed:
			timer.Stop()
		case <-timer.C:
			return true
		}
	}
}

// SetTiming changes the fake controllers' delays, including the waits already
// under way (zero fields take the defaults). A test can, for example, hold the CVO in a long payload retrieval
// while it plans, and shorten it once the CVO is disabled.
func (s *Sim) SetTiming(t Timing) {
	s.timingMu.Lock()
	s.timing = t.withDefaults()
	close(s.timingChanged)
	s.timingChanged = make(chan struct{})
	s.timingMu.Unlock()
	s.rec.record("sim", "TimingChanged", "", fmt.Sprintf("%+v", t.withDefaults()), nil)
}

// Run loads the scenario in dir into the API server of cfg and starts the fake
// controllers: LoadScenario, New, Load and Start in one call. Stop the returned
// simulator when done.
func Run(ctx context.Context, cfg *rest.Config, dir string, opts Options) (*Sim, error) {
	scn, err := LoadScenario(dir)
	if err != nil {
		return nil, err
	}
	s, err := New(cfg, scn, opts)
	if err != nil {
		return nil, err
	}
	if err := s.Load(ctx); err != nil {
		return nil, err
	}
	if err := s.Start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Scenario returns the simulator's scenario.
func (s *Sim) Scenario() *Scenario { return s.scn }

// Start runs the fake controllers (kubelet, operators, machine-config operator,
// CVO) until ctx ends or Stop is called. It returns once their caches are synced,
// so that what a test does next is seen.
func (s *Sim) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return errors.New("sim: already started")
	}
	s.started = true
	ctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.mu.Unlock()

	for _, f := range s.faults.list() {
		s.rec.record("sim", "FaultInjected", "", f.String(), nil)
	}
	if err := s.startKubeletServer(ctx); err != nil {
		cancel()
		return fmt.Errorf("sim: serving the pods' logs: %w", err)
	}
	ctrl, err := s.newControllers(ctx)
	if err != nil {
		cancel()
		return fmt.Errorf("sim: starting the fake controllers: %w", err)
	}
	s.mu.Lock()
	s.ops = ctrl.ops
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctrl.run(ctx)
	}()
	return nil
}

// Stop stops the fake controllers and waits for them. The API server and what was
// loaded into it stay.
func (s *Sim) Stop() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.wg.Wait()
}

// Events returns what the fake controllers did so far, oldest first.
func (s *Sim) Events() []Event {
	events, _ := s.rec.snapshot()
	return events
}

// WaitForEvent waits for the first event (from the start) that match accepts.
func (s *Sim) WaitForEvent(ctx context.Context, match func(Event) bool) (Event, error) {
	return s.rec.waitFor(ctx, 0, match)
}

// WaitForEventAfter waits for the first event with Seq > seq that match accepts.
func (s *Sim) WaitForEventAfter(ctx context.Context, seq int, match func(Event) bool) (Event, error) {
	return s.rec.waitFor(ctx, seq, match)
}

// InjectFault activates f. The affected operator reacts at once (a degraded fault
// sets Degraded=True) or at its next rollout.
func (s *Sim) InjectFault(f Fault) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if f.needsStaticPodOperator() && !s.scn.isStaticPodOperator(f.ClusterOperator) {
		return fmt.Errorf("%s fault: %s is not a static-pod operator", f.Type, f.ClusterOperator)
	}
	s.faults.add(f)
	s.rec.record("sim", "FaultInjected", "", f.String(), nil)
	return nil
}

// ClearFault deactivates f (every fault of its type on its operator when f names no
// node, reason or message) and reports whether one was active. Stuck rollouts then
// finish and degraded operators recover.
func (s *Sim) ClearFault(f Fault) bool {
	if s.faults.remove(f) {
		s.rec.record("sim", "FaultCleared", "", f.String(), nil)
		return true
	}
	return false
}

// Faults returns the active faults.
func (s *Sim) Faults() []Fault { return s.faults.list() }
