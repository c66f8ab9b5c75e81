package live

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

var env *kubetest.Env

func TestMain(m *testing.M) { kubetest.Main(m, kubetest.Options{}, &env) }

const (
	example1 = "../../examples/reconciled-4.3-to-4.4/must-gather"
	example2 = "../../examples/false-success-revision/must-gather"
)

func collect(t testing.TB, cfg *rest.Config, opts Options) *inspect.Snapshot {
	t.Helper()
	src, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := src.Collect(context.Background())
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return s
}

// absentIn returns the NotCollected subjects of the resources an offline
// snapshot lacks.
func absentIn(s *inspect.Snapshot) map[string]bool {
	out := map[string]bool{}
	for _, r := range s.Resources {
		if r.State == inspect.Absent {
			out[inspect.CodeNotCollected+"@resource/"+r.Key()] = true
		}
	}
	// A source that predates the wedge facts says so in one line.
	out[inspect.CodeNotCollected+"@resources/wedge-facts"] = true
	return out
}

// findingsBut returns the findings of s except those in skip.
func findingsBut(s *inspect.Snapshot, skip map[string]bool) map[string]bool {
	out := findings(s)
	for k := range skip {
		delete(out, k)
	}
	return out
}

func findings(s *inspect.Snapshot) map[string]bool {
	out := map[string]bool{}
	for _, f := range s.Findings {
		out[f.Code+"@"+f.Subject] = true
	}
	return out
}

// TestIncidentsLive loads each example must-gather into its own real apiserver and
// inspects it live: the findings of the incident fire, and the live snapshot equals
// the must-gather's (same fingerprint, same findings).
func TestIncidentsLive(t *testing.T) {
	kubetest.Require(t, env)
	for _, tc := range []struct {
		dir  string
		want []string
	}{
		{example1, []string{
			"UpdateClaimedCompleteButMixed@clusterversion/version", "MixedOperatorVersions@clusteroperators",
			"KubeletNewerThanAPIServer@node/master-0", "ForcedUpdate@clusterversion/version",
			"UnverifiedUpdate@clusterversion/version", "PoolUpdating@machineconfigpool/master"}},
		{example2, []string{
			"StaticPodRevisionMismatch@node/master-2", "InstallerSucceededWithoutRevision@node/master-2",
			"UpdateInProgress@clusterversion/version", "MixedOperatorVersions@clusteroperators"}},
	} {
		t.Run(tc.dir[strings.Index(tc.dir, "examples/")+9:], func(t *testing.T) {
			fresh := env.ForTest(t)
			loadMustGather(t, fresh.Config, tc.dir)
			offline, err := mustgather.New(tc.dir).Collect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			// Observe the live cluster at the must-gather's time, so that durations
			// (OperatorProgressingStuck) are measured alike.
			live := collect(t, fresh.Config, Options{Now: func() time.Time { return offline.Source.CollectedAt }})
			got := findings(live)
			for _, w := range tc.want {
				if !got[w] {
					t.Errorf("live: missing %s (have %v)", w, got)
				}
			}
			// The example must-gathers predate the wedge facts: what they lack
			// is not collected offline, and that is the only difference.
			if got, want := findings(live), findingsBut(offline, absentIn(offline)); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("live and must-gather findings differ:\nlive    %v\noffline %v", got, want)
			}
			if live.Fingerprint() != offline.Fingerprint() {
				t.Errorf("live fingerprint %s differs from the must-gather's %s", live.Fingerprint(), offline.Fingerprint())
			}
			for _, r := range live.Resources {
				requests := 1
				if strings.HasPrefix(r.Reason, inspect.ReasonNotNeeded) {
					requests = 0
				}
				if r.State != inspect.Collected || r.Requests != requests || !strings.HasPrefix(r.From[0], "/api") {
					t.Errorf("resource %s: %s, %d requests, from %v", r.Key(), r.State, r.Requests, r.From)
				}
			}
			if tc.dir == example2 {
				fixIncidentTwo(t, fresh.Config)
			}
		})
	}
}

