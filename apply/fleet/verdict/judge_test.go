package verdict

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/plan/planfile"
)

var fixedNow = func() time.Time { return time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC) }

// collectExample reads an example must-gather of the repository.
func collectExample(t testing.TB, name string) *inspect.Snapshot {
	t.Helper()
	s, err := mustgather.New(filepath.Join("..", "..", "..", "examples", name, "must-gather")).Collect(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// TestJudgeExamples holds every example wedge to its verdict: whether it is
// wedged, its first cause, and the planner's answer with its remedies and the
// --accept names it waits for.
func TestJudgeExamples(t *testing.T) {
	tests := []struct {
		example   string
		wedged    bool
		cause1    string
		answer    Answer
		remedies  []string
		accept    []string
		withPlan  bool
		acceptArg []string
	}{
		{"pdb-blocks-drain", true, "DrainBlockedByPDB poddisruptionbudget/ci/deck", AnswerPlan, []string{planfile.RemedyRelaxPDB}, nil, true, nil},
		{"paused-pool", true, "PoolPaused machineconfigpool/master", AnswerPlan, []string{planfile.RemedyUnpausePool}, nil, true, nil},
		{"csr-pending", true, "CSRPending node/worker-2", AnswerPlan, []string{planfile.RemedyApproveCSR}, nil, true, nil},
		{"guard-pdb", true, "GuardPDBBlocksDrain poddisruptionbudget/openshift-etcd/etcd-guard-pdb", AnswerRefused, []string{planfile.RemedyGuardPDB}, nil, false, nil},
		{"admin-ack-required", true, "AdminAckRequired admingate/ack-4.18-kube-1.32-api-removals-in-4.19", AnswerNeedsAccept, []string{"admin-ack"}, []string{"admin-ack:ack-4.18-kube-1.32-api-removals-in-4.19"}, false, nil},
		{"static-pod-stuck", true, "StaticPodRolloutStuck node/master-1", AnswerNeedsAccept, []string{planfile.RemedyForceRedeployment}, []string{"force-redeployment:kube-apiserver"}, false, nil},
		{"upgradeable-overrides", true, "UnmanagedOverrides clusterversion/version", AnswerNeedsAccept, []string{"remove-overrides"}, []string{"remove-overrides"}, false, nil},
		{"cloud-credential-manual", true, "UpgradeableFalse clusteroperator/cloud-credential", AnswerNeedsAccept, []string{"upgradeable-to"}, []string{"upgradeable-to:4.15"}, false, nil},
		{"reconciled-4.3-to-4.4", true, "UpdateClaimedCompleteButMixed clusterversion/version", AnswerNewRelease, nil, nil, false, nil},
		{"conditional-risk", true, "ConditionalRiskOnTarget clusterversion/version", AnswerNewRelease, nil, nil, false, nil},
		{"cvo-stuck-on-webhook", true, "CVOStuckOnManifest deployment/openshift-monitoring/cluster-monitoring-operator", AnswerAdvice, nil, nil, false, nil},
		{"release-not-accepted", true, "ReleaseNotAccepted clusterversion/version", AnswerAdvice, nil, nil, false, nil},
		{"certificate-expiry", true, "CertificateExpiry secret/openshift-kube-apiserver-operator/kube-apiserver-to-kubelet-signer", AnswerAdvice, nil, nil, false, nil},
		// With the admin's promise named, the same wedge gets a plan.
		{"upgradeable-overrides", true, "UnmanagedOverrides clusterversion/version", AnswerPlan, []string{"remove-overrides"}, nil, true, []string{"remove-overrides"}},
	}
	for _, tt := range tests {
		t.Run(tt.example, func(t *testing.T) {
			v, p, err := Judge(context.Background(), collectExample(t, tt.example), Options{Accept: tt.acceptArg, Wave: "w1", Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if v.Wedged != tt.wedged || v.Settled == tt.wedged {
				t.Errorf("wedged %v settled %v, want wedged %v", v.Wedged, v.Settled, tt.wedged)
			}
			if len(v.Causes) == 0 || v.Causes[0].Code+" "+v.Causes[0].Subject != tt.cause1 {
				t.Errorf("causes %+v, want the first %q", v.Causes, tt.cause1)
			}
			if v.Remedy.Answer != tt.answer || !slices.Equal(v.Remedy.Remedies, tt.remedies) || !slices.Equal(v.Remedy.Accept, tt.accept) {
				t.Errorf("remedy %+v, want %s %v accept %v", v.Remedy, tt.answer, tt.remedies, tt.accept)
			}
			if (p != nil) != tt.withPlan || (v.Remedy.PlanDigest != "") != tt.withPlan {
				t.Errorf("plan %v digest %q, want a plan: %v", p != nil, v.Remedy.PlanDigest, tt.withPlan)
			}
			if p != nil {
				var doc bytes.Buffer
				if err := planfile.Encode(&doc, p); err != nil {
					t.Fatal(err)
				}
				if d := planfile.Digest(doc.Bytes()); d != v.Remedy.PlanDigest {
					t.Errorf("the verdict's plan digest %s is not the plan document's %s", v.Remedy.PlanDigest, d)
				}
			}
			if len(tt.acceptArg) > 0 && !slices.Equal(v.Remedy.Accepted, tt.acceptArg) {
				t.Errorf("accepted %v, want %v", v.Remedy.Accepted, tt.acceptArg)
			}
			if v.Wave != "w1" || v.FormatVersion != FormatVersion || v.Signature != Signature(v) || len(v.Signature) != 12 {
				t.Errorf("wave %q format %q signature %q", v.Wave, v.FormatVersion, v.Signature)
			}
		})
	}
}

func TestJudgeRefusesABadAcceptName(t *testing.T) {
	if _, _, err := Judge(context.Background(), collectExample(t, "pdb-blocks-drain"), Options{Accept: []string{"force-redeployment:"}}); err == nil {
		t.Fatal("a malformed --accept name was taken")
	}
	if _, _, err := Judge(context.Background(), nil, Options{}); err == nil {
		t.Fatal("no snapshot was judged")
	}
}

// TestNotWedgedIsSettled: a cluster nothing holds has the answer none and is
// settled (the release-not-accepted example with its target withdrawn and the
// release accepted).
func TestNotWedgedIsSettled(t *testing.T) {
	s := collectExample(t, "release-not-accepted")
	cv := s.ClusterVersion
	cv.Spec.DesiredUpdate = nil
	for i := range cv.Status.Conditions {
		if cv.Status.Conditions[i].Type == configv1.ClusterStatusConditionType("ReleaseAccepted") {
			cv.Status.Conditions[i].Status = configv1.ConditionTrue
		}
	}
	inspect.Refresh(s)
	for _, w := range s.Wedges {
		if w.Class == inspect.ClassBlocks {
			t.Fatalf("the edited snapshot still has a blocking wedge %s; the edit no longer frees it", w.Code)
		}
	}
	v, p, err := Judge(context.Background(), s, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if v.Wedged || !v.Settled || len(v.Causes) != 0 || p != nil || v.Remedy.Answer != AnswerNone {
		t.Errorf("verdict %+v plan %v, want not wedged, settled, answer none", v, p != nil)
	}
}
