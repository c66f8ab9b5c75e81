package apply_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// remedyCase is one remediation action on the fixture cluster: the object it
// patches, how the test prepares it, and the operator the test plays while
// the step's gate waits.
type remedyCase struct {
	name   string
	action planfile.Action
	obj    planfile.ObjectRef
	gvr    schema.GroupVersionResource
	// path is the suffix of the object's URL path.
	path   string
	patch  string
	fields [][]string
	gate   *planfile.Gate
	// prepare makes the object as the wedge has it; operator plays its
	// controller when the gate waits; cleanup undoes what the test did.
	prepare, operator, cleanup func(t *testing.T, ctx context.Context, c *lane)
	// pre is the pre-image the journal must hold; after the values the object
	// must carry at the end.
	pre, after map[string]string
}

// schedulerAt makes the kube-scheduler static-pod operator and its mirror pods
// on every master run revision rev (revisions only increase), and returns rev.
func schedulerAt(t *testing.T, ctx context.Context, c *lane, rev int32) int32 {
	t.Helper()
	const ns, prefix = "openshift-kube-scheduler", "openshift-kube-scheduler"
	if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	ks := c.Operator.OperatorV1().KubeSchedulers()
	cr, err := ks.Get(ctx, "cluster", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cr, err = ks.Create(ctx, &operatorv1.KubeScheduler{ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
			Spec: operatorv1.KubeSchedulerSpec{StaticPodOperatorSpec: operatorv1.StaticPodOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}}}}, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	if rev <= cr.Status.LatestAvailableRevision {
		rev = cr.Status.LatestAvailableRevision
	}
	cr.Status.LatestAvailableRevision = rev
	if len(cr.Status.NodeStatuses) == 0 {
		// A nodeStatus is created without a revision, then given one.
		for _, m := range applytest.Masters {
			cr.Status.NodeStatuses = append(cr.Status.NodeStatuses, operatorv1.NodeStatus{NodeName: m})
		}
		if cr, err = ks.UpdateStatus(ctx, cr, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range cr.Status.NodeStatuses {
		cr.Status.NodeStatuses[i].CurrentRevision = rev
	}
	if _, err := ks.UpdateStatus(ctx, cr, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := c.Kube.CoreV1().Pods(ns)
	for _, m := range applytest.Masters {
		name := prefix + "-" + m
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			p, err = pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"revision": fmt.Sprint(rev)}},
				Spec: corev1.PodSpec{NodeName: m, Containers: []corev1.Container{{Name: "kube-scheduler", Image: "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:2222222222222222222222222222222222222222222222222222222222222222"}}}}, metav1.CreateOptions{})
			if err == nil {
				p.Status.Phase = corev1.PodRunning
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
				p, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		p.Labels["revision"] = fmt.Sprint(rev)
		if _, err := pods.Update(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return rev
}

func remedyCases() []remedyCase {
	reason := fmt.Sprintf("recover-%d", time.Now().UnixNano())
	ackKey := "ack-4.18-kube-1.32-api-removals-in-4.19"
	// The forced rollout must reach a revision newer than the one it starts
	// from: prepare sets the gate's MinRevision.
	forced := &planfile.Gate{Kind: planfile.GateStaticPods, StaticPods: &planfile.StaticPodsGate{Resource: "kubeschedulers", Namespace: "openshift-kube-scheduler", PodPrefix: "openshift-kube-scheduler"}}
	var from int32
	return []remedyCase{
		{
			name: "force-redeployment", action: planfile.ActionForceRedeployment,
			obj: planfile.ObjectRef{APIVersion: "operator.openshift.io/v1", Kind: "KubeScheduler", Name: "cluster"},
			gvr: schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "kubeschedulers"}, path: "/kubeschedulers/cluster",
			patch: fmt.Sprintf(`{"spec":{"forceRedeploymentReason":%q}}`, reason), fields: [][]string{{"spec", openshift.FieldForceRedeploymentReason}},
			gate: forced,
			prepare: func(t *testing.T, ctx context.Context, c *lane) {
				from = schedulerAt(t, ctx, c, 1)
				forced.StaticPods.MinRevision = from + 1
			},
			operator: func(t *testing.T, ctx context.Context, c *lane) { schedulerAt(t, ctx, c, from+1) },
			after:    map[string]string{"spec.forceRedeploymentReason": fmt.Sprintf("%q", reason)},
		},
		{
			name: "acknowledge-admin-gate", action: planfile.ActionAcknowledgeGate,
			obj: planfile.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: openshift.AdminAcksNamespace, Name: openshift.AdminAcksConfigMap},
			gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, path: "/namespaces/openshift-config/configmaps/admin-acks",
			patch: fmt.Sprintf(`{"data":{%q:"true"}}`, ackKey), fields: [][]string{{"data", ackKey}},
			prepare: func(t *testing.T, ctx context.Context, c *lane) {
				if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: openshift.AdminAcksNamespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
					t.Fatal(err)
				}
				cms := c.Kube.CoreV1().ConfigMaps(openshift.AdminAcksNamespace)
				_ = cms.Delete(ctx, openshift.AdminAcksConfigMap, metav1.DeleteOptions{})
				if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: openshift.AdminAcksConfigMap}, Data: map[string]string{"ack-4.17-other": "true"}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			pre:   map[string]string{"data." + ackKey2(ackKey): "null"},
			after: map[string]string{"data." + ackKey2(ackKey): `"true"`},
		},
		{
			name: "remove-overrides", action: planfile.ActionRemoveOverrides,
			obj: planfile.ObjectRef{APIVersion: "config.openshift.io/v1", Kind: "ClusterVersion", Name: "version"},
			gvr: schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions"}, path: "/clusterversions/version",
			patch: `{"spec":{"overrides":null}}`, fields: [][]string{{"spec", "overrides"}},
			prepare: func(t *testing.T, ctx context.Context, c *lane) {
				cvs := c.OSConfig.ConfigV1().ClusterVersions()
				if _, err := applytest.Update(ctx, cvs.Get, cvs.Update, "version", func(cv *configv1.ClusterVersion) {
					cv.Spec.Overrides = []configv1.ComponentOverride{{Kind: "Deployment", Group: "apps", Namespace: "openshift-monitoring", Name: "cluster-monitoring-operator", Unmanaged: true}}
				}); err != nil {
					t.Fatal(err)
				}
			},
			pre:   map[string]string{"spec.overrides": `[{"group":"apps","kind":"Deployment","name":"cluster-monitoring-operator","namespace":"openshift-monitoring","unmanaged":true}]`},
			after: map[string]string{"spec.overrides": "null"},
		},
		{
			name: "annotate-upgradeable-to", action: planfile.ActionAnnotateUpgradeableTo,
			obj: planfile.ObjectRef{APIVersion: "operator.openshift.io/v1", Kind: "CloudCredential", Name: "cluster"},
			gvr: schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "cloudcredentials"}, path: "/cloudcredentials/cluster",
			patch: fmt.Sprintf(`{"metadata":{"annotations":{%q:"4.19"}}}`, openshift.AnnotationUpgradeableTo), fields: [][]string{{"metadata", "annotations", openshift.AnnotationUpgradeableTo}},
			gate: &planfile.Gate{Kind: planfile.GateConditionCleared, Object: &planfile.ObjectRef{APIVersion: "config.openshift.io/v1", Kind: "ClusterOperator", Name: openshift.CloudCredentialOperator},
				Condition: "Upgradeable", Reason: openshift.ReasonMissingUpgradeableAnnotation},
			prepare: func(t *testing.T, ctx context.Context, c *lane) {
				dyn := dynamic.NewForConfigOrDie(c.env.Config).Resource(schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "cloudcredentials"})
				_ = dyn.Delete(ctx, "cluster", metav1.DeleteOptions{})
				if _, err := dyn.Create(ctx, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "operator.openshift.io/v1", "kind": "CloudCredential",
					"metadata": map[string]any{"name": "cluster"}, "spec": map[string]any{"managementState": "Managed", "credentialsMode": "Manual"}}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				setOperatorCondition(t, ctx, c, openshift.CloudCredentialOperator, configv1.ConditionFalse, openshift.ReasonMissingUpgradeableAnnotation)
			},
			operator: func(t *testing.T, ctx context.Context, c *lane) {
				setOperatorCondition(t, ctx, c, openshift.CloudCredentialOperator, configv1.ConditionTrue, "AsExpected")
			},
			pre:   map[string]string{`metadata.annotations.cloudcredential\.openshift\.io/upgradeable-to`: "null"},
			after: map[string]string{`metadata.annotations.cloudcredential\.openshift\.io/upgradeable-to`: `"4.19"`},
		},
		{
			name: "unpause-pool as a remedy", action: planfile.ActionUnpausePool,
			obj: planfile.ObjectRef{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "MachineConfigPool", Name: "master"},
			gvr: schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigpools"}, path: "/machineconfigpools/master",
			patch: `{"spec":{"paused":false}}`, fields: [][]string{{"spec", "paused"}},
			gate: &planfile.Gate{Kind: planfile.GatePoolUpdated, Pool: "master"},
			prepare: func(t *testing.T, ctx context.Context, c *lane) {
				if _, err := c.MCFG.MachineconfigurationV1().MachineConfigPools().Patch(ctx, "master", "application/merge-patch+json", []byte(`{"spec":{"paused":true}}`), metav1.PatchOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			pre:   map[string]string{"spec.paused": "true"},
			after: map[string]string{"spec.paused": "false"},
		},
	}
}

