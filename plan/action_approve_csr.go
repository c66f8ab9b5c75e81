package plan

import "github.com/openshift-recover/recover/inspect"

// approve-csr (W13): approve one pending certificate signing request that a
// Node or Machine vouches for (inspect.CSRVouch), after apply re-checks live
// that it is still pending and still vouched for; a csr-issued gate follows.
func init() {
	register(&ActionSpec{
		Action:     ActionApproveCSR,
		Changes:    "CertificateSigningRequest status.conditions: Approved (the approval subresource)",
		Mutates:    true,
		Remedy:     true,
		RevertHint: "none: an approval cannot be withdrawn; the kubelet's certificate is issued",
		Gates:      []GateKind{GateCSRIssued},
		validate: func(p *Plan, i int, at problemFunc) {
			c := p.Steps[i].CSR
			if c == nil || c.Name == "" || c.SignerName == "" || c.Username == "" || c.CommonName == "" {
				at("approve-csr needs csr with name, signerName, username and commonName (what the request said when the plan was made)")
			}
		},
		check: func(m *model, i int, st *Step) error {
			a := st.CSR
			if a == nil {
				return m.fail(i, InvariantRemedies, "approve-csr without the request it approves")
			}
			if g := st.Gate; g == nil || g.Kind != GateCSRIssued || g.Object == nil || g.Object.Name != a.Name {
				return m.fail(i, InvariantGates, "approve-csr needs a %s gate on its request", GateCSRIssued)
			}
			c := snapshotCSR(m.s, a.Name)
			if c == nil {
				return m.fail(i, InvariantRemedies, "approves certificatesigningrequest/%s, which the snapshot does not hold: nothing vouches for it", a.Name)
			}
			v := inspect.CSRVouch(*c, m.s.Nodes, m.s.Machines)
			switch {
			case !v.OK:
				return m.fail(i, InvariantRemedies, "approves certificatesigningrequest/%s, which nothing vouches for (inspect.CSRVouch: %s)", a.Name, v.Reason)
			case a.UID != c.UID || a.SignerName != c.SignerName || a.Username != c.Username || a.CommonName != c.CommonName || a.Node != v.Node:
				return m.fail(i, InvariantRemedies, "approves certificatesigningrequest/%s as %s/%s/%s for node %q, but the snapshot's request says %s/%s/%s for node %q", a.Name,
					a.SignerName, a.Username, a.CommonName, a.Node, c.SignerName, c.Username, c.CommonName, v.Node)
			}
			return nil
		},
		note: func(_ *Plan, st *Step) string {
			if st.CSR == nil {
				return ""
			}
			return "approves CSR " + st.CSR.Name + " of " + orDash(st.CSR.Node)
		},
		hand: func(_ *Plan, st *Step) string {
			if st.CSR == nil {
				return ""
			}
			return "oc adm certificate approve " + st.CSR.Name
		},
	})
}
