package apply_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	policyv1 "k8s.io/api/policy/v1"

	"github.com/openshift-recover/recover/apply/incluster"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
	"github.com/openshift-recover/recover/internal/testing/recoverbin"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The namespace and the two identities of the in-cluster runs: the Job's pod
// that is killed runs as recover-a, the pod that resumes as recover-b, each
// with its own service account token, both bound to the RBAC recover apply
// --print-rbac generated for the plan (and to nothing else).
const (
	icNS      = "recover"
	icFirstSA = "recover-a"
	icNextSA  = "recover-b"
	// icLease is the runs' lease: short, so that the next pod's wait for a
	// killed holder's lease to expire stays short too.
	icLease = "5s"
)

// inCluster is one in-cluster run of a plan: its ConfigMaps and identities.
type inCluster struct {
	planCM, journal string
	first, next     *rest.Config
	// admin is the kubeconfig of the lane's admin, who prepared the run.
	admin string
}

// args are the arguments of recover apply inside the cluster (after --kubeconfig).
func (ic *inCluster) args(extra ...string) []string {
	return append([]string{"apply", "--in-cluster", "--namespace", icNS, "--plan-configmap", ic.planCM, "--yes", "--events", "json", "--lease-duration", icLease}, extra...)
}

// relaxRunToTheEnd runs the next pod (ic.next, through an audit proxy) over a
// relax-pdb plan to its end, letting the drain complete when it waits on the
// relaxed budget, and requires the budget "web" restored exactly to before.
// It returns the proxy, whose log is the run's writes.
func (ic *inCluster) relaxRunToTheEnd(t *testing.T, ctx context.Context, c *lane, dir, what string, before policyv1.PodDisruptionBudgetSpec) *faultproxy.Proxy {
	t.Helper()
	proxy, kc := auditProxyFor(t, ic.next, dir, "next", nil)
	_, done, stderr := startRecover(t, func(ev map[string]any) {
		if ev["type"] == "waiting" && strings.Contains(stepOf(ev), "relax-pdb") {
			drainCompletes(t, ctx, c)
		}
	}, append([]string{"--kubeconfig", kc}, ic.args()...)...)
	if err := <-done; err != nil {
		t.Fatalf("%s: exit %d: %s", what, recoverbin.ExitCode(err), stderr.String())
	}
	if got := pdbSpec(t, ctx, c, "web"); !reflect.DeepEqual(got, before) {
		t.Fatalf("%s: the budget is not restored exactly:\n got %+v\nwant %+v", what, got, before)
	}
	return proxy
}

// relaxFixture is the start of an in-cluster run of a plan that relaxes the
// budget "web" while a master drains, on lane c (reset by setup): the budget
// made, the plan in ConfigMaps named after name. It returns the run, the plan,
// the relax step's ID, the test's directory and the budget's spec before the
// run.
func relaxFixture(t *testing.T, ctx context.Context, c *lane, name string) (*inCluster, *planfile.Plan, string, string, policyv1.PodDisruptionBudgetSpec) {
	t.Helper()
	p, relax, _, before := relaxCase(t, ctx, c)
	dir := t.TempDir()
	return prepareInCluster(t, ctx, c, (&applytestPlan{p}).write(t, dir), name), p, relax, dir, before
}

// journalArgs name the journal for recover journal, read as the admin.
func (ic *inCluster) journalArgs() []string {
	return []string{"--kubeconfig", ic.admin, "--in-cluster", ic.journal, "--namespace", icNS}
}

// export copies the journal kept in the cluster into a file (the same JSON
// lines a file journal holds), for the checks written for file journals.
func (ic *inCluster) export(t *testing.T, c *lane) string {
	t.Helper()
	data, err := incluster.NewJournalStore(c.Kube, icNS, ic.journal).Read()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "exported.journal")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// prepareInCluster keeps the plan at planPath in ConfigMaps name (as the
// admin would with --print-plan-configmap), grants the RBAC recover apply
// --print-rbac --allow-stale generates for it to both identities, and returns
// the run with a fresh token for each.
func prepareInCluster(t *testing.T, ctx context.Context, c *lane, planPath, name string) *inCluster {
	t.Helper()
	ic := &inCluster{planCM: name, journal: incluster.DefaultJournal(name)}
	return prepareInClusterRBAC(t, ctx, c, planPath, ic, "--allow-stale")
}