func ackKey2(k string) string { return strings.ReplaceAll(k, ".", `\.`) }

// setOperatorCondition sets a ClusterOperator's Upgradeable condition.
func setOperatorCondition(t *testing.T, ctx context.Context, c *lane, name string, status configv1.ConditionStatus, reason string) {
	t.Helper()
	cos := c.OSConfig.ConfigV1().ClusterOperators()
	if _, err := cos.Create(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if _, err := applytest.Update(ctx, cos.Get, cos.UpdateStatus, name, func(co *configv1.ClusterOperator) {
		co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{{Type: configv1.OperatorUpgradeable, Status: status, Reason: reason, Message: "test", LastTransitionTime: metav1.Now()}}
	}); err != nil {
		t.Fatal(err)
	}
}

// TestEachRemediationActionJournalsItsPreImageBeforeTheChange runs every
// Change action on its real object: the patch reaches the server only after
// its intent, with the live values of its fields, is the journal's last record;
// the object ends with the new values, the gate waits for the operator the
// test plays, and the diff event shows the pre-image and the new values.
func TestEachRemediationActionJournalsItsPreImageBeforeTheChange(t *testing.T) {
	c, ctx := setup(t)
	dyn := dynamic.NewForConfigOrDie(c.env.Config)
	for _, tc := range remedyCases() {
		t.Run(tc.name, func(t *testing.T) {
			if err := c.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			if tc.prepare != nil {
				tc.prepare(t, ctx, c)
			}
			if tc.cleanup != nil {
				t.Cleanup(func() { tc.cleanup(t, ctx, c) })
			}
			client := dyn.Resource(tc.gvr).Namespace(tc.obj.Namespace)
			live, err := client.Get(ctx, tc.obj.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pre := resource.FieldValues(live.Object, tc.fields)
			for k, v := range tc.pre {
				if !resource.SameJSON(pre[k], json.RawMessage(v)) {
					t.Fatalf("prepared %s is %s, want %s", k, pre[k], v)
				}
			}
			b := applytest.NewPlan().DisableCVO().Change(tc.action, tc.obj, string(live.GetUID()), tc.patch, tc.fields, tc.gate)
			step := b.LastID()
			if tc.action == planfile.ActionUnpausePool {
				b.Plan().Steps[1].Pool = "master"
			}
			p := b.RestoreCVO().Plan()
			opts := defaults(t)
			var mu sync.Mutex
			var problems []string
			patched := 0
			hook := func(e faultproxy.Entry, stage faultproxy.Stage) bool {
				if e.Method != http.MethodPatch || !strings.HasSuffix(e.Path, tc.path) || stage != faultproxy.Before {
					return false
				}
				mu.Lock()
				defer mu.Unlock()
				patched++
				last := lastRecord(t, opts.JournalPath)
				if last.Type != journal.TypeIntent || last.Step != step || len(resource.DifferingFields(last.Intent.PreImage, pre)) > 0 {
					problems = append(problems, fmt.Sprintf("before the patch the journal's last record is %s %s %+v, not the intent with pre-image %v", last.Type, last.Step, last.Intent, pre))
				}
				return false
			}
			proxy, _ := auditProxy(t, c, t.TempDir(), "actions", hook)
			e, err := apply.New(proxy.Config())
			if err != nil {
				t.Fatal(err)
			}
			var diff *apply.ChangeInfo
			played := false
			res, events := runWith(t, ctx, e, p, opts, func(ev apply.Event) {
				if ev.Step == nil || ev.Step.ID != step {
					return
				}
				switch {
				case ev.Type == apply.EventDiff:
					diff = ev.Change
				case ev.Type == apply.EventWaiting && tc.operator != nil && !played:
					played = true
					tc.operator(t, ctx, c)
				}
			})
			if res.Outcome != apply.OutcomeCompleted {
				t.Fatalf("%s: %s\n%s", res.Outcome, res.Message, dump(events))
			}
			for _, pr := range problems {
				t.Error(pr)
			}
			if patched != 1 {
				t.Errorf("%d patches of the object, want 1", patched)
			}
			if tc.operator != nil && !played {
				t.Error("the gate should have waited for the operator")
			}
			live, err = client.Get(ctx, tc.obj.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := resource.FieldValues(live.Object, tc.fields)
			for k, v := range tc.after {
				if !resource.SameJSON(got[k], json.RawMessage(v)) {
					t.Errorf("%s is %s after the step, want %s", k, got[k], v)
				}
			}
			if diff == nil || diff.Remedy != string(tc.action) || len(diff.Fields) != len(tc.fields) || len(resource.DifferingFields(diff.PreImage, pre)) > 0 {
				t.Errorf("diff event: %+v", diff)
			}
			if s := mustLoad(t, opts.JournalPath).State().Step(step); !s.Complete() || s.Temporary || len(resource.DifferingFields(s.PreImage, pre)) > 0 || s.Mutations != 1 {
				t.Errorf("journal: %+v", s)
			}
		})
	}
}

// TestPreflightListsTheRemediationPermissions: a user with no rights is
// refused before anything changes, with every verb the remediation steps and
// their gates need listed together.
func TestPreflightListsTheRemediationPermissions(t *testing.T) {
	c, ctx := setup(t)
	b := applytest.NewPlan().DisableCVO().RelaxPDB(remedyNS, "web", "", applytest.NodesSettled("master-1"))
	b.Revert(b.LastID())
	b.ApproveCSR(planfile.CSRApproval{Name: "csr-x", SignerName: openshift.SignerKubeletClient, Username: openshift.NodeBootstrapper, CommonName: "system:node:worker-9"})
	for _, tc := range remedyCases()[1:4] {
		b.Change(tc.action, tc.obj, "", tc.patch, tc.fields, tc.gate)
	}
	p := b.RestoreCVO().Plan()
	cfg, err := c.env.UserConfig(kubetest.LimitedUser)
	if err != nil {
		t.Fatal(err)
	}
	res := runAs(t, ctx, cfg, p, defaults(t))
	if res.Outcome != apply.OutcomeRefused {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	for _, want := range []string{
		"patch poddisruptionbudgets.policy in namespace " + remedyNS,
		"get poddisruptionbudgets.policy in namespace " + remedyNS,
		"watch nodes (cluster-wide)",
		"update certificatesigningrequests.certificates.k8s.io/approval (cluster-wide)",
		"approve signers.certificates.k8s.io " + openshift.SignerKubeletClient + " (cluster-wide)",
		"list machines.machine.openshift.io in namespace openshift-machine-api",
		"watch certificatesigningrequests.certificates.k8s.io",
		"patch configmaps in namespace openshift-config",
		"patch clusterversions.config.openshift.io",
		"patch cloudcredentials.operator.openshift.io",
		"watch clusteroperators.config.openshift.io",
	} {
		if !strings.Contains(res.Message, want) {
			t.Errorf("refusal does not list %q:\n%s", want, res.Message)
		}
	}
}