// fixIncidentTwo repairs master-2 and disables the CVO on the live cluster: the
// static-pod findings must go, CVODisabled must come.
func fixIncidentTwo(t *testing.T, cfg *rest.Config) {
	ctx := context.Background()
	kube := kubernetes.NewForConfigOrDie(cfg)
	pods := kube.CoreV1().Pods("openshift-kube-apiserver")
	good, err := pods.Get(ctx, "kube-apiserver-master-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, "kube-apiserver-master-2", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, "installer-9-master-2", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	repaired := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-apiserver-master-2", Namespace: good.Namespace, Labels: good.Labels, Annotations: good.Annotations},
		Spec:       *good.Spec.DeepCopy(),
	}
	repaired.Spec.NodeName = "master-2"
	if _, err := pods.Create(ctx, repaired, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	scale, err := kube.AppsV1().Deployments(openshift.CVONamespace).GetScale(ctx, openshift.CVODeployment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scale.Spec.Replicas = 0
	if _, err := kube.AppsV1().Deployments(openshift.CVONamespace).UpdateScale(ctx, openshift.CVODeployment, scale, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := findings(collect(t, cfg, Options{Now: func() time.Time { return time.Date(2020, 6, 2, 11, 5, 0, 0, time.UTC) }}))
	for _, gone := range []string{"StaticPodRevisionMismatch@node/master-2", "InstallerSucceededWithoutRevision@node/master-2"} {
		if got[gone] {
			t.Errorf("after the repair %s still fires", gone)
		}
	}
	if !got["CVODisabled@deployment/openshift-cluster-version/cluster-version-operator"] {
		t.Errorf("CVO scaled to 0 but no CVODisabled: %v", got)
	}
}

func TestPlainKubernetesIsNotOpenShift(t *testing.T) {
	kubetest.Require(t, env)
	plain, err := kubetest.Start(kubetest.Options{SkipCRDs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Stop()
	src, err := New(plain.Config, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Collect(context.Background())
	var nos *NotOpenShiftError
	if !errors.As(err, &nos) || !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "not an OpenShift 4 cluster") {
		t.Fatalf("want NotOpenShiftError wrapping NotFound, got %v", err)
	}
}

func TestUnreachableCluster(t *testing.T) {
	src, err := New(&rest.Config{Host: "https://127.0.0.1:1", TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Collect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cannot reach the cluster at https://127.0.0.1:1") {
		t.Fatalf("want an unreachable-cluster error, got %v", err)
	}
}

// seedClusterVersion creates ClusterVersion/version in the shared environment once.
func seedClusterVersion(t *testing.T) { seedClusterVersionIn(t, env.Config) }

// seedClusterVersionIn creates ClusterVersion/version in the cluster of cfg.
func seedClusterVersionIn(t *testing.T, cfg *rest.Config) {
	ctx := context.Background()
	client := configclient.NewForConfigOrDie(cfg)
	cv := &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version"}, Spec: configv1.ClusterVersionSpec{ClusterID: "5c2d3e0a-9b1f-4f6e-8d8a-1f2b3c4d5e6f"}}
	if _, err := client.ConfigV1().ClusterVersions().Create(ctx, cv, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func TestForbiddenResourcesAreRecorded(t *testing.T) {
	kubetest.Require(t, env)
	seedClusterVersion(t)
	ctx := context.Background()
	cfg, err := env.UserConfig(kubetest.LimitedUser)
	if err != nil {
		t.Fatal(err)
	}
	// No RBAC at all: nothing can be read, which is an error, not an empty cluster.
	src, _ := New(cfg, Options{})
	if _, err := src.Collect(ctx); err == nil || !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "cluster-reader") {
		t.Fatalf("want a Forbidden error naming cluster-reader, got %v", err)
	}
	// Some RBAC: what is allowed is collected, the rest recorded as Forbidden.
	kube := kubernetes.NewForConfigOrDie(env.Config)
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "inspect-partial"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"config.openshift.io"}, Resources: []string{"clusterversions", "clusteroperators"}, Verbs: []string{"list"}},
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list"}},
	}}
	if _, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "inspect-partial"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "inspect-partial"},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: kubetest.LimitedUser}}}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer kube.RbacV1().ClusterRoleBindings().Delete(ctx, "inspect-partial", metav1.DeleteOptions{})
	// The authorizer sees a new binding through its informers, a moment later:
	// wait until the user can list what the role grants, or a loaded machine
	// collects before it does and finds everything forbidden.
	limited := configclient.NewForConfigOrDie(cfg)
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := limited.ConfigV1().ClusterVersions().List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, nil
	}); err != nil {
		t.Fatalf("the binding never took effect: %v", err)
	}
	s := collect(t, cfg, Options{})
	states := map[string]inspect.CollectionState{}
	for _, r := range s.Resources {
		states[r.Key()] = r.State
	}
	for key, want := range map[string]inspect.CollectionState{
		"clusterversions.config.openshift.io":  inspect.Collected,
		"nodes":                                inspect.Collected,
		"pods/openshift-kube-apiserver":        inspect.Forbidden,
		"deployments.apps":                     inspect.Forbidden,
		"kubeapiservers.operator.openshift.io": inspect.Forbidden,
	} {
		if states[key] != want {
			t.Errorf("%s: %s, want %s", key, states[key], want)
		}
	}
	got := findings(s)
	if !got["NotCollected@resource/pods/openshift-kube-apiserver"] || !got["NotCollected@resource/deployments.apps"] {
		t.Errorf("no NotCollected findings for forbidden resources: %v", got)
	}
	if got["CVODisabled@deployment/openshift-cluster-version/cluster-version-operator"] {
		t.Error("a forbidden Deployment list must not read as a missing CVO")
	}
	// The logs of a namespace whose pods may not be listed are Forbidden, and
	// make no NotCollected finding (logs add evidence).
	for _, r := range s.Logs.Sources {
		if r.Namespace == "openshift-cluster-version" && (r.State != inspect.Forbidden || !strings.Contains(r.Reason, "listing its pods")) {
			t.Errorf("logs of the CVO's namespace: %+v", r)
		}
	}
	for k := range got {
		if strings.Contains(k, "pods/log") {
			t.Errorf("a log not read made a finding: %s", k)
		}
	}
}

