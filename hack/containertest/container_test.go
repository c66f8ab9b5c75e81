package containertest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/apply/incluster"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/lock"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/internal/testing/recoverbin"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The run's namespace, ServiceAccount, plan ConfigMap and the pods' names.
const (
	runNS  = "openshift-recover"
	runSA  = "recover"
	planCM = "recover-plan"
	podA   = "recover-apply-wave1-a"
	podB   = "recover-apply-wave1-b"
	// lease is the runs' --lease-duration: the second pod waits for the killed
	// one's lease to expire, so a short one keeps the test short.
	lease = "10s"
)

// TestInClusterRunKilledAndResumedInContainers runs the image make image
// builds as the fleet's apply Job runs it (docs/apply.md, "Inside the
// cluster"), in podman with runc: non-root, read-only, no capabilities, no
// writable volume, configured only by a service-account token from the
// TokenRequest API mounted at the in-cluster path, with the least-privilege
// RBAC recover apply --print-rbac printed (itself run in the image, as the
// admin), on an API server that enforces RBAC.
//
// The first pod runs the plan (disable the CVO, a namespace, a CRD and its
// object, a create-only ConfigMap, a Secret, an operator and its
// ClusterOperator, a delete, the master pool paused and unpaused, the
// kube-apiserver's static pods, the desired update, restore the CVO) and is
// killed with SIGKILL (podman kill) while it waits for the ClusterOperator,
// which no operator reports until then. Its journal's ConfigMaps say the CVO is
// disabled and the wait is not done. A second pod, with its own token and name,
// runs the same command: it takes the lease over once the killed pod's lease
// expired, resumes the journal and completes the plan. The cluster then ends as
// the plan says, the CVO restored, and the journal is finished, begun by the
// first pod and resumed by the second, with no step made twice.
func TestInClusterRunKilledAndResumedInContainers(t *testing.T) {
	kubetest.Require(t, env)
	pm := newPodman(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	image := pm.loadImage(t)

	c, err := applytest.Setup(ctx, env)
	if err != nil {
		t.Fatalf("fixture cluster: %v (logs in %s)", err, env.Dir)
	}
	b, sc := applytest.FullPlan("box")
	if err := c.Prepare(ctx, sc); err != nil {
		t.Fatal(err)
	}
	p := b.Plan()
	journalName := incluster.DefaultJournal(planCM)

	// The admin, from a laptop: the plan's ConfigMaps and the run's RBAC.
	planDir := pm.writeFiles(t, "plan", nil)
	b.Write(t, planDir)
	adminKubeconfig, err := os.ReadFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	admin := container{name: "recover-admin", volumes: []string{
		planDir + ":/plan:ro",
		pm.writeFiles(t, "admin", map[string][]byte{"kubeconfig": adminKubeconfig}) + ":/admin:ro",
	}}
	code, rbac, errOut := pm.run(t, admin, image, "--kubeconfig", "/admin/kubeconfig", "apply", "--plan", "/plan/plan.json",
		"--print-rbac", "--namespace", runNS, "--journal", journalName, "--allow-stale", "--service-account", runSA)
	if code != 0 {
		t.Fatalf("--print-rbac in the image: exit %d: %s", code, errOut)
	}
	code, planCMs, errOut := pm.run(t, admin, image, "--kubeconfig", "/admin/kubeconfig", "apply", "--plan", "/plan/plan.json",
		"--print-plan-configmap", "--namespace", runNS, "--plan-configmap", planCM)
	if code != 0 {
		t.Fatalf("--print-plan-configmap in the image: exit %d: %s", code, errOut)
	}
	applyStream(t, ctx, rbac+"\n---\n"+planCMs)

	// The Job's container command (docs/apply.md), with the events as JSON
	// lines to follow the run and a short lease.
	args := append(nextcmd.InClusterApply(runNS, planCM, journalName),
		"--i-have-a-backup", "--allow-stale", "--yes", "--events", "json", "--lease-duration", lease)
	coWait := stepID(t, p, func(s planfile.Step) bool { return s.Gate != nil && s.Gate.Kind == planfile.GateClusterOperator })

	// The first pod, killed while it waits for the ClusterOperator.
	first := startPod(t, pm, podFor(t, pm, ctx, c, podA), image, args, func(ev event) bool {
		return ev.Type == "waiting" && ev.Step.ID == coWait
	})
	if first.code != 137 || !first.killed {
		t.Fatalf("the first pod: exit %d (killed: %v), want 137 after podman kill -s KILL at %s's wait\nstderr:\n%s", first.code, first.killed, coWait, first.stderr)
	}
	noForbidden(t, "the first pod", first.stderr)
	holderA := first.holder
	if !strings.Contains(holderA, podA) {
		t.Fatalf("the first pod held the lease as %q: want its pod name (hostname) %s in it", holderA, podA)
	}
	st := journalState(t, ctx, c, journalName)
	if st.Finished || !st.CVO.Disabled {
		t.Fatalf("the journal in the cluster after the kill: finished %v, CVO %+v: want unfinished, the CVO disabled", st.Finished, st.CVO)
	}
	if s := st.Step(coWait); s != nil && s.Complete() {
		t.Fatalf("the journal has %s done, but the pod was killed waiting for it", coWait)
	}
	if r := cvoReplicas(t, ctx, c); r != 0 {
		t.Fatalf("after the kill the CVO has %d replicas: the journal says it is disabled", r)
	}
	l, err := c.Kube.CoordinationV1().Leases(lock.Namespace).Get(ctx, lock.Name, metav1.GetOptions{})
	if err != nil || ptr.Deref(l.Spec.HolderIdentity, "") != holderA {
		t.Fatalf("after the kill the lease %s/%s is not the killed pod's (%q): %v", lock.Namespace, lock.Name, holderA, err)
	}

	// The operator reports its version from now on; the Job's next pod runs
	// the same command with its own token.
	fakes, stopFakes := context.WithCancel(ctx)
	defer stopFakes()
	go c.RunFakes(fakes)
	second := startPod(t, pm, podFor(t, pm, ctx, c, podB), image, args, nil)
	if second.code != 0 {
		t.Fatalf("the second pod: exit %d\nstderr:\n%s", second.code, second.stderr)
	}
	noForbidden(t, "the second pod", second.stderr)
	if !strings.Contains(second.holder, podB) || second.tookOver != holderA {
		t.Errorf("the second pod held the lease as %q, taken over from %q: want its own name %s, taken from %q", second.holder, second.tookOver, podB, holderA)
	}

	// The journal: finished, the CVO restored, every step done, nothing made
	// twice, begun by the first pod and resumed by the second.
	j := loadJournal(t, ctx, c, journalName)
	st = j.State()
	if !st.Finished || st.CVO.Disabled || len(st.Outstanding()) != 0 {
		t.Errorf("the journal after the resume: finished %v, CVO %+v, %d outstanding", st.Finished, st.CVO, len(st.Outstanding()))
	}
	for _, s := range p.Steps {
		step := st.Step(s.ID)
		if step == nil || !step.Complete() {
			t.Errorf("step %s is not done in the journal: %+v", s.ID, step)
			continue
		}
		if (s.Action == planfile.ActionDelete || s.Manifest != nil && s.Manifest.CreateOnly) && step.Mutations > 1 {
			t.Errorf("step %s changed the cluster %d times", s.ID, step.Mutations)
		}
	}
	var resumedBy []string
	for _, r := range j.Records {
		if r.Type == journal.TypeResume {
			resumedBy = append(resumedBy, r.Resume.Holder)
		}
	}
	if j.Header.Holder != holderA || len(resumedBy) != 1 || resumedBy[0] != second.holder {
		t.Errorf("the journal was begun by %q and resumed by %q: want begun by %q, resumed once by %q", j.Header.Holder, resumedBy, holderA, second.holder)
	}
	chunks, err := c.Kube.CoreV1().ConfigMaps(runNS).List(ctx, metav1.ListOptions{LabelSelector: incluster.JournalLabel + "=" + journalName})
	if err != nil || len(chunks.Items) == 0 {
		t.Errorf("no ConfigMap labelled %s=%s holds the journal (%v)", incluster.JournalLabel, journalName, err)
	}
	if l, err := c.Kube.CoordinationV1().Leases(lock.Namespace).Get(ctx, lock.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the lease is still there after the run completed: %v %v", ptr.Deref(l.Spec.HolderIdentity, ""), err)
	}

	assertEndState(t, ctx, c, sc)
	if !t.Failed() {
		t.Logf("container test: ok: podman %s with runc ran the image's in-cluster apply, killed it and resumed it in a second container (%d journal ConfigMaps, %d steps)", pm.version(), len(chunks.Items), len(p.Steps))
	}
}

// stepID is the ID of the plan's one step that is.
func stepID(t *testing.T, p *planfile.Plan, is func(planfile.Step) bool) string {
	t.Helper()
	for _, s := range p.Steps {
		if is(s) {
			return s.ID
		}
	}
	t.Fatal("the plan has no such step")
	return ""
}

// podFor is a pod of the Job: the in-cluster configuration, and nothing
// else: a token of the run's ServiceAccount from the TokenRequest API (as a
// projected volume carries it), the API server's CA and the namespace at
// the in-cluster path, and the service's address in the environment as the
// kubelet sets it.
func podFor(t *testing.T, pm *podman, ctx context.Context, c *applytest.Cluster, name string) container {
	t.Helper()
	tr, err := c.Kube.CoreV1().ServiceAccounts(runNS).CreateToken(ctx, runSA, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.LoadFromFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cluster := kc.Clusters[kc.Contexts[kc.CurrentContext].Cluster]
	u, err := url.Parse(cluster.Server)
	if err != nil {
		t.Fatal(err)
	}
	dir := pm.writeFiles(t, name, map[string][]byte{
		"token": []byte(tr.Status.Token), "ca.crt": cluster.CertificateAuthorityData, "namespace": []byte(runNS),
	})
	return container{name: name, volumes: []string{dir + ":" + saMountPath + ":ro"},
		env: []string{"KUBERNETES_SERVICE_HOST=" + u.Hostname(), "KUBERNETES_SERVICE_PORT=" + u.Port()}}
}

// event is what the test reads of recover's JSON event lines.
type event struct {
	Type string `json:"type"`
	Step struct {
		ID string `json:"id"`
	} `json:"step"`
	Lock *struct {
		Holder   string `json:"holder"`
		TookOver string `json:"tookOver"`
	} `json:"lock"`
}

// podRun is how a pod's container ended.
type podRun struct {
	code             int
	killed           bool
	holder, tookOver string
	stderr           string
}

// startPod runs recover in pod and follows its events; when kill says so it
// kills the container with SIGKILL (podman kill, as a node's crash would).
// A run that neither ends nor is killed within 5 minutes is killed too.
func startPod(t *testing.T, pm *podman, pod container, image string, args []string, kill func(event) bool) podRun {
	t.Helper()
	cmd := pm.cmd(pm.runArgs(pod, image, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	var run podRun
	killIt := func() {
		once.Do(func() {
			run.killed = true
			if out, err := pm.cmd("kill", "--signal", "KILL", pod.name).CombinedOutput(); err != nil {
				t.Errorf("podman kill %s: %v: %s", pod.name, err, out)
			}
		})
	}
	bound := time.AfterFunc(5*time.Minute, func() {
		t.Errorf("%s neither ended nor reached the kill in 5 minutes", pod.name)
		killIt()
	})
	defer bound.Stop()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Type == "lock" && ev.Lock != nil {
			run.holder, run.tookOver = ev.Lock.Holder, ev.Lock.TookOver
		}
		if kill != nil && kill(ev) {
			killIt()
		}
	}
	run.code = recoverbin.ExitCode(cmd.Wait())
	run.stderr = stderr.String()
	pm.remove(pod.name)
	return run
}

// noForbidden fails t when a pod's run was refused anything: the generated
// RBAC must be enough.
func noForbidden(t *testing.T, who, stderr string) {
	t.Helper()
	for _, word := range []string{"forbidden", "Forbidden", "403"} {
		if strings.Contains(stderr, word) {
			t.Errorf("%s was refused by the API server (%q):\n%s", who, word, stderr)
			return
		}
	}
}

func loadJournal(t *testing.T, ctx context.Context, c *applytest.Cluster, name string) *journal.Journal {
	t.Helper()
	j, err := journal.LoadFrom(incluster.NewJournalStore(c.Kube, runNS, name))
	if err != nil {
		t.Fatalf("the journal in ConfigMaps %s/%s: %v", runNS, name, err)
	}
	return j
}

func journalState(t *testing.T, ctx context.Context, c *applytest.Cluster, name string) *journal.State {
	t.Helper()
	return loadJournal(t, ctx, c, name).State()
}

func cvoReplicas(t *testing.T, ctx context.Context, c *applytest.Cluster) int32 {
	t.Helper()
	d, err := c.Kube.AppsV1().Deployments("openshift-cluster-version").Get(ctx, "cluster-version-operator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ptr.Deref(d.Spec.Replicas, 1)
}

// assertEndState checks the cluster is where the plan leads: every manifest
// in place with its content, the namespace's own label kept, the create-only
// ConfigMap as first created, the obsolete object gone, the operator at the
// target, the master pool unpaused, the desired update set and the CVO
// running again.
func assertEndState(t *testing.T, ctx context.Context, c *applytest.Cluster, sc *applytest.Scenario) {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(env.Config)
	mapper := restMapper(t)
	for _, want := range sc.Objects {
		got := getObject(t, ctx, dyn, mapper, want)
		if got == nil {
			continue
		}
		for _, field := range []string{"spec", "data"} {
			w, ok := want.Object[field]
			if !ok || want.GetKind() == "ClusterOperator" {
				continue
			}
			// The live object holds the plan's fields (the server adds defaults).
			if !contains(got.Object[field], w) {
				t.Errorf("%s %s: %s is %v, want the plan's %v", want.GetKind(), want.GetName(), field, got.Object[field], w)
			}
		}
		for k, v := range want.GetLabels() {
			if got.GetLabels()[k] != v {
				t.Errorf("%s %s: label %s=%q, want %q", want.GetKind(), want.GetName(), k, got.GetLabels()[k], v)
			}
		}
	}
	ns, err := c.Kube.CoreV1().Namespaces().Get(ctx, sc.Namespace, metav1.GetOptions{})
	if err != nil || ns.Labels["kept"] != "yes" {
		t.Errorf("namespace %s lost its own label kept=yes: %v %v", sc.Namespace, ns.Labels, err)
	}
	if _, err := c.Kube.CoreV1().ConfigMaps(sc.Namespace).Get(ctx, sc.Obsolete.GetName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the obsolete ConfigMap is still there (%v)", err)
	}
	co, err := c.OSConfig.ConfigV1().ClusterOperators().Get(ctx, sc.Operator, metav1.GetOptions{})
	if err != nil || len(co.Status.Versions) != 1 || co.Status.Versions[0].Version != applytest.TargetVersion {
		t.Errorf("ClusterOperator %s is not at %s: %v", sc.Operator, applytest.TargetVersion, err)
	}
	cv, err := c.OSConfig.ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{})
	if err != nil || cv.Spec.DesiredUpdate == nil || cv.Spec.DesiredUpdate.Version != applytest.TargetVersion || cv.Spec.DesiredUpdate.Image != applytest.TargetImage {
		t.Errorf("ClusterVersion's desired update is not the plan's target %s: %v", applytest.TargetVersion, err)
	}
	pool, err := c.MCFG.MachineconfigurationV1().MachineConfigPools().Get(ctx, "master", metav1.GetOptions{})
	if err != nil || pool.Spec.Paused {
		t.Errorf("the master pool is left paused (%v)", err)
	}
	if r := cvoReplicas(t, ctx, c); r != 1 {
		t.Errorf("the CVO has %d replicas after the run: want it restored to 1", r)
	}
}

// contains says whether got holds every field of want with want's value.
func contains(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if !contains(g[k], v) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !contains(g[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return fmt.Sprint(got) == fmt.Sprint(want)
	}
}

func restMapper(t *testing.T) meta.RESTMapper {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		t.Fatal(err)
	}
	return restmapper.NewDiscoveryRESTMapper(groups)
}

func resourceFor(t *testing.T, mapper meta.RESTMapper, u *unstructured.Unstructured) schema.GroupVersionResource {
	t.Helper()
	gvk := u.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Fatalf("%s: %v", gvk, err)
	}
	return m.Resource
}

func getObject(t *testing.T, ctx context.Context, dyn dynamic.Interface, mapper meta.RESTMapper, want *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	got, err := dyn.Resource(resourceFor(t, mapper, want)).Namespace(want.GetNamespace()).Get(ctx, want.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Errorf("%s %s after the run: %v", want.GetKind(), want.GetName(), err)
		return nil
	}
	return got
}

// applyStream applies a YAML stream as the admin (oc apply -f -: server-side
// apply, each object in turn).
func applyStream(t *testing.T, ctx context.Context, stream string) {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(env.Config)
	mapper := restMapper(t)
	for _, doc := range strings.Split(stream, "\n---\n") {
		if strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(doc), "---")) == "" {
			continue
		}
		data, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatalf("a printed manifest is not YAML: %v\n%s", err, doc)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			t.Fatalf("a printed manifest is not an object: %v\n%s", err, doc)
		}
		if _, err := dyn.Resource(resourceFor(t, mapper, u)).Namespace(u.GetNamespace()).Apply(ctx, u.GetName(), u,
			metav1.ApplyOptions{FieldManager: "containertest-admin", Force: true}); err != nil {
			t.Fatalf("applying %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
}
