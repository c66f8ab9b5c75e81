package apply

import (
	"context"

	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// approve-csr: approve one CSR after checking live that it is still pending
// and still vouched for (csr.go prepareApproveCSR).
func init() {
	registerExecutor(planfile.ActionApproveCSR, execFuncs{
		accessFn: func(_ *planfile.Plan, s *planfile.Step, mapKind KindMapper) ([]Access, error) {
			out := verbs("certificates.k8s.io", "certificatesigningrequests", "", "get")
			out = append(out, Access{Verb: "update", Group: "certificates.k8s.io", Resource: "certificatesigningrequests", Subresource: "approval"})
			if s.CSR != nil && s.CSR.SignerName != "" {
				// The approval admission plugin checks approve on the signer.
				out = append(out, Access{Verb: "approve", Group: "certificates.k8s.io", Resource: "signers", Name: s.CSR.SignerName})
			}
			// The vouching check reads the live Nodes and Machines.
			out = append(out, verbs("", "nodes", "", "list")...)
			if gvr, _, err := mapKind("machine.openshift.io/v1beta1", "Machine"); err == nil {
				out = append(out, verbs(gvr.Group, gvr.Resource, openshift.MachineAPINamespace, "list")...)
			}
			return out, nil
		},
		prepareFn: func(ctx context.Context, r *run, s *planfile.Step) (*mutation, error) {
			return r.prepareApproveCSR(ctx, s)
		},
	})
}