// countingTransport counts the requests a client makes.
type countingTransport struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

func countingConfig(cfg *rest.Config) (*rest.Config, *atomic.Int64) {
	n := &atomic.Int64{}
	c := rest.CopyConfig(cfg)
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{next: rt, n: n} })
	return c, n
}

func createNodes(t testing.TB, cfg *rest.Config, prefix string, n int) {
	t.Helper()
	kube := kubernetes.NewForConfigOrDie(cfg)
	for i := 0; i < n; i++ {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%04d", prefix, i), Labels: map[string]string{"node-role.kubernetes.io/worker": ""}}}
		if _, err := kube.CoreV1().Nodes().Create(context.Background(), node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// TestPaginationAndRequestCount: requests depend on resource types and pages,
// never on objects; small pages walk every continue token.
func TestPaginationAndRequestCount(t *testing.T) {
	kubetest.Require(t, env)
	seedClusterVersion(t)
	cfg, count := countingConfig(env.Config)
	createNodes(t, env.Config, "page-a", 60)
	collect(t, cfg, Options{})
	first := count.Swap(0)
	createNodes(t, env.Config, "page-b", 60)
	s := collect(t, cfg, Options{})
	if second := count.Swap(0); second != first {
		t.Errorf("requests grew with objects: %d then %d", first, second)
	}
	// 12 cluster-wide types and the pods of 4 operand namespaces; the wedge
	// facts' 9 cluster-wide types, 2 admin-gate ConfigMaps and 2 signer
	// namespaces' Secrets; nothing drains and no webhook calls a service, so
	// the second phase needs no request; the logs phase lists the pods of the
	// CVO, the machine-config operator and the approver (3), and no pod
	// whose log matters runs.
	if first != 32 {
		t.Errorf("one inspect made %d requests; want one LIST per resource type and the logs phase's three (32)", first)
	}
	seen := 0
	for _, n := range s.Nodes {
		if strings.HasPrefix(n.Name, "page-") {
			seen++
		}
	}
	if seen != 120 {
		t.Fatalf("saw %d of 120 nodes", seen)
	}
	small := collect(t, cfg, Options{PageSize: 25})
	var nodes inspect.ResourceStatus
	for _, r := range small.Resources {
		if r.Resource == "nodes" {
			nodes = r
		}
	}
	if nodes.Count < 120 || nodes.Requests != (nodes.Count+24)/25 || len(small.Nodes) != nodes.Count {
		t.Fatalf("paged nodes: %+v, %d records", nodes, len(small.Nodes))
	}
	if small.Fingerprint() != s.Fingerprint() {
		t.Error("page size changed the snapshot")
	}
}
