package sim

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	machinev1beta1 "github.com/openshift/api/machine/v1beta1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	certlisters "k8s.io/client-go/listers/certificates/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift-recover/recover/internal/openshift"
)

// machineGVR is the Machine API's machines resource.
var machineGVR = schema.GroupVersionResource{Group: "machine.openshift.io", Version: "v1beta1", Resource: "machines"}

// machineRoleLabel names a Machine's role (worker, master, infra).
const machineRoleLabel = "machine.openshift.io/cluster-api-machine-role"

// The kubelet's NotReady reason and message while the network plugin is not up
// yet (a freshly registered OpenShift node), and its Ready ones.
const (
	kubeletNotReadyReason   = "KubeletNotReady"
	kubeletNotReadyNetwork  = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: No CNI configuration file in /etc/kubernetes/cni/net.d/. Has your network provider started?"
	kubeletReadyReason      = "KubeletReady"
	kubeletReadyMessage     = "kubelet is posting ready status"
	joiningActorPrefix      = "kubelet/"
	machinePhaseRunning     = "Running"
	machineNodeRefKind      = "Node"
	machineAPINamespacePath = openshift.MachineAPINamespace
)

// joiner is the kubelet of the scenario's joining nodes (Scenario.JoiningNodes):
// machines that booted but whose kubelet has no client certificate yet. Such a
// kubelet cannot register its Node: it holds a pending client CSR (from the
// must-gather, or one it creates as the node-bootstrapper service account) and
// waits. Once someone approves the CSR and the signing controller issues it, the
// kubelet registers the Node (NotReady while its network starts, Ready after
// Timing.Operator), the Machine gets its nodeRef, and, when asked, the kubelet
// requests its serving certificate, which stays pending until approved too. No
// machine approver runs: nothing is approved unless someone does it.
type joiner struct {
	s     *Sim
	pools *pools
	csrs  certlisters.CertificateSigningRequestLister
	queue *keyQueue

	mu    sync.Mutex
	ready map[string]bool // nodes whose Ready is scheduled
	steps map[string]bool // "node/step": the steps after registration done
	wg    sync.WaitGroup
}

func (j *joiner) handler() cache.ResourceEventHandler {
	enqueue := func(obj any) {
		csr, ok := obj.(*certificatesv1.CertificateSigningRequest)
		if !ok {
			return
		}
		for _, jn := range j.s.scn.JoiningNodes {
			if csrFor(csr, jn.Node, openshift.SignerKubeletClient) {
				j.queue.add(jn.Node)
			}
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }}
}

// start queues every joining node once.
func (j *joiner) start() {
	for _, jn := range j.s.scn.JoiningNodes {
		j.queue.add(jn.Node)
	}
}

func (j *joiner) spec(node string) (JoiningNode, bool) {
	for _, jn := range j.s.scn.JoiningNodes {
		if jn.Node == node {
			return jn, true
		}
	}
	return JoiningNode{}, false
}