// prepareInClusterRBAC is prepareInCluster with more --print-rbac arguments;
// the first identity is the generated ServiceAccount (recover-a unless the
// arguments name another).
func prepareInClusterRBAC(t *testing.T, ctx context.Context, c *lane, planPath string, ic *inCluster, rbacArgs ...string) *inCluster {
	t.Helper()
	ic.admin = c.env.Kubeconfig
	if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: icNS}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	code, out, errOut := recoverbin.Run(t, nil, "--kubeconfig", c.env.Kubeconfig, "apply", "--plan", planPath, "--print-plan-configmap", "--namespace", icNS, "--plan-configmap", ic.planCM)
	if code != 0 {
		t.Fatalf("--print-plan-configmap: exit %d: %s", code, errOut)
	}
	applyManifests(t, ctx, c, out, "")
	sa := icFirstSA
	for i, a := range rbacArgs {
		if a == "--service-account" && i+1 < len(rbacArgs) {
			sa = rbacArgs[i+1]
		}
	}
	args := append([]string{"--kubeconfig", c.env.Kubeconfig, "apply", "--plan", planPath, "--print-rbac", "--namespace", icNS, "--journal", ic.journal}, rbacArgs...)
	if sa == icFirstSA {
		args = append(args, "--service-account", icFirstSA)
	}
	code, out, errOut = recoverbin.Run(t, nil, args...)
	if code != 0 {
		t.Fatalf("--print-rbac: exit %d: %s", code, errOut)
	}
	also := icNextSA
	if sa != icFirstSA {
		also = ""
	}
	applyManifests(t, ctx, c, out, also)
	ic.first = saConfig(t, ctx, c, sa)
	if also != "" {
		ic.next = saConfig(t, ctx, c, also)
	}
	// The identities hold the generated RBAC and nothing more: not even a
	// list of Secrets anywhere.
	for _, cfg := range []*rest.Config{ic.first, ic.next} {
		if cfg == nil {
			continue
		}
		if _, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Secrets("").List(ctx, metav1.ListOptions{Limit: 1}); !apierrors.IsForbidden(err) {
			t.Fatalf("the run's ServiceAccount may list Secrets (%v): it is not limited to the generated RBAC", err)
		}
	}
	return ic
}

// applyManifests creates (or updates) every object of a YAML stream; with
// alsoFor, every binding is copied for that ServiceAccount too (and it is
// created), so that both identities hold exactly the generated roles.
func applyManifests(t *testing.T, ctx context.Context, c *lane, stream, alsoFor string) {
	t.Helper()
	put := func(create, update func() error) {
		err := create()
		if apierrors.IsAlreadyExists(err) {
			err = update()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, doc := range strings.Split(stream, "\n---\n") {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatalf("decoding %q: %v", doc, err)
		}
		switch o := obj.(type) {
		case *corev1.ConfigMap:
			cms := c.Kube.CoreV1().ConfigMaps(o.Namespace)
			put(func() error { _, err := cms.Create(ctx, o, metav1.CreateOptions{}); return err },
				func() error { _, err := cms.Update(ctx, o, metav1.UpdateOptions{}); return err })
		case *corev1.Namespace:
			put(func() error {
				_, err := c.Kube.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
				return err
			}, func() error { return nil })
		case *corev1.ServiceAccount:
			sas := c.Kube.CoreV1().ServiceAccounts(o.Namespace)
			put(func() error { _, err := sas.Create(ctx, o, metav1.CreateOptions{}); return err }, func() error { return nil })
			if alsoFor != "" {
				b := o.DeepCopy()
				b.Name = alsoFor
				put(func() error { _, err := sas.Create(ctx, b, metav1.CreateOptions{}); return err }, func() error { return nil })
			}
		case *rbacv1.ClusterRole:
			crs := c.Kube.RbacV1().ClusterRoles()
			put(func() error { _, err := crs.Create(ctx, o, metav1.CreateOptions{}); return err },
				func() error { _, err := crs.Update(ctx, o, metav1.UpdateOptions{}); return err })
		case *rbacv1.Role:
			rs := c.Kube.RbacV1().Roles(o.Namespace)
			put(func() error { _, err := rs.Create(ctx, o, metav1.CreateOptions{}); return err },
				func() error { _, err := rs.Update(ctx, o, metav1.UpdateOptions{}); return err })
		case *rbacv1.ClusterRoleBinding:
			bs := c.Kube.RbacV1().ClusterRoleBindings()
			for _, b := range bindingsFor(o, alsoFor) {
				put(func() error { _, err := bs.Create(ctx, b, metav1.CreateOptions{}); return err },
					func() error { _, err := bs.Update(ctx, b, metav1.UpdateOptions{}); return err })
			}
		case *rbacv1.RoleBinding:
			bs := c.Kube.RbacV1().RoleBindings(o.Namespace)
			rb := &rbacv1.ClusterRoleBinding{ObjectMeta: o.ObjectMeta, RoleRef: o.RoleRef, Subjects: o.Subjects}
			for _, b := range bindingsFor(rb, alsoFor) {
				nb := &rbacv1.RoleBinding{ObjectMeta: b.ObjectMeta, RoleRef: b.RoleRef, Subjects: b.Subjects}
				put(func() error { _, err := bs.Create(ctx, nb, metav1.CreateOptions{}); return err },
					func() error { _, err := bs.Update(ctx, nb, metav1.UpdateOptions{}); return err })
			}
		default:
			t.Fatalf("unexpected %T in the generated manifests", obj)
		}
	}
}

// bindingsFor is the binding and, with sa, its copy for ServiceAccount sa.
func bindingsFor(b *rbacv1.ClusterRoleBinding, sa string) []*rbacv1.ClusterRoleBinding {
	out := []*rbacv1.ClusterRoleBinding{b}
	if sa != "" {
		cp := b.DeepCopy()
		cp.Name += "-" + sa
		cp.Subjects = []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: icNS}}
		out = append(out, cp)
	}
	return out
}

