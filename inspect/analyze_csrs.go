package inspect

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"
)

// csrs reports the pending certificate signing requests, one finding per node
// they are for (W13). They block when the node is NotReady or has not joined yet:
// the kubelet cannot talk to the API server (or serve) until one is approved.
func (a *analysis) csrs() {
	s := a.s
	if !s.collectedIn(keyCSRs, "") {
		return
	}
	nodesKnown := s.collectedIn(ResNodes.Key(), "")
	machinesKnown := s.collectedIn(keyMachines, openshift.MachineAPINamespace)
	type group struct {
		node                      string
		csrs, vouched, unvouched  []string
		signers                   map[string]bool
		ev                        []Evidence
		bootstrap, serving, renew int
	}
	groups := map[string]*group{}
	for _, c := range s.CertificateSigningRequests {
		if c.State != CSRStatePending {
			continue
		}
		v := CSRVouch(c, s.Nodes, s.Machines)
		key := "node/" + v.Node
		if v.Node == "" {
			key = "certificatesigningrequest/" + c.Name
		}
		g := groups[key]
		if g == nil {
			g = &group{node: v.Node, signers: map[string]bool{}}
			groups[key] = g
		}
		g.csrs = append(g.csrs, c.Name)
		g.signers[c.SignerName] = true
		switch {
		case c.SignerName == openshift.SignerKubeletServing:
			g.serving++
		case c.Username == openshift.NodeBootstrapper:
			g.bootstrap++
		default:
			g.renew++
		}
		created := "creation time unknown"
		if !c.Created.IsZero() {
			created = "created " + c.Created.UTC().Format(time.RFC3339)
		}
		g.ev = append(g.ev, claim(fmt.Sprintf("%s: signer %s, requestor %s, subject %s, %s", c.Name, c.SignerName, c.Username, orNone(c.CommonName), created), "certificatesigningrequest/"+c.Name))
		if v.OK {
			g.vouched = append(g.vouched, c.Name)
			g.ev = append(g.ev, reality(c.Name+" is vouched for by "+v.By, ""))
		} else {
			g.unvouched = append(g.unvouched, c.Name)
			g.ev = append(g.ev, reality(c.Name+" is not vouched for: "+v.Reason, ""))
		}
	}
	for _, subject := range sortedKeys(groups) {
		g := groups[subject]
		sort.Strings(g.csrs)
		sort.Strings(g.vouched)
		sort.Strings(g.unvouched)
		var node *Node
		if g.node != "" {
			node = findNode(s.Nodes, g.node)
		}
		blocks := false
		var state string
		switch {
		case g.node == "":
			state = "a request that names no node"
		case !nodesKnown:
			state = "node " + g.node + " (nodes were not collected, so whether it is Ready is unknown)"
		case node == nil:
			state, blocks = "node "+g.node+", which has not joined the cluster yet", true
		case !NodeReady(*node).OK:
			state, blocks = fmt.Sprintf("node %s, which is NotReady (Ready=%s)", g.node, orNone(node.Ready)), true
		default:
			state = "node " + g.node + ", which is Ready"
		}
		var kinds []string
		for _, k := range []struct {
			n    int
			what string
		}{{g.bootstrap, "bootstrap client"}, {g.renew, "client renewal"}, {g.serving, "serving"}} {
			if k.n > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", k.n, k.what))
			}
		}
		next := "none is vouched for by a Node or Machine: check each requestor and hostname before `oc adm certificate approve` (W13)"
		if len(g.vouched) > 0 {
			next = fmt.Sprintf("%d of them match a Node or Machine by the machine approver's rule and may be approved (recover plan approves exactly those); check the others' requestor and hostname (W13)", len(g.vouched))
		}
		msg := fmt.Sprintf("%d certificate signing request(s) (%s) of %s, are pending: %s.", len(g.csrs), strings.Join(kinds, ", "), state, next)
		if !blocks && node != nil && g.serving > 0 {
			msg += " Until a serving certificate is issued, oc logs, exec and port-forward to the node fail."
		}
		ev := g.ev
		if !machinesKnown {
			ev = append(ev, rule("Machines were not collected: a new node's bootstrap request cannot be vouched for without them"))
		}
		ev = append(ev, rule("the machine approver approves a bootstrap request only for a Machine without a node whose InternalDNS is the node name, created at most 2 hours earlier, and a serving request only when every name matches the Machine's addresses (cluster-machine-approver pkg/controller/csr_check.go)"))
		sev, class := SeverityWarning, ClassInforms
		if blocks {
			sev, class = SeverityError, ClassBlocks
		}
		a.add(Finding{Code: CodeCSRPending, Severity: sev, Class: class, Subject: subject, Message: msg, Evidence: ev,
			Details: map[string]string{
				"node": g.node, "csrs": strings.Join(g.csrs, ","), "vouched": strings.Join(g.vouched, ","),
				"unvouched": strings.Join(g.unvouched, ","), "signer": strings.Join(sortedKeys(g.signers), ","),
			}})
	}
}
