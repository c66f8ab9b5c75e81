package kubetest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// FakeNodeAnnotation marks the nodes kwok manages. Nodes without it are left alone, so
// tests can write node status (kubelet versions, conditions) themselves.
const FakeNodeAnnotation = "kwok.x-k8s.io/node"

// WorkloadControllers are the kube-controller-manager controllers an environment
// with Workloads runs (the binary's --help lists the names): the workload
// controllers, the disruption controller (PodDisruptionBudget status, which the
// Eviction API enforces) and the CSR signing controller (approved requests are
// issued with the cluster signing CA). The CSR approving controller is left out,
// as OpenShift leaves approval to its machine approver: a request stays pending
// until someone approves it.
var WorkloadControllers = []string{
	"deployment-controller", "replicaset-controller", "serviceaccount-controller", "serviceaccount-token-controller",
	"garbage-collector-controller", "namespace-controller", "daemonset-controller", "job-controller",
	"disruption-controller", "certificatesigningrequest-signing-controller",
}

// startWorkloadControllers starts kube-controller-manager, kube-scheduler and kwok
// against this environment's API server.
func (e *Env) startWorkloadControllers() error {
	suffix := strings.TrimPrefix(filepath.Base(e.Kubeconfig), "kubeconfig")
	kcm, err := startProcess(e.Dir, "kube-controller-manager"+suffix, e.bins.Path("kube-controller-manager"), []string{
		"--kubeconfig", e.Kubeconfig,
		"--controllers", strings.Join(WorkloadControllers, ","),
		"--service-account-private-key-file", filepath.Join(e.Dir, "sa.key"),
		"--cluster-signing-cert-file", filepath.Join(e.Dir, SigningCertFile),
		"--cluster-signing-key-file", filepath.Join(e.Dir, SigningKeyFile),
		"--leader-elect=false",
		"--secure-port=0",
		"--concurrent-deployment-syncs", "10",
		"--v", "1",
	}, nil)
	if err != nil {
		return err
	}
	e.addWorkload(kcm)
	sched, err := startProcess(e.Dir, "kube-scheduler"+suffix, e.bins.Path("kube-scheduler"), []string{
		"--kubeconfig", e.Kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--v", "1",
	}, nil)
	if err != nil {
		return err
	}
	e.addWorkload(sched)
	stages, err := e.bins.KwokStages()
	if err != nil || len(stages) == 0 {
		return fmt.Errorf("kwok stage files not found in %s; rebuild with '%s'", e.bins.Dir, BuildCommand)
	}
	args := []string{
		"--kubeconfig", e.Kubeconfig,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector", FakeNodeAnnotation + "=fake",
		"--cidr", "10.244.0.0/16",
		"--node-ip", "127.0.0.1",
	}
	for _, s := range stages {
		args = append(args, "--config", s)
	}
	kwokHome := filepath.Join(e.Dir, "kwok-home"+suffix)
	kwok, err := startProcess(e.Dir, "kwok"+suffix, e.bins.Path("kwok"), args, []string{"HOME=" + kwokHome})
	if err != nil {
		return err
	}
	e.addWorkload(kwok)
	return nil
}

// addWorkload records p, one of the workload controllers, among the
// environment's processes.
func (e *Env) addWorkload(p *process) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.procs = append(e.procs, p)
	e.workloads = append(e.workloads, p)
}

// stopWorkloadControllers stops kube-controller-manager, kube-scheduler and
// kwok, so that ForTest's next test meets controllers that start afresh, with
// no cache, queue or expectation of the last test's objects: only the API
// server and what it stores are reused.
func (e *Env) stopWorkloadControllers() {
	e.mu.Lock()
	stop := e.workloads
	e.workloads = nil
	keep := e.procs[:0:0]
	for _, p := range e.procs {
		if !slices.Contains(stop, p) {
			keep = append(keep, p)
		}
	}
	e.procs = keep
	e.mu.Unlock()
	for _, p := range stop {
		p.stop(2 * time.Second)
	}
}

// NewFakeNode creates a node that kwok manages (it becomes Ready and runs the pods
// scheduled to it) and waits until it is Ready. The environment must run Workloads.
func (e *Env) NewFakeNode(ctx context.Context, name string, labels map[string]string) (*corev1.Node, error) {
	if !e.opts.Workloads {
		return nil, fmt.Errorf("kubetest: NewFakeNode needs an environment started with Options{Workloads: true}")
	}
	client, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		return nil, err
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      labels,
			Annotations: map[string]string{FakeNodeAnnotation: "fake"},
		},
		Spec: corev1.NodeSpec{},
	}
	if _, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating fake node %s: %w", name, err)
	}
	var ready *corev1.Node
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		n, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				ready = n
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return nil, fmt.Errorf("fake node %s never became Ready (is kwok running? see %s): %w", name, e.Dir, err)
	}
	return ready, nil
}