// sync moves one joining node forward: request a client certificate, or register
// once it is issued.
func (j *joiner) sync(ctx context.Context, node string) error {
	jn, ok := j.spec(node)
	if !ok {
		return nil
	}
	actor := joiningActorPrefix + node
	if n, err := j.s.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err == nil {
		// Registered: finish what an earlier, failed sync left undone.
		return j.joined(ctx, jn, n)
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	all, err := j.csrs.List(labels.Everything())
	if err != nil {
		return err
	}
	var issued, pending []string
	for _, csr := range all {
		if !csrFor(csr, node, openshift.SignerKubeletClient) {
			continue
		}
		switch {
		case len(csr.Status.Certificate) > 0:
			issued = append(issued, csr.Name)
		case !csrDecided(csr):
			pending = append(pending, csr.Name)
		}
	}
	if len(issued) == 0 {
		if len(pending) > 0 {
			return nil // waiting for someone to approve it
		}
		csr, err := kubeletClientCSR(node)
		if err != nil {
			return err
		}
		created, err := j.s.createCSR(ctx, csr)
		if err != nil {
			return fmt.Errorf("requesting a client certificate: %w", err)
		}
		j.s.rec.record(actor, "CSRRequested", "CertificateSigningRequest "+created.Name, "the kubelet requests its client certificate (signer "+openshift.SignerKubeletClient+"); it cannot register the node until the CSR is approved and issued", nil)
		return nil
	}
	sort.Strings(issued)
	n, err := j.register(ctx, node)
	if err != nil {
		return err
	}
	j.s.rec.record(actor, "NodeRegistered", "Node "+node, fmt.Sprintf("client certificate %s issued; the node registered NotReady (%s)", issued[0], kubeletNotReadyReason), nil)
	return j.joined(ctx, jn, n)
}

// joined does what a kubelet and the machine controller do once the node is
// registered: the Machine's nodeRef, the serving CSR (when asked), Ready after a
// while. Each step is done once, so a sync that failed half way is finished by
// the retry rather than forgotten.
func (j *joiner) joined(ctx context.Context, jn JoiningNode, n *corev1.Node) error {
	node, actor := n.Name, joiningActorPrefix+n.Name
	if len(n.Status.Addresses) == 0 {
		// Created, but its status was never written.
		want, _, err := j.nodeObject(ctx, node)
		if err != nil {
			return err
		}
		n.Status = want.Status
		defaultCapacity(&n.Status)
		if n, err = j.s.kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("writing node %s status: %w", node, err)
		}
	}
	if !j.done(node, "linked") {
		machine, err := j.machineFor(ctx, node)
		if err != nil {
			return err
		}
		if machine != nil {
			if err := j.linkMachine(ctx, machine.Name, n); err != nil {
				return err
			}
			j.s.rec.record(actor, "MachineLinked", "Machine "+openshift.MachineAPINamespace+"/"+machine.Name, "nodeRef "+node+", phase "+machinePhaseRunning, nil)
		}
		j.mark(node, "linked")
	}
	if jn.ServingCSR && !j.done(node, "serving") {
		var dns []string
		var ips []net.IP
		for _, a := range n.Status.Addresses {
			switch a.Type {
			case corev1.NodeInternalDNS, corev1.NodeHostName, corev1.NodeExternalDNS:
				if !slices.Contains(dns, a.Address) {
					dns = append(dns, a.Address)
				}
			case corev1.NodeInternalIP, corev1.NodeExternalIP:
				if ip := net.ParseIP(a.Address); ip != nil {
					ips = append(ips, ip)
				}
			}
		}
		csr, err := kubeletServingCSR(node, dns, ips)
		if err != nil {
			return err
		}
		created, err := j.s.createCSR(ctx, csr)
		if err != nil {
			return fmt.Errorf("requesting a serving certificate: %w", err)
		}
		j.mark(node, "serving")
		j.s.rec.record(actor, "CSRRequested", "CertificateSigningRequest "+created.Name, "the kubelet requests its serving certificate (signer "+openshift.SignerKubeletServing+")", nil)
	}
	j.becomeReady(ctx, node)
	return nil
}

// done reports whether step was done for node; mark records it.
func (j *joiner) done(node, step string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.steps[node+"/"+step]
}

func (j *joiner) mark(node, step string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.steps[node+"/"+step] = true
}

// register creates the Node as a kubelet registers it: the Machine's addresses and
// role, the pool's current config (what the machine-config server served it), the
// kubelet of that config's release, Ready=False while the network starts. It
// returns the node.
func (j *joiner) register(ctx context.Context, node string) (*corev1.Node, error) {
	n, _, err := j.nodeObject(ctx, node)
	if err != nil {
		return nil, err
	}
	status := n.Status
	created, err := j.s.kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("registering node %s: %w", node, err)
	}
	created.Status = status
	defaultCapacity(&created.Status)
	if created, err = j.s.kube.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("writing node %s status: %w", node, err)
	}
	return created, nil
}

// nodeObject is the Node a kubelet registers, and the name of the Machine it
// found ("" for none).
func (j *joiner) nodeObject(ctx context.Context, node string) (*corev1.Node, string, error) {
	machine, err := j.machineFor(ctx, node)
	if err != nil {
		return nil, "", err
	}
	role := "worker"
	var addrs []corev1.NodeAddress
	name := ""
	if machine != nil {
		name = machine.Name
		if r := machine.Labels[machineRoleLabel]; r != "" {
			role = r
		}
		for _, a := range machine.Status.Addresses {
			addrs = append(addrs, corev1.NodeAddress{Type: a.Type, Address: a.Address})
		}
	}
	if len(addrs) == 0 {
		v := fnvHash(node)
		addrs = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.%d.%d", 128+(v>>8)%64, 1+v%254)}, {Type: corev1.NodeHostName, Address: node}}
	}
	lbls := map[string]string{
		"kubernetes.io/hostname":          node,
		"kubernetes.io/os":                "linux",
		"kubernetes.io/arch":              "amd64",
		"node-role.kubernetes.io/" + role: "",
	}
	config, kubelet := j.poolConfig(ctx, lbls)
	now := metav1.Now()
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: node, Labels: lbls, Annotations: map[string]string{}},
		Status: corev1.NodeStatus{
			Addresses: addrs,
			NodeInfo:  corev1.NodeSystemInfo{KubeletVersion: kubelet, KubeProxyVersion: kubelet, OperatingSystem: "linux", Architecture: "amd64", ContainerRuntimeVersion: "cri-o://1.17.4"},
			Conditions: []corev1.NodeCondition{
				{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available", LastHeartbeatTime: now, LastTransitionTime: now},
				{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure", LastHeartbeatTime: now, LastTransitionTime: now},
				{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available", LastHeartbeatTime: now, LastTransitionTime: now},
				{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: kubeletNotReadyReason, Message: kubeletNotReadyNetwork, LastHeartbeatTime: now, LastTransitionTime: now},
			},
		},
	}
	if config != "" {
		n.Annotations[currentConfigAnnotation] = config
		n.Annotations[desiredConfigAnnotation] = config
		n.Annotations[stateAnnotation] = stateDone
	}
	if role == "master" {
		n.Spec.Taints = []corev1.Taint{{Key: openshift.LabelNodeRoleMaster, Effect: corev1.TaintEffectNoSchedule}}
	}
	return n, name, nil
}

// poolConfig returns the current config of the pool whose node selector matches
// lbls and the kubelet version of its release (that of the pool's other nodes when
// the config's release is unknown).
func (j *joiner) poolConfig(ctx context.Context, lbls map[string]string) (config, kubelet string) {
	pools, err := j.s.mcfg.MachineconfigurationV1().MachineConfigPools().List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", ""
	}
	for _, p := range pools.Items {
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.NodeSelector)
		if err != nil || p.Spec.NodeSelector == nil || !sel.Matches(labels.Set(lbls)) {
			continue
		}
		config = p.Status.Configuration.Name
		if config == "" {
			config = p.Spec.Configuration.Name
		}
		kubelet = j.pools.kubeletOf(ctx, config)
		if kubelet == "" {
			if nodes, err := j.s.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sel.String()}); err == nil && len(nodes.Items) > 0 {
				kubelet = nodes.Items[0].Status.NodeInfo.KubeletVersion
			}
		}
		return config, kubelet
	}
	return "", ""
}

