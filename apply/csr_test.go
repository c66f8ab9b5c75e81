package apply_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
	"github.com/openshift-recover/recover/plan/planfile"
)

// kubeletCSR creates a client certificate request for node as its requestor
// makes it (the node renewing, or the node-bootstrapper for a new node) and
// returns it with the plan's approval of it.
func kubeletCSR(t testing.TB, ctx context.Context, c *lane, name, node, requestor string) (*certificatesv1.CertificateSigningRequest, planfile.CSRApproval) {
	t.Helper()
	groups := []string{openshift.NodesGroup}
	if requestor == openshift.NodeBootstrapper {
		groups = []string{"system:serviceaccounts", "system:serviceaccounts:openshift-machine-config-operator"}
	}
	csrs := c.Kube.CertificatesV1().CertificateSigningRequests()
	_ = csrs.Delete(ctx, name, metav1.DeleteOptions{})
	csr, err := c.CreateCSRAs(ctx, applytest.NodeCSR(name, node, openshift.SignerKubeletClient, requestor, groups, nil, nil), requestor, groups)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = csrs.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	if csr.Spec.Username != requestor {
		t.Fatalf("the CSR was recorded as requested by %q, not %q", csr.Spec.Username, requestor)
	}
	return csr, planfile.CSRApproval{Name: name, UID: string(csr.UID), SignerName: openshift.SignerKubeletClient, Username: requestor,
		CommonName: openshift.NodeUserPrefix + node, Node: node}
}

func csrPlan(approvals ...planfile.CSRApproval) *planfile.Plan {
	b := applytest.NewPlan().DisableCVO()
	for _, a := range approvals {
		b.ApproveCSR(a)
	}
	return b.RestoreCVO().Plan()
}

// issueWhileWaiting plays the signer when a csr-issued gate waits.
func issueWhileWaiting(t testing.TB, ctx context.Context, c *lane) func(apply.Event) {
	return func(ev apply.Event) {
		if ev.Type == apply.EventWaiting && ev.Gate != nil && ev.Gate.Kind == planfile.GateCSRIssued {
			name := strings.TrimPrefix(ev.Gate.Subject, "certificatesigningrequest/")
			if err := c.IssueCSR(ctx, name); err != nil {
				t.Error(err)
			}
		}
	}
}

func approvals(t testing.TB, ctx context.Context, c *lane, name string) []certificatesv1.CertificateSigningRequestCondition {
	t.Helper()
	csr, err := c.Kube.CertificatesV1().CertificateSigningRequests().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []certificatesv1.CertificateSigningRequestCondition
	for _, cond := range csr.Status.Conditions {
		if cond.Type == certificatesv1.CertificateApproved {
			out = append(out, cond)
		}
	}
	return out
}

