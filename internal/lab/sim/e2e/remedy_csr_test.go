package e2e_test

import (
	"fmt"
	"slices"
	"testing"

	machinev1beta1 "github.com/openshift/api/machine/v1beta1"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The approve-csr remedy on examples/csr-pending: worker-2's kubelet waits for
// its client certificate (csr-cn9pf, vouched for by its Machine); csr-cz4jx,
// from a kubelet calling itself localhost, matches nothing and must stay
// pending.

const (
	vouchedCSR   = "csr-cn9pf"
	unvouchedCSR = "csr-cz4jx"
)

// csrState is a request's approval state: Pending, Approved, Approved+Issued,
// Denied or Failed.
func (c *cluster) csrState(name string) string {
	c.t.Helper()
	csr, err := kubernetes.NewForConfigOrDie(c.cfg).CertificatesV1().CertificateSigningRequests().Get(c.ctx, name, metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	state := "Pending"
	for _, cond := range csr.Status.Conditions {
		if cond.Status == corev1.ConditionTrue {
			switch cond.Type {
			case certificatesv1.CertificateApproved:
				state = "Approved"
			case certificatesv1.CertificateDenied, certificatesv1.CertificateFailed:
				return string(cond.Type)
			}
		}
	}
	if state == "Approved" && len(csr.Status.Certificate) > 0 {
		state += "+Issued"
	}
	return state
}

// csrWedge loads the scenario and checks what inspect finds: worker-2's
// request pending and vouched for, the stray one not.
func csrWedge(t *testing.T) *cluster {
	t.Helper()
	c := load(t, "csr-pending")
	snap, wedge := c.inspectCLI()
	if want := "1. BLOCKS CSRPending node/worker-2"; wedge != want {
		t.Errorf("the wedge summary's first line is %q, want %q", wedge, want)
	}
	var found bool
	for _, f := range snap.FindingsWithCode(inspect.CodeCSRPending) {
		if f.Subject == "node/worker-2" {
			found = true
			if f.Details["vouched"] != vouchedCSR || f.Class != inspect.ClassBlocks {
				t.Errorf("worker-2's CSRPending: class %s, details %v; want blocks-update, vouched %s", f.Class, f.Details, vouchedCSR)
			}
		}
	}
	if !found {
		t.Errorf("inspect does not find worker-2's pending CSR: %v", findingCodes(snap))
	}
	for _, n := range []string{vouchedCSR, unvouchedCSR} {
		if s := c.csrState(n); s != "Pending" {
			t.Fatalf("%s is %s before the plan, want Pending", n, s)
		}
	}
	return c
}

// TestRemedyApproveCSR is the approve-csr remedy end to end: recover plan
// approves only the vouched request and refuses the other with CSRVouch's
// reason, recover apply --yes completes, the certificate is issued, worker-2
// registers, is Ready and linked to its Machine, the worker pool counts it,
// csr-cz4jx is still pending, and the run changed nothing else (the CVO's
// Deployment is as it was).
func TestRemedyApproveCSR(t *testing.T) {
	t.Parallel()
	c := csrWedge(t)
	objs := c.objects(cvoDeployment, csrPath(vouchedCSR))
	p, path := c.planCLI()
	if p.Mode != planfile.ModeRemediation {
		t.Errorf("plan mode %q, want remediation", p.Mode)
	}
	var approved []string
	for _, s := range p.Steps {
		if s.Action == planfile.ActionApproveCSR {
			approved = append(approved, s.CSR.Name)
			if s.Gate == nil || s.Gate.Kind != planfile.GateCSRIssued {
				t.Errorf("step %s has no csr-issued gate: %+v", s.ID, s.Gate)
			}
		}
	}
	if !slices.Equal(approved, []string{vouchedCSR}) {
		t.Errorf("the plan approves %v, want only %s; steps %v", approved, vouchedCSR, stepShape(p))
	}
	refused := false
	for _, r := range p.Refused {
		if r.Subject == "certificatesigningrequest/"+unvouchedCSR && r.Remedy == planfile.RemedyApproveCSR && r.Accept == "" && r.Reason != "" {
			refused = true
		}
	}
	if !refused {
		t.Errorf("the plan does not refuse %s with a reason: %+v", unvouchedCSR, p.Refused)
	}

	audit, journalPath := c.applyAudited(p, path)

	if s := c.csrState(vouchedCSR); s != "Approved+Issued" {
		t.Errorf("%s after the run: %s, want approved and issued", vouchedCSR, s)
	}
	if s := c.csrState(unvouchedCSR); s != "Pending" {
		t.Errorf("%s after the run: %s; recover must never approve a request nobody vouches for", unvouchedCSR, s)
	}
	kube := kubernetes.NewForConfigOrDie(c.cfg)
	c.eventually("worker-2 is Ready", func() (bool, string, error) {
		n, err := kube.CoreV1().Nodes().Get(c.ctx, "worker-2", metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				return cond.Status == corev1.ConditionTrue, string(cond.Status) + " " + cond.Reason, nil
			}
		}
		return false, "no Ready condition", nil
	})
	dyn := dynamic.NewForConfigOrDie(c.cfg)
	machines, err := dyn.Resource(machinev1beta1.GroupVersion.WithResource("machines")).Namespace("openshift-machine-api").List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	linked := false
	for _, u := range machines.Items {
		var m machinev1beta1.Machine
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &m); err != nil {
			t.Fatal(err)
		}
		if m.Status.NodeRef != nil && m.Status.NodeRef.Name == "worker-2" {
			linked = true
		}
	}
	if !linked {
		t.Errorf("no Machine's nodeRef names worker-2 after the run")
	}
	mcfg := mcfgclient.NewForConfigOrDie(c.cfg)
	c.eventually("the worker pool counts worker-2", func() (bool, string, error) {
		p, err := mcfg.MachineconfigurationV1().MachineConfigPools().Get(c.ctx, "worker", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return p.Status.MachineCount == 3 && p.Status.UpdatedMachineCount == 3 && p.Status.ReadyMachineCount == 3,
			fmt.Sprintf("%d machines, %d updated, %d ready", p.Status.MachineCount, p.Status.UpdatedMachineCount, p.Status.ReadyMachineCount), nil
	})
	c.assertFindingsGone()
	c.eventually("inspect no longer finds worker-2's CSR pending", func() (bool, string, error) {
		for _, f := range c.snapshot().FindingsWithCode(inspect.CodeCSRPending) {
			if f.Subject == "node/worker-2" {
				return false, f.Message, nil
			}
		}
		return true, "", nil
	})
	c.assertChangedOnly(audit.Log(), objs, nil)

	s := c.journalCLI(journalPath)
	if s.State != "finished" || len(s.Changes) != 1 {
		t.Fatalf("recover journal: state %s, changes %+v", s.State, s.Changes)
	}
	if ch := s.Changes[0]; ch.Action != string(planfile.ActionApproveCSR) || ch.Temporary || ch.State != "made" || ch.Object == nil || ch.Object.Name != vouchedCSR {
		t.Errorf("recover journal's change: %+v, want the lasting approval of %s", ch, vouchedCSR)
	}
}
