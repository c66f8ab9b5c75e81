package sim

import (
	"context"
	"fmt"
	"sync"
	"time"

	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/openshift-recover/recover/internal/openshift"
)

// controllers are the simulator's fake controllers and the informers they share.
type controllers struct {
	s       *Sim
	kube    informers.SharedInformerFactory
	mcfg    mcfginformers.SharedInformerFactory
	dyn     dynamicinformer.DynamicSharedInformerFactory
	kubelet *kubelet
	ops     *operators
	pools   *pools
	cvo     *cvo
	joiner  *joiner
	cco     *keyQueue // the cloud-credential operator's (one key)
}

// newControllers builds the controllers, starts the informers and waits for their
// caches.
func (s *Sim) newControllers(ctx context.Context) (*controllers, error) {
	c := &controllers{
		s:    s,
		kube: informers.NewSharedInformerFactory(s.kube, 0),
		mcfg: mcfginformers.NewSharedInformerFactory(s.mcfg, 0),
		dyn:  dynamicinformer.NewDynamicSharedInformerFactory(s.dyn, 0),
	}
	podInf := c.kube.Core().V1().Pods()
	nodeInf := c.kube.Core().V1().Nodes()
	depInf := c.kube.Apps().V1().Deployments()
	poolInf := c.mcfg.Machineconfiguration().V1().MachineConfigPools()

	c.kubelet = &kubelet{s: s, pods: podInf.Lister(), nodes: nodeInf.Lister(), queue: newKeyQueue()}
	c.ops = newOperators(s)
	c.ops.ctx = ctx
	c.ops.deployments, c.ops.nodes, c.ops.pods, c.ops.pools = depInf.Lister(), nodeInf.Lister(), podInf.Lister(), poolInf.Lister()
	c.pools = &pools{s: s, op: c.ops, wakes: map[string]chan struct{}{}, daemons: map[string]bool{}}
	c.cvo = newCVO(s)
	c.cvo.deployments = depInf.Lister()
	csrInf := c.kube.Certificates().V1().CertificateSigningRequests()
	c.joiner = &joiner{s: s, pools: c.pools, csrs: csrInf.Lister(), queue: newKeyQueue(), ready: map[string]bool{}, steps: map[string]bool{}}
	if _, err := csrInf.Informer().AddEventHandler(c.joiner.handler()); err != nil {
		return nil, err
	}

	if _, err := podInf.Informer().AddEventHandler(c.kubelet.handler()); err != nil {
		return nil, err
	}
	if _, err := depInf.Informer().AddEventHandler(c.ops.deploymentHandler()); err != nil {
		return nil, err
	}
	if _, err := depInf.Informer().AddEventHandler(c.cvo.deploymentHandler()); err != nil {
		return nil, err
	}
	if _, err := poolInf.Informer().AddEventHandler(c.pools.handler()); err != nil {
		return nil, err
	}
	// The machine-config operator re-checks the pools whenever one changes.
	wakeMCO := func(any) {
		if op := c.ops.byClusterOperator(machineConfigOperator); op != nil {
			op.poke()
		}
	}
	if _, err := poolInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    wakeMCO,
		UpdateFunc: func(_, obj any) { wakeMCO(obj) },
	}); err != nil {
		return nil, err
	}
	if _, err := nodeInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.pools.notify(obj) },
		UpdateFunc: func(_, obj any) { c.pools.notify(obj) },
	}); err != nil {
		return nil, err
	}
	// The cloud-credential operator re-checks Upgradeable when its
	// CloudCredential changes (its upgradeable-to annotation).
	c.cco = newKeyQueue()
	ccoEnqueue := func(any) { c.cco.add(openshift.SingletonName) }
	if _, err := c.dyn.ForResource(cloudCredentialGVR).Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    ccoEnqueue,
		UpdateFunc: func(_, obj any) { ccoEnqueue(obj) },
	}); err != nil {
		return nil, err
	}
	// A new forceRedeploymentReason wakes the static-pod operators.
	for _, sp := range c.staticPodResources() {
		inf := c.dyn.ForResource(staticPodGVR(sp)).Informer()
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(_, _ any) { c.ops.wakeAll() },
		}); err != nil {
			return nil, err
		}
	}
	c.kube.Start(ctx.Done())
	c.mcfg.Start(ctx.Done())
	c.dyn.Start(ctx.Done())
	for typ, ok := range c.kube.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("informer cache for %v never synced", typ)
		}
	}
	for typ, ok := range c.mcfg.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("informer cache for %v never synced", typ)
		}
	}
	for gvr, ok := range c.dyn.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("informer cache for %v never synced", gvr)
		}
	}
	// Pools seen before the context was set start their goroutines now.
	c.pools.mu.Lock()
	c.pools.ctx = ctx
	c.pools.mu.Unlock()
	pools, err := poolInf.Lister().List(labels.Everything())
	if err != nil {
		return nil, err
	}
	for _, p := range pools {
		c.pools.notify(p)
	}
	return c, nil
}

// staticPodResources are the operator resources of the static-pod operators.
func (c *controllers) staticPodResources() []string {
	seen := map[string]bool{}
	var out []string
	add := func(r string) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, name := range sortedKeys(staticPodOperands) {
		add(staticPodOperands[name].Resource)
	}
	for _, spec := range c.s.scn.Operators {
		if spec.StaticPods != nil {
			add(spec.StaticPods.Resource)
		}
	}
	return out
}

// run runs the controllers until ctx ends.
func (c *controllers) run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(5)
	c.joiner.start()
	go func() { defer wg.Done(); c.joiner.queue.run(ctx, 1, c.joiner.sync) }()
	go func() { defer wg.Done(); c.kubelet.queue.run(ctx, 4, c.kubelet.sync) }()
	go func() { defer wg.Done(); c.ops.queue.run(ctx, 2, c.ops.syncDeployment) }()
	go func() { defer wg.Done(); c.cvo.run(ctx) }()
	go func() { defer wg.Done(); c.cco.run(ctx, 1, c.s.syncCloudCredential) }()
	<-ctx.Done()
	wg.Wait()
	c.ops.wg.Wait()
	c.pools.wg.Wait()
	c.joiner.wg.Wait()
	c.kube.Shutdown()
	c.mcfg.Shutdown()
	c.dyn.Shutdown()
}

// keyQueue is a rate-limited work queue of object keys.
type keyQueue struct {
	q workqueue.TypedRateLimitingInterface[string]
}

func newKeyQueue() *keyQueue {
	return &keyQueue{q: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](10*time.Millisecond, time.Second))}
}

func (k *keyQueue) add(key string) { k.q.Add(key) }

// run processes keys with workers goroutines until ctx ends; failed keys are
// retried with backoff.
func (k *keyQueue) run(ctx context.Context, workers int, syncKey func(context.Context, string) error) {
	go func() {
		<-ctx.Done()
		k.q.ShutDown()
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				key, quit := k.q.Get()
				if quit {
					return
				}
				if err := syncKey(ctx, key); err != nil && ctx.Err() == nil {
					k.q.AddRateLimited(key)
				} else {
					k.q.Forget(key)
				}
				k.q.Done(key)
			}
		}()
	}
	wg.Wait()
}