// TestApproveVouchedCSRs approves a node's renewal (vouched for by the Node)
// and a new node's first request (vouched for by a Machine without a node),
// each journaled before the approval reaches the server, with a reason that
// names recover and the rule.
func TestApproveVouchedCSRs(t *testing.T) {
	c, ctx := setup(t)
	c.CreateMachine(t, ctx, "worker-new", "worker-new", "")
	_, renewal := kubeletCSR(t, ctx, c, "csr-renewal", "master-1", openshift.NodeUserPrefix+"master-1")
	_, bootstrap := kubeletCSR(t, ctx, c, "csr-bootstrap", "worker-new", openshift.NodeBootstrapper)
	p := csrPlan(renewal, bootstrap)
	opts := defaults(t)
	var mu sync.Mutex
	var problems []string
	hook := func(e faultproxy.Entry, stage faultproxy.Stage) bool {
		if !strings.HasSuffix(e.Path, "/approval") || e.Method != http.MethodPut {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		if last := lastRecord(t, opts.JournalPath); last.Type != journal.TypeIntent || last.Intent.Operation != "approve" || !strings.Contains(e.Path, last.Intent.Object.Name+"/approval") {
			problems = append(problems, fmt.Sprintf("%s: the journal's last record is %s %+v, not the approval's intent", e.Path, last.Type, last.Intent))
		}
		return false
	}
	proxy, _ := auditProxy(t, c, t.TempDir(), "csr", hook)
	e, err := apply.New(proxy.Config())
	if err != nil {
		t.Fatal(err)
	}
	vouched := map[string]string{}
	res, events := runWith(t, ctx, e, p, opts, func(ev apply.Event) {
		issueWhileWaiting(t, ctx, c)(ev)
		if ev.Type == apply.EventDiff && ev.Change != nil {
			vouched[ev.Step.ID] = ev.Change.VouchedBy
		}
	})
	if res.Outcome != apply.OutcomeCompleted {
		t.Fatalf("%s: %s\n%s", res.Outcome, res.Message, dump(events))
	}
	for _, pr := range problems {
		t.Error(pr)
	}
	for name, reason := range map[string]string{"csr-renewal": apply.ReasonApprovedRenewal, "csr-bootstrap": apply.ReasonApprovedNewNode} {
		conds := approvals(t, ctx, c, name)
		if len(conds) != 1 || conds[0].Reason != reason || !strings.Contains(conds[0].Message, "approved by recover") || conds[0].Status != corev1.ConditionTrue {
			t.Errorf("%s: approvals %+v, want one with reason %s", name, conds, reason)
		}
	}
	if v := vouched[p.Steps[1].ID]; !strings.Contains(v, "node master-1") {
		t.Errorf("the renewal is vouched for by its node: %q", v)
	}
	if v := vouched[p.Steps[2].ID]; !strings.Contains(v, "machine openshift-machine-api/worker-new") {
		t.Errorf("the new node's request is vouched for by its machine: %q", v)
	}
}

// TestApproveCSRRefusesWhatNobodyVouchesFor: a request from another requestor,
// one denied meanwhile, and a new node's request no machine matches are each
// refused (exit 12), and the request is left exactly as it was.
func TestApproveCSRRefusesWhatNobodyVouchesFor(t *testing.T) {
	c, ctx := setup(t)
	csrs := c.Kube.CertificatesV1().CertificateSigningRequests()
	for _, tc := range []struct {
		name string
		make func() planfile.CSRApproval
		want string
	}{
		{"another requestor", func() planfile.CSRApproval {
			// The plan was made for master-1's own renewal; the request now
			// is master-2's, asking for master-1's name.
			_, a := kubeletCSR(t, ctx, c, "csr-other", "master-1", openshift.NodeUserPrefix+"master-2")
			a.Username = openshift.NodeUserPrefix + "master-1"
			return a
		}, `requested by "system:node:master-2", not "system:node:master-1"`},
		{"already denied", func() planfile.CSRApproval {
			csr, a := kubeletCSR(t, ctx, c, "csr-denied", "master-1", openshift.NodeUserPrefix+"master-1")
			csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue, Reason: "AdminDenied"})
			if _, err := csrs.UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			return a
		}, "is Denied: recover never approves it"},
		{"no vouching machine", func() planfile.CSRApproval {
			_, a := kubeletCSR(t, ctx, c, "csr-ghost", "worker-ghost", openshift.NodeBootstrapper)
			return a
		}, "no machine without a node has InternalDNS address worker-ghost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := c.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			a := tc.make()
			before, err := csrs.Get(ctx, a.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			res, events := run(t, ctx, c, csrPlan(a), defaults(t))
			if res.Outcome != apply.OutcomeStepRefused || !strings.Contains(res.Message, tc.want) {
				t.Fatalf("%s: %s\n%s", res.Outcome, res.Message, dump(events))
			}
			after, err := csrs.Get(ctx, a.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if after.ResourceVersion != before.ResourceVersion {
				t.Errorf("the refused request was changed: %+v", after.Status)
			}
			if s := mustLoad(t, res.Journal).State().Step(csrPlan(a).Steps[1].ID); s.Intents != 0 {
				t.Errorf("a refused approval journals no intent: %+v", s)
			}
		})
	}
}

// TestApproveCSRUnderFaults answers 500, 503 and 429 and resets connections
// before and after the server acted on the approval: the request ends approved
// exactly once, and issued.
func TestApproveCSRUnderFaults(t *testing.T) {
	c, ctx := setup(t)
	injected := 0
	for seed := 1; seed <= faultproxy.Runs(3); seed++ {
		if err := c.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("csr-faults-%d", seed)
		_, a := kubeletCSR(t, ctx, c, name, "master-1", openshift.NodeUserPrefix+"master-1")
		p := csrPlan(a)
		proxy, err := faultproxy.Start(faultproxy.Options{Upstream: c.env.Config, Seed: uint64(seed),
			Filter: func(r *http.Request) bool { return strings.Contains(r.URL.Path, "/certificatesigningrequests/"+name) },
			Rates: map[faultproxy.Kind]float64{faultproxy.ServerError: 0.15, faultproxy.Unavailable: 0.15, faultproxy.Throttle: 0.1,
				faultproxy.ResetBefore: 0.1, faultproxy.ResetAfter: 0.2}})
		if err != nil {
			t.Fatal(err)
		}
		e, err := apply.New(proxy.Config())
		if err != nil {
			t.Fatal(err)
		}
		opts := defaults(t)
		completed := false
		for attempt := 1; attempt <= 25 && !completed; attempt++ {
			res, events := runWith(t, ctx, e, p, opts, issueWhileWaiting(t, ctx, c))
			switch {
			case res.Outcome == apply.OutcomeCompleted:
				completed = true
			case !res.Outcome.Resumable():
				t.Fatalf("seed %d: %s: %s\n%s", seed, res.Outcome, res.Message, dump(events))
			}
			opts.Resume = true
		}
		injected += proxy.Stats().Injected()
		proxy.Close()
		if !completed {
			t.Fatalf("seed %d: never completed", seed)
		}
		if conds := approvals(t, ctx, c, name); len(conds) != 1 || conds[0].Reason != apply.ReasonApprovedRenewal {
			t.Errorf("seed %d: want exactly one approval, got %+v", seed, conds)
		}
	}
	if injected == 0 {
		t.Fatal("no fault was injected: the test proves nothing")
	}
}
