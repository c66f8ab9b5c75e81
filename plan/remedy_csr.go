package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The CSR remedy (W13; openshift-docs "Approving the certificate signing
// requests for your machines": check the requestor and the hostname, then
// approve). recover approves only a request inspect.CSRVouch accepts: the
// machine approver's own rules (cluster-machine-approver pkg/controller/
// csr_check.go) against the snapshot's Nodes and Machines. apply asks CSRVouch
// again of the live request before it approves. Everything else is listed with
// CSRVouch's reason and never approved.

// csrNamed returns the snapshot's certificate signing request.
func (rs *remedyStage) csrNamed(name string) *inspect.CertificateSigningRequest {
	for i := range rs.s.CertificateSigningRequests {
		if rs.s.CertificateSigningRequests[i].Name == name {
			return &rs.s.CertificateSigningRequests[i]
		}
	}
	return nil
}

// csr plans the approval of a node's vouched-for requests and a wait for the node
// to be Ready when it was not; the others are refused.
func (rs *remedyStage) csr(fd inspect.Finding) {
	names := detailList(fd, "csrs")
	for _, n := range append(detailList(fd, "vouched"), detailList(fd, "unvouched")...) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	g := &remedyGroup{phase: phaseNodes}
	rem := remRef{}
	var approved []string
	by := ""
	for _, name := range names {
		c := rs.csrNamed(name)
		if c == nil {
			rs.refuse(fd, planfile.RemedyApproveCSR, "certificatesigningrequest/"+name, "", "the snapshot does not hold this request (were certificatesigningrequests collected?): nothing vouches for it, so it is not approved")
			continue
		}
		v := inspect.CSRVouch(*c, rs.s.Nodes, rs.s.Machines)
		if !v.OK {
			rs.refuse(fd, planfile.RemedyApproveCSR, "certificatesigningrequest/"+name, "",
				fmt.Sprintf("not approved: %s (requestor %s, signer %s); the machine approver's rules do not vouch for it, so approve it by hand only once you know who asked for it (oc adm certificate approve %s)", v.Reason, c.Username, c.SignerName, name))
			continue
		}
		what := "a new node's client certificate"
		switch {
		case c.SignerName == openshift.SignerKubeletServing:
			what = "its kubelet serving certificate"
		case c.Username != openshift.NodeBootstrapper:
			what = "the renewal of its client certificate"
		}
		rem.pre = append(rem.pre, len(g.steps))
		g.steps = append(g.steps, planfile.Step{Action: planfile.ActionApproveCSR, Remedy: planfile.RemedyApproveCSR, Finding: fd.Code,
			CSR: &planfile.CSRApproval{Name: c.Name, UID: c.UID, SignerName: c.SignerName, Username: c.Username, CommonName: c.CommonName, Node: v.Node, VouchedBy: v.By},
			Reason: fmt.Sprintf("Approve certificatesigningrequest/%s, %s for %s (signer %s, requested by %s): %s vouches for it by the machine approver's rules (cluster-machine-approver csr_check.go), which inspect.CSRVouch applies to the snapshot's Nodes and Machines; apply checks live that it is still pending and still vouched for before approving it. The gate waits for the certificate to be issued.",
				c.Name, what, orWord(v.Node, "the node"), c.SignerName, c.Username, v.By),
			Gate: &planfile.Gate{Kind: planfile.GateCSRIssued, Object: planfile.CSRRef(c.Name),
				Description: fmt.Sprintf("certificatesigningrequest/%s is approved and its certificate issued", c.Name)}})
		approved = append(approved, c.Name)
		by = v.By
	}
	if len(approved) == 0 {
		return
	}
	node := fd.Details["node"]
	summary := fmt.Sprintf("Approve %d pending certificate signing request(s) of %s that %s vouches for", len(approved), orWord(node, "a node"), by)
	if n := rs.node(node); n != nil && !inspect.NodeReady(*n).OK {
		rem.pre = append(rem.pre, len(g.steps))
		g.steps = append(g.steps, planfile.Step{Action: planfile.ActionWait, Remedy: planfile.RemedyApproveCSR, Finding: fd.Code,
			Reason: fmt.Sprintf("%s was not Ready (%s): with its certificates issued the kubelet can talk to the API again; wait until the node reports Ready (inspect.NodeReady) before anything that needs it (drains, pools) goes on.", node, strings.TrimPrefix(inspect.NodeReady(*n).String(), node+": ")),
			Gate:   &planfile.Gate{Kind: planfile.GateNodesReady, Nodes: []string{node}, Description: node + " is Ready"}})
		summary += ", and wait for the node to be Ready"
	}
	rem.r = remediation(planfile.RemedyApproveCSR, fd, summary+".")
	g.rems = append(g.rems, rem)
	rs.groups = append(rs.groups, g)
}