// saConfig is a client configuration with a fresh token of ServiceAccount sa.
func saConfig(t *testing.T, ctx context.Context, c *lane, sa string) *rest.Config {
	t.Helper()
	tr, err := c.Kube.CoreV1().ServiceAccounts(icNS).CreateToken(ctx, sa, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptrTo(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(c.env.Config)
	cfg.BearerToken = tr.Status.Token
	return cfg
}

func ptrTo[T any](v T) *T { return &v }

// icJournalPatch matches the nth patch of the journal's ConfigMaps: a record
// being appended.
var icJournalPatch = func(e faultproxy.Entry) bool {
	return e.Method == http.MethodPatch && strings.Contains(e.Path, "/namespaces/"+icNS+"/configmaps/")
}

// inClusterCrashPoints are the file matrix's moments, with the torn journal
// lines (a journal in the cluster has none: a record is written whole or not
// at all) replaced by the kill of a record's append before it reached the API
// server and after it was applied, its answer lost.
func inClusterCrashPoints() []crashPoint {
	var out []crashPoint
	for _, cp := range crashPoints {
		if !cp.tear {
			out = append(out, cp)
		}
	}
	return append(out,
		crashPoint{name: "while writing the journal: a record's append not sent", request: icJournalPatch, nth: 12, stage: faultproxy.Before},
		crashPoint{name: "while writing the journal: a record appended, answer lost", request: icJournalPatch, nth: 12, stage: faultproxy.After})
}

// TestInClusterCrashMatrix is the crash matrix of a run inside the cluster:
// recover apply --in-cluster, with the plan in ConfigMaps and the journal kept
// as ConfigMaps, runs as ServiceAccount recover-a with only the RBAC that
// --print-rbac generated for the plan, and is killed with SIGKILL at each kind
// of moment. Then, as a Job's next pod would, recover apply --in-cluster runs
// again as another identity (ServiceAccount recover-b, another token, another
// lock holder) with the same arguments: it finds the journal and resumes it,
// after waiting for the killed run's lease to expire. After each: a scaled-down
// CVO is one recover journal --in-cluster says is disabled; the resumed run
// ends in an uninterrupted run's state with the journal finished and the CVO
// restored; no step is lost or doubled (the create-only object created and the
// obsolete one deleted at most once, by the journal and by the API server's
// audit); every step was journaled done only after its gates passed; and the
// journal records the two identities.
//
// The cases run side by side, each on a lane of its own (setup resets it);
// their objects, plan ConfigMaps and journals are named after the case.
func TestInClusterCrashMatrix(t *testing.T) {
	for i, cp := range inClusterCrashPoints() {
		t.Run(cp.name, func(t *testing.T) {
			c, ctx := setup(t)
			want := referenceState(t, ctx, c)
			b, sc := applytest.FullPlan(fmt.Sprintf("ic%d", i))
			prepareScenario(t, ctx, c, sc)
			dir := t.TempDir()
			ic := prepareInCluster(t, ctx, c, b.Write(t, dir), fmt.Sprintf("plan-%d", i))

			first := crashRunAs(t, ic.first, dir, cp, func(ev map[string]any, kill func()) {
				if cp.event != "" && ev["type"] == cp.event && strings.Contains(stepOf(ev), cp.stepPart) ||
					cp.orStarted != "" && ev["type"] == "step-started" && strings.Contains(stepOf(ev), cp.orStarted) {
					kill()
				}
			}, ic.args("--i-have-a-backup", "--allow-stale")...)
			if exists, err := incluster.NewJournalStore(c.Kube, icNS, ic.journal).Exists(ctx); err != nil || !exists {
				t.Fatalf("no journal in the cluster after the crash (%v)", err)
			}
			assertCVOHonest(t, c, ic.journalArgs()...)

			second, kc := auditProxyFor(t, ic.next, dir, "next", nil)
			_, done, stderr := startRecover(t, nil, append([]string{"--kubeconfig", kc}, ic.args()...)...)
			if err := <-done; err != nil {
				t.Fatalf("the next run: exit %d: %s", recoverbin.ExitCode(err), stderr.String())
			}
			assertState(t, "after crash and resume", finalState(t, ctx, c, sc), want)
			path := ic.export(t, c)
			assertAtMostOnce(t, path, b.Plan())
			assertGatesBeforeDone(t, path, b.Plan())
			assertAuditedAtMostOnce(t, "", append(first.Log(), second.Log()...))
			assertTwoHolders(t, path)
			if st := mustLoad(t, path).State(); !st.Finished || st.CVO.Disabled {
				t.Errorf("journal after resume: finished %v, CVO %+v", st.Finished, st.CVO)
			}
		})
	}
}

// assertTwoHolders checks that the journal was begun by one lock holder and
// resumed by another.
func assertTwoHolders(t *testing.T, path string) {
	t.Helper()
	j := mustLoad(t, path)
	var resumedBy []string
	for _, r := range j.Records {
		if r.Type == journal.TypeResume {
			resumedBy = append(resumedBy, r.Resume.Holder)
		}
	}
	if len(resumedBy) != 1 || resumedBy[0] == "" || resumedBy[0] == j.Header.Holder {
		t.Errorf("the journal was begun by %q and resumed by %q: want one resume by another holder", j.Header.Holder, resumedBy)
	}
}

// TestInClusterCrashMatrixRemediation is the remediation crash matrix inside
// the cluster (a relaxed budget, killed at each moment of its change, its wait
// and its revert), plus the eviction of the run's pod while the budget is
// relaxed (SIGTERM, as a drain of its node sends it): the run reverts the
// budget before it exits. The next run, as another identity, resumes; the
// budget ends exactly as before, the journal finished with nothing
// outstanding, and the API server saw exactly one relax and one restore per
// run that made the change.
//
// The cases run side by side, each on a lane of its own (setup resets it).
func TestInClusterCrashMatrixRemediation(t *testing.T) {
	points := append(append([]crashPoint(nil), remedyCrashPoints...), crashPoint{name: "evicted (SIGTERM) during the nodes-settled wait", event: "waiting", stepPart: "relax-pdb"})
	for i, cp := range points {
		t.Run(cp.name, func(t *testing.T) {
			c, ctx := setup(t)
			ic, p, relax, dir, before := relaxFixture(t, ctx, c, fmt.Sprintf("remedy-%d", i))
			evicted := strings.HasPrefix(cp.name, "evicted")

			var logs []faultproxy.Entry
			if evicted {
				proxy, kc := auditProxyFor(t, ic.first, dir, "first", nil)
				var once sync.Once
				var mu sync.Mutex
				var victim *os.Process
				cmd, done, stderr := startRecover(t, func(ev map[string]any) {
					if ev["type"] == "waiting" && strings.Contains(stepOf(ev), "relax-pdb") {
						once.Do(func() {
							mu.Lock()
							defer mu.Unlock()
							_ = victim.Signal(syscall.SIGTERM)
						})
					}
				}, append([]string{"--kubeconfig", kc}, ic.args("--i-have-a-backup", "--allow-stale")...)...)
				mu.Lock()
				victim = cmd.Process
				mu.Unlock()
				if code := recoverbin.ExitCode(<-done); code != 10 {
					t.Fatalf("the evicted run: exit %d, want 10 (aborted, resumable): %s", code, stderr.String())
				}
				if got := pdbSpec(t, ctx, c, "web"); !reflect.DeepEqual(got, before) {
					t.Errorf("the evicted run left the budget changed: %+v", got)
				}
				logs = proxy.Log()
			} else {
				first := crashRunAs(t, ic.first, dir, cp, func(ev map[string]any, kill func()) {
					if ev["type"] == "waiting" && strings.Contains(stepOf(ev), "relax-pdb") {
						if cp.event == "waiting" {
							kill()
							return
						}
						drainCompletes(t, ctx, c)
					}
				}, ic.args("--i-have-a-backup", "--allow-stale")...)
				logs = first.Log()
			}
			assertChangeHonest(t, ctx, c, relax, ic.journalArgs()...)

			second := ic.relaxRunToTheEnd(t, ctx, c, dir, "after the crash and the resume", before)
			path := ic.export(t, c)
			st := mustLoad(t, path).State()
			if s := st.Step(relax); !st.Finished || st.CVO.Disabled || s.ChangeOutstanding || len(st.Outstanding()) != 0 {
				t.Errorf("journal after resume: finished %v, CVO %+v, relax %+v", st.Finished, st.CVO, s)
			}
			assertGatesBeforeDone(t, path, p)
			assertTwoHolders(t, path)
			var patched []faultproxy.Entry
			for _, e := range append(logs, second.Log()...) {
				if pdbPatch("web")(e) && e.Forwarded && e.Status < 300 {
					patched = append(patched, e)
				}
			}
			// The evicted run relaxed and restored the budget; the next run
			// relaxes it again and its revert step restores it.
			want := 2
			if evicted {
				want = 4
			}
			if len(patched) != want {
				t.Errorf("the API server applied %d patches of the budget, want %d: %+v", len(patched), want, patched)
			}
		})
	}
}

// TestInClusterRunIsAJobRetry: a run inside the cluster that completed is
// run again with the same arguments (a Job's pod started again, as another
// identity): it resumes the finished journal and changes nothing.
func TestInClusterRunIsAJobRetry(t *testing.T) {
	c, ctx := setup(t)
	b, sc := applytest.FullPlan("icjob")
	prepareScenario(t, ctx, c, sc)
	dir := t.TempDir()
	ic := prepareInCluster(t, ctx, c, b.Write(t, dir), "plan-job")
	_, kc := auditProxyFor(t, ic.first, dir, "first", nil)
	code, _, errOut := recoverbin.Run(t, nil, append([]string{"--kubeconfig", kc}, ic.args("--i-have-a-backup", "--allow-stale")...)...)
	if code != 0 {
		t.Fatalf("the run: exit %d: %s", code, errOut)
	}
	proxy, kc2 := auditProxyFor(t, ic.next, dir, "again", nil)
	code, out, errOut := recoverbin.Run(t, nil, append([]string{"--kubeconfig", kc2}, ic.args()...)...)
	if code != 0 || !strings.Contains(out, "already done in the journal") {
		t.Fatalf("the run again: exit %d: %s %s", code, out, errOut)
	}
	for _, e := range proxy.Log() {
		if e.Forwarded && !e.DryRun && e.Method != http.MethodGet && !strings.Contains(e.Path, "/configmaps/") && !strings.Contains(e.Path, "/leases") && !strings.Contains(e.Path, "accessreviews") {
			t.Errorf("the run again changed the cluster: %s %s", e.Method, e.Path)
		}
	}
	if st := mustLoad(t, ic.export(t, c)).State(); !st.Finished || st.Runs != 2 {
		t.Errorf("journal: finished %v after %d runs", st.Finished, st.Runs)
	}
}

// TestInClusterRunChecksStalenessWithItsRBAC runs preflight inside the cluster
// for a plan made for the live cluster (its fingerprint), as a ServiceAccount
// with the RBAC --print-rbac generated without --allow-stale: the staleness
// check's live snapshot must read everything the fingerprint digests
// (incluster.FingerprintAccess), or its fingerprint would differ and the run
// be refused.
func TestInClusterRunChecksStalenessWithItsRBAC(t *testing.T) {
	c, ctx := setup(t)
	b, sc := applytest.FullPlan("icstale")
	prepareScenario(t, ctx, c, sc)
	src, err := live.New(c.env.Config, live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := src.Collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.Plan().Cluster.Fingerprint = snap.Fingerprint()
	dir := t.TempDir()
	planPath := b.Write(t, dir)
	ic := &inCluster{planCM: "plan-stale", journal: incluster.DefaultJournal("plan-stale")}
	prepared := prepareInClusterRBAC(t, ctx, c, planPath, ic, "--allow-stale=false")
	_, kc := auditProxyFor(t, prepared.first, dir, "first", nil)
	code, out, errOut := recoverbin.Run(t, nil, append([]string{"--kubeconfig", kc}, ic.args("--dry-run")...)...)
	if code != 0 || !strings.Contains(out, "the cluster still matches the plan's fingerprint") {
		t.Fatalf("dry run with the staleness check: exit %d: %s\n%s", code, errOut, out)
	}
	// Without the reads the fingerprint needs, the same check fails: the
	// generated reads are what makes it pass.
	unread := &inCluster{planCM: "plan-stale-allow", journal: incluster.DefaultJournal("plan-stale-allow")}
	withoutReads := prepareInClusterRBAC(t, ctx, c, planPath, unread, "--allow-stale", "--service-account", "recover-stale")
	_, kc = auditProxyFor(t, withoutReads.first, dir, "without", nil)
	if code, out, _ := recoverbin.Run(t, nil, append([]string{"--kubeconfig", kc}, unread.args("--dry-run")...)...); code == 0 || !strings.Contains(out, "the cluster changed since the plan was made") {
		t.Fatalf("a ServiceAccount without the fingerprint's reads passed the staleness check: exit %d: %s", code, out)
	}
}

// TestInClusterFencedRunTellsTheTruth: a run paused (SIGSTOP, as a frozen pod)
// while a relaxed budget waits, whose lease expires and is taken over by the
// next run (another identity), which finishes the plan: the budget reverted,
// the CVO restored. Woken (SIGCONT), the first run finds the lock lost; its
// last message tells what the run that took over did, read from the journal:
// not that the budget is NOT reverted nor that the CVO is left disabled, and it
// never suggests --resume, which --in-cluster refuses, nor another run of a
// journal the run that took over finished (issue 34).
func TestInClusterFencedRunTellsTheTruth(t *testing.T) {
	c, ctx := setup(t)
	ic, _, _, dir, before := relaxFixture(t, ctx, c, "fenced")

	_, kc := auditProxyFor(t, ic.first, dir, "first", nil)
	var once sync.Once
	var mu sync.Mutex
	var victim *os.Process
	paused := make(chan struct{})
	cmd, done, stderr := startRecover(t, func(ev map[string]any) {
		if ev["type"] == "waiting" && strings.Contains(stepOf(ev), "relax-pdb") {
			once.Do(func() {
				mu.Lock()
				defer mu.Unlock()
				_ = victim.Signal(syscall.SIGSTOP)
				close(paused)
			})
		}
	}, append([]string{"--kubeconfig", kc}, ic.args("--i-have-a-backup", "--allow-stale")...)...)
	mu.Lock()
	victim = cmd.Process
	mu.Unlock()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	<-paused

	ic.relaxRunToTheEnd(t, ctx, c, dir, "the run that took over", before)

	_ = cmd.Process.Signal(syscall.SIGCONT)
	err := <-done
	msg := stderr.String()
	if err == nil {
		t.Fatalf("the woken run succeeded: %s", msg)
	}
	for _, lie := range []string{"NOT reverted", "left DISABLED", "--resume", "next:"} {
		if strings.Contains(msg, lie) {
			t.Errorf("the woken run's last message says %q:\n%s", lie, msg)
		}
	}
	if !strings.Contains(msg, "the run that took over reverted") || !strings.Contains(msg, "the run that took over restored the cluster-version operator") {
		t.Errorf("the woken run's last message does not say what the run that took over did:\n%s", msg)
	}
	if got := pdbSpec(t, ctx, c, "web"); !reflect.DeepEqual(got, before) {
		t.Errorf("after the woken run the budget is changed: %+v", got)
	}
}
