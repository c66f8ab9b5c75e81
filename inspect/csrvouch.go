package inspect

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"
)

// Vouch says whether a pending certificate signing request is one recover may
// approve: who vouches for it, or why nobody does.
type Vouch struct {
	// OK is true when a Node or Machine of the snapshot matches the request.
	OK bool `json:"ok"`
	// Node is the node the request is for ("" when its subject names none).
	Node string `json:"node,omitempty"`
	// By says what matched ("machine openshift-machine-api/worker-3 (InternalDNS
	// worker-3, no node yet)"); Reason says why nothing did.
	By     string `json:"by,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Machine approver timing (cluster-machine-approver pkg/controller/csr_check.go
// maxMachineClockSkew, maxMachineDelta): a new node's client CSR must be created
// between 10 seconds before and 2 hours after its Machine.
const (
	csrMachineClockSkew = 10 * time.Second
	csrMachineDelta     = 2 * time.Hour
)

// CSRVouch applies the machine approver's rules (cluster-machine-approver
// pkg/controller/csr_check.go) to a pending CSR against the snapshot's Nodes and
// Machines, and accepts the two requests a running node makes for itself:
//
//   - a new node's client certificate (signer kube-apiserver-client-kubelet),
//     requested by the node-bootstrapper service account with CN
//     system:node:<name>, organization system:nodes and no alternative names,
//     for a node that does not exist yet, is vouched for by a Machine without a
//     nodeRef whose InternalDNS address is <name> and which was created at most 2
//     hours (and at least 10 seconds after) before the request;
//   - a node's renewal of its client certificate, requested by system:node:<name>
//     itself with the same CN, is vouched for by the existing Node <name>;
//   - a serving certificate (signer kubelet-serving) requested by
//     system:node:<name> in group system:nodes with that CN is vouched for by
//     the Machine whose nodeRef is <name>, or else by the Node <name>, when every
//     DNS name is one of its InternalDNS, ExternalDNS or Hostname addresses and
//     every IP one of its InternalIP or ExternalIP addresses.
//
// Anything else is not vouched for, with the first rule it breaks. apply asks the
// same question of the live CSR before it approves one.
func CSRVouch(c CertificateSigningRequest, nodes []Node, machines []Machine) Vouch {
	v := Vouch{}
	name, isNode := strings.CutPrefix(c.CommonName, openshift.NodeUserPrefix)
	if isNode {
		v.Node = name
	}
	fail := func(format string, args ...any) Vouch {
		v.Reason = fmt.Sprintf(format, args...)
		return v
	}
	switch {
	case c.ParseError != "":
		return fail("its request cannot be read: %s", c.ParseError)
	case c.State != CSRStatePending:
		return fail("it is %s, not pending", c.State)
	case !isNode || name == "":
		return fail("its subject %q is not system:node:<name>", c.CommonName)
	case !slices.Contains(c.Organizations, openshift.NodesGroup):
		return fail("its subject's organizations %v do not include %s", c.Organizations, openshift.NodesGroup)
	}
	node := findNode(nodes, name)
	switch c.SignerName {
	case openshift.SignerKubeletClient:
		if len(c.DNSNames)+len(c.IPAddresses) > 0 {
			return fail("a kubelet client certificate request must carry no alternative names")
		}
		switch c.Username {
		case openshift.NodeBootstrapper:
			if node != nil {
				return fail("node %s already exists: a bootstrap request for it is not its own (the machine approver refuses it too)", name)
			}
			for i := range machines {
				m := &machines[i]
				if m.NodeRef != "" || !hasAddress(m.Addresses, name, "InternalDNS") {
					continue
				}
				if !m.Created.IsZero() && !c.Created.IsZero() &&
					(c.Created.Before(m.Created.Add(-csrMachineClockSkew)) || c.Created.After(m.Created.Add(csrMachineDelta))) {
					return fail("machine %s/%s matches %s but was created %s and the request %s; the machine approver wants a request from 10s before to 2h after its Machine", m.Namespace, m.Name, name, m.Created.UTC().Format(time.RFC3339), c.Created.UTC().Format(time.RFC3339))
				}
				v.OK, v.By = true, fmt.Sprintf("machine %s/%s (InternalDNS %s, no node yet)", m.Namespace, m.Name, name)
				return v
			}
			return fail("no machine without a node has InternalDNS address %s", name)
		case openshift.NodeUserPrefix + name:
			if node == nil {
				return fail("node %s renews a certificate but does not exist", name)
			}
			v.OK, v.By = true, fmt.Sprintf("node %s (renewing its own client certificate)", name)
			return v
		default:
			return fail("requestor %q is neither %s nor the node itself", c.Username, openshift.NodeBootstrapper)
		}
	case openshift.SignerKubeletServing:
		if c.Username != openshift.NodeUserPrefix+name {
			return fail("requestor %q is not the node %s itself", c.Username, name)
		}
		if !slices.Contains(c.Groups, openshift.NodesGroup) {
			return fail("requestor is not in group %s", openshift.NodesGroup)
		}
		for i := range machines {
			m := &machines[i]
			if m.NodeRef != name {
				continue
			}
			if why := sansMatch(c, m.Addresses); why != "" {
				return fail("machine %s/%s: %s", m.Namespace, m.Name, why)
			}
			v.OK, v.By = true, fmt.Sprintf("machine %s/%s (nodeRef %s, names and addresses match)", m.Namespace, m.Name, name)
			return v
		}
		if node == nil {
			return fail("no node or machine %s", name)
		}
		if why := sansMatch(c, node.Addresses); why != "" {
			return fail("node %s: %s", name, why)
		}
		v.OK, v.By = true, fmt.Sprintf("node %s (names and addresses match)", name)
		return v
	}
	return fail("signer %s is not a kubelet signer", c.SignerName)
}

func findNode(nodes []Node, name string) *Node {
	for i := range nodes {
		if nodes[i].Name == name {
			return &nodes[i]
		}
	}
	return nil
}

// hasAddress reports whether addrs holds value (case-insensitive, trailing dot
// ignored) with one of the given types.
func hasAddress(addrs []Address, value string, types ...string) bool {
	want := strings.TrimSuffix(strings.ToLower(value), ".")
	for _, a := range addrs {
		if slices.Contains(types, a.Type) && strings.TrimSuffix(strings.ToLower(a.Address), ".") == want {
			return true
		}
	}
	return false
}

// sansMatch returns why a serving request's names are not all the addresses'
// ("" when they are).
func sansMatch(c CertificateSigningRequest, addrs []Address) string {
	for _, d := range c.DNSNames {
		if !hasAddress(addrs, d, "InternalDNS", "ExternalDNS", "Hostname") {
			return fmt.Sprintf("DNS name %s is not one of its addresses", d)
		}
	}
	for _, ip := range c.IPAddresses {
		if !hasAddress(addrs, ip, "InternalIP", "ExternalIP") {
			return fmt.Sprintf("IP address %s is not one of its addresses", ip)
		}
	}
	return ""
}