// machineFor returns the Machine whose InternalDNS address is node, if any.
func (j *joiner) machineFor(ctx context.Context, node string) (*machinev1beta1.Machine, error) {
	list, err := j.s.dyn.Resource(machineGVR).Namespace(machineAPINamespacePath).List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil // no Machine API
	}
	if err != nil {
		return nil, err
	}
	for _, u := range list.Items {
		m := &machinev1beta1.Machine{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, m); err != nil {
			continue
		}
		for _, a := range m.Status.Addresses {
			if a.Type == corev1.NodeInternalDNS && strings.EqualFold(strings.TrimSuffix(a.Address, "."), node) {
				return m, nil
			}
		}
	}
	return nil, nil
}

// linkMachine is the machine controller's nodelink: the Machine's nodeRef and
// phase Running.
func (j *joiner) linkMachine(ctx context.Context, machine string, n *corev1.Node) error {
	client := j.s.dyn.Resource(machineGVR).Namespace(machineAPINamespacePath)
	return retryConflict(ctx, func() error {
		u, err := client.Get(ctx, machine, metav1.GetOptions{})
		if err != nil {
			return err
		}
		status, _ := u.Object["status"].(map[string]any)
		if status == nil {
			status = map[string]any{}
		}
		status["nodeRef"] = map[string]any{"kind": machineNodeRefKind, "name": n.Name, "uid": string(n.UID)}
		status["phase"] = machinePhaseRunning
		u.Object["status"] = status
		_, err = client.UpdateStatus(ctx, u, metav1.UpdateOptions{})
		return err
	})
}

// becomeReady turns the node Ready after Timing.Operator (the network plugin's
// pods start on it).
func (j *joiner) becomeReady(ctx context.Context, node string) {
	j.mu.Lock()
	if j.ready[node] {
		j.mu.Unlock()
		return
	}
	j.ready[node] = true
	j.mu.Unlock()
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		if !j.s.delay(ctx, func(t Timing) time.Duration { return t.Operator.Duration }, nil) {
			return
		}
		nodes := j.s.kube.CoreV1().Nodes()
		err := retryConflict(ctx, func() error {
			n, err := nodes.Get(ctx, node, metav1.GetOptions{})
			if err != nil {
				return err
			}
			now := metav1.Now()
			for i := range n.Status.Conditions {
				c := &n.Status.Conditions[i]
				if c.Type == corev1.NodeReady {
					c.Status, c.Reason, c.Message = corev1.ConditionTrue, kubeletReadyReason, kubeletReadyMessage
					c.LastHeartbeatTime, c.LastTransitionTime = now, now
				}
			}
			_, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			j.s.rec.record(joiningActorPrefix+node, "Error", "Node "+node, err.Error(), nil)
			return
		}
		j.s.rec.record(joiningActorPrefix+node, "NodeReady", "Node "+node, kubeletReadyMessage, nil)
	}()
}

// smallNode is the capacity of a small OpenShift node (what the loader gives
// nodes without capacity).
var smallNode = corev1.ResourceList{
	corev1.ResourceCPU:              resource.MustParse("8"),
	corev1.ResourceMemory:           resource.MustParse("32Gi"),
	corev1.ResourcePods:             resource.MustParse("250"),
	corev1.ResourceEphemeralStorage: resource.MustParse("120Gi"),
}

// defaultCapacity gives a registering node the capacity of a small node.
func defaultCapacity(st *corev1.NodeStatus) {
	st.Capacity, st.Allocatable = smallNode.DeepCopy(), smallNode.DeepCopy()
}
