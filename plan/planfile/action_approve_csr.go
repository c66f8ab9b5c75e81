package planfile

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
		note: func(_ *Plan, st *Step) string {
			if st.CSR == nil {
				return ""
			}
			return "approves CSR " + st.CSR.Name + " of " + OrDash(st.CSR.Node)
		},
		hand: func(_ *Plan, st *Step) string {
			if st.CSR == nil {
				return ""
			}
			return "oc adm certificate approve " + st.CSR.Name
		},
	})
}
