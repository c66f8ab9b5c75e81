package apply

import (
	"context"
	"fmt"

	machinev1beta1 "github.com/openshift/api/machine/v1beta1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift-recover/recover/apply/internal/retry"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

var machinesGVK = schema.GroupVersionKind{Group: "machine.openshift.io", Version: "v1beta1", Kind: "Machine"}

// The reasons recover writes on the Approved condition: recover, and the
// machine approver's rule that vouched for the request.
const (
	ReasonApprovedNewNode      = "RecoverApprovedNewNodeClient"
	ReasonApprovedRenewal      = "RecoverApprovedNodeClientRenewal"
	ReasonApprovedServing      = "RecoverApprovedNodeServing"
	approvalMessageFormat      = "approved by recover (plan step %s) by the machine approver's rule: vouched for by %s"
	approvalDiffFormat         = "status.conditions: + Approved=True, reason %s (vouched for by %s)\n"
	approvalRefusedNeverFormat = "%s is %s: recover never approves it"
)

// approvalReason names the rule a vouched request met.
func approvalReason(c inspect.CertificateSigningRequest) string {
	switch {
	case c.SignerName == openshift.SignerKubeletServing:
		return ReasonApprovedServing
	case c.Username == openshift.NodeBootstrapper:
		return ReasonApprovedNewNode
	}
	return ReasonApprovedRenewal
}

// prepareApproveCSR prepares an approve-csr step: the request is read live
// and reduced with inspect's converter; it is approved only if it is still
// pending, is the one the plan names (UID, signer, requestor, common name), and
// inspect.CSRVouch still vouches for it against the live Nodes and Machines.
// Anything else refuses the step: recover never approves what it cannot vouch for.
func (r *run) prepareApproveCSR(ctx context.Context, s *planfile.Step) (*mutation, error) {
	want := s.CSR
	client := r.e.kube.CertificatesV1().CertificateSigningRequests()
	ref := journal.ObjectRef{APIVersion: "certificates.k8s.io/v1", Kind: "CertificateSigningRequest", Name: want.Name}
	var live *certificatesv1.CertificateSigningRequest
	err := retry.Do(ctx, func() (err error) {
		live, err = client.Get(ctx, want.Name, metav1.GetOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil, refuse(s, "%s does not exist (deleted since the plan was made; the kubelet makes a new request): make a new plan with 'recover plan'", ref.String())
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", ref.String(), err)
	}
	c := inspect.CertificateSigningRequestFromAPI(live)
	m := &mutation{op: "approve", object: ref.String(), remedy: s.Remedy}
	switch c.State {
	case inspect.CSRStateApproved, inspect.CSRStateIssued:
		// Approved already: by this step before a crash, or by the machine
		// approver meanwhile. Nothing to do; the gate waits for the certificate.
		m.op, m.noop, m.note = string(resource.OpUnchanged), true, ref.String()+" is "+c.State+" already"
		for _, cond := range live.Status.Conditions {
			if cond.Type == certificatesv1.CertificateApproved {
				m.note += " (reason " + cond.Reason + ")"
			}
		}
		return m, nil
	case inspect.CSRStateDenied, inspect.CSRStateFailed:
		return nil, refuse(s, approvalRefusedNeverFormat, ref.String(), c.State)
	}
	switch {
	case want.UID != "" && c.UID != want.UID:
		return nil, refuse(s, "%s has UID %s, not the plan's %s: it is another request under the same name; make a new plan", ref.String(), c.UID, want.UID)
	case c.SignerName != want.SignerName:
		return nil, refuse(s, "%s now asks signer %s, not %s as when the plan was made", ref.String(), c.SignerName, want.SignerName)
	case c.Username != want.Username:
		return nil, refuse(s, "%s was requested by %q, not %q as the plan says: another requestor", ref.String(), c.Username, want.Username)
	case c.CommonName != want.CommonName:
		return nil, refuse(s, "%s asks for CN %q, not %q as the plan says", ref.String(), c.CommonName, want.CommonName)
	}
	nodes, machines, err := r.vouchers(ctx)
	if err != nil {
		return nil, err
	}
	v := inspect.CSRVouch(c, nodes, machines)
	if !v.OK {
		return nil, refuse(s, "nobody vouches for %s any more (the machine approver's rule): %s", ref.String(), v.Reason)
	}
	reason := approvalReason(c)
	m.vouchedBy = v.By
	m.diff = fmt.Sprintf(approvalDiffFormat, reason, v.By)
	m.intent = journal.Intent{Operation: "approve", Object: ref, LiveUID: c.UID, LiveResourceVersion: live.ResourceVersion,
		Before: c.State, After: inspect.CSRStateApproved, Diff: m.diff}
	approval := func() *certificatesv1.CertificateSigningRequest {
		out := live.DeepCopy()
		out.Status.Conditions = append(out.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
			Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: reason,
			Message: fmt.Sprintf(approvalMessageFormat, s.ID, v.By), LastUpdateTime: metav1.Now(),
		})
		return out
	}
	m.dryRun = func(ctx context.Context) error {
		_, err := client.UpdateApproval(ctx, want.Name, approval(), metav1.UpdateOptions{FieldManager: "recover", DryRun: []string{metav1.DryRunAll}})
		return err
	}
	m.commit = func(ctx context.Context) (*journal.Outcome, error) {
		// The object carries the resourceVersion it was vouched for at: a
		// request changed since is a conflict, prepared (and vouched) again.
		out, err := client.UpdateApproval(ctx, want.Name, approval(), metav1.UpdateOptions{FieldManager: "recover"})
		if err != nil {
			return nil, fmt.Errorf("approving %s: %w", ref.String(), err)
		}
		return &journal.Outcome{Result: "approved", UID: string(out.UID), ResourceVersion: out.ResourceVersion}, nil
	}
	return m, nil
}

// vouchers reads the live Nodes and Machines, reduced with inspect's
// converters; a cluster without the Machine API has no Machines.
func (r *run) vouchers(ctx context.Context) ([]inspect.Node, []inspect.Machine, error) {
	var nodeList *corev1.NodeList
	err := retry.Do(ctx, func() (err error) {
		nodeList, err = r.e.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("listing nodes: %w", err)
	}
	nodes := make([]inspect.Node, 0, len(nodeList.Items))
	for i := range nodeList.Items {
		nodes = append(nodes, inspect.NodeFromAPI(&nodeList.Items[i]))
	}
	mapping, err := r.e.mapper.Mapping(machinesGVK)
	if err != nil {
		return nodes, nil, nil // no Machine API (UPI): only Nodes vouch
	}
	var list *unstructured.UnstructuredList
	err = retry.Do(ctx, func() (err error) {
		list, err = r.e.dyn.Resource(mapping.Resource).Namespace(openshift.MachineAPINamespace).List(ctx, metav1.ListOptions{})
		return err
	})
	if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
		return nodes, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing machines: %w", err)
	}
	machines := make([]inspect.Machine, 0, len(list.Items))
	for i := range list.Items {
		var m machinev1beta1.Machine
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, &m); err != nil {
			return nil, nil, fmt.Errorf("reading machine %s: %w", list.Items[i].GetName(), err)
		}
		machines = append(machines, inspect.MachineFromAPI(&m))
	}
	return nodes, machines, nil
}
