package apply_test

import (
	"context"
	"flag"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// Lanes: apply's integration tests run side by side, each on a fixture cluster
// of its own.
//
// A test of the engine changes the fixture's singletons (the ClusterVersion,
// the CVO's Deployment, the master pool, the apply lease), so two tests can
// never share a cluster while they run. They used to share one, one after
// another, and the package's wall time (17 to 20 minutes) was mostly waiting:
// for a killed run's lease to expire, for a gate, for a Deployment to roll
// out; the package's processes used half a core on average. Now setup takes a
// lane from a small pool: a fixture cluster (applytest.Setup and its fake
// controllers, applytest.RunFakes) on a kube-apiserver of its own
// (rootEnv.Fresh: another kube-apiserver on the package's etcd under its own
// prefix, with the CRDs and the workload controllers), started the first time
// a test needs it, reset when a test takes it, held until that test ends
// (t.Cleanup). The cases of a matrix each take a lane too, so that a matrix
// runs side by side with itself.
//
// A test talks to its lane only: setup returns the lane (its
// applytest.Cluster and its *kubetest.Env), and the helpers that reach the API
// server take it (run, mustEngine, auditProxy, crashRun; startRecover has no
// default --kubeconfig). The package's own control plane, rootEnv, serves
// TestMain, the pool, and ownServer: the simulator's and the real payload's
// tests start a kube-apiserver of their own, and a pool of slots of their own
// bounds them.

// laneCount is the number of fixture clusters. Each is a kube-apiserver,
// kube-controller-manager, kube-scheduler and kwok, and the tests on it mostly
// wait: one lane kept the package's processes at about half a core. Three
// lanes make about one and a half, on a 2-core machine where make test runs
// other packages beside apply (go test -p 4); more would only make every test
// slower. The longest matrix (TestInClusterCrashMatrix, 14 cases of 15-25 s)
// then takes about a third of its serial time.
const laneCount = 3

// lane is one fixture cluster: its applytest.Cluster and the control plane it
// runs on. A test holds it from setup to the test's end.
type lane struct {
	*applytest.Cluster
	// env is the lane's own control plane: its Config, Kubeconfig,
	// UserConfig and Dir are the ones a test running on the lane uses.
	env *kubetest.Env
	n   int
}

// lanePool hands out lanes, starting one (up to laneCount) when none is idle.
type lanePool struct {
	mu      sync.Mutex
	wake    *sync.Cond
	idle    []*lane
	started int // lanes running or being started
}

var lanes = func() *lanePool {
	p := &lanePool{}
	p.wake = sync.NewCond(&p.mu)
	return p
}()

// acquire returns an idle lane, starts one if fewer than laneCount run, or
// waits until a test releases one. It fails t when a lane does not start (and
// leaves its place to the next test, which tries again).
func (p *lanePool) acquire(t testing.TB) *lane {
	t.Helper()
	p.mu.Lock()
	for {
		if n := len(p.idle); n > 0 {
			l := p.idle[n-1]
			p.idle = p.idle[:n-1]
			p.mu.Unlock()
			return l
		}
		if p.started < laneCount {
			p.started++
			n := p.started
			p.mu.Unlock()
			l, err := startLane(n)
			if err != nil {
				p.mu.Lock()
				p.started--
				p.wake.Signal()
				p.mu.Unlock()
				t.Fatalf("fixture cluster (lane %d): %v (logs in %s)", n, err, rootEnv.Dir)
			}
			return l
		}
		p.wake.Wait()
	}
}

// release gives l back to the pool for the next test.
func (p *lanePool) release(l *lane) {
	p.mu.Lock()
	p.idle = append(p.idle, l)
	p.wake.Signal()
	p.mu.Unlock()
}

// startLane starts a kube-apiserver of its own for lane n, builds the fixture
// cluster on it and runs its fake controllers until the package's tests end
// (the server stops with rootEnv).
func startLane(n int) (*lane, error) {
	env, err := rootEnv.Fresh()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := applytest.Setup(ctx, env)
	if err != nil {
		return nil, err
	}
	go c.RunFakes(context.Background())
	return &lane{Cluster: c, env: env, n: n}, nil
}

// setup makes t a parallel test and returns a lane, reset, with its fake
// controllers running, and a context bounding the test. t holds the lane
// until it ends. A test calls it once; a matrix calls it in each case, never
// in the parent (which would hold a lane idle while its cases wait for one).
func setup(t testing.TB) (*lane, context.Context) {
	t.Helper()
	kubetest.Require(t, rootEnv)
	if tt, ok := t.(*testing.T); ok {
		tt.Parallel()
	}
	l := lanes.acquire(t)
	t.Cleanup(func() { lanes.release(l) })
	t.Logf("on fixture lane %d (%s)", l.n, l.env.Config.Host)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	if err := l.Reset(ctx); err != nil {
		t.Fatalf("resetting the fixture cluster: %v", err)
	}
	return l, ctx
}

// ownServerSlots bounds the tests that start a kube-apiserver of their own
// (the simulator's and the real payload's, through ownServer) to as many at
// once as go test's default -parallel (GOMAXPROCS) ran them before the lanes:
// they are the package's heavy users of CPU, and they no longer take the
// places the lanes' tests need (see parallelForLanes).
var ownServerSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// ownServer waits for one of ownServerSlots and returns a kube-apiserver of
// tb's own (rootEnv.ForTest: a new one, or one another test used, wiped),
// taken back when tb ends.
func ownServer(tb testing.TB) *kubetest.Env {
	tb.Helper()
	ownServerSlots <- struct{}{}
	tb.Cleanup(func() { <-ownServerSlots })
	return rootEnv.ForTest(tb)
}

// maxParallel is the -parallel apply's tests run with unless the command line
// sets it: more than the package's parallel tests and cases (about 80), so
// that every one reaches its pool. What runs at once is bounded by the pools
// (laneCount lanes, ownServerSlots), not by -parallel: with go test's default
// (GOMAXPROCS, so 2 on a 2-core machine) a lane would stay idle, and the
// simulator's tests would take the places of the lanes' tests while they ran.
// A test waiting in a pool holds a place of -parallel, and nothing else.
const maxParallel = 256

// parallelForLanes sets -test.parallel to maxParallel unless the command line
// gives it.
func parallelForLanes() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		// It fails only for a flag that does not exist; testing defines it.
		_ = flag.Set("test.parallel", strconv.Itoa(maxParallel))
	}
}
