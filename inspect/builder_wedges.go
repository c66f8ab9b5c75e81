package inspect

import (
	"slices"
	"sort"

	apiserverv1 "github.com/openshift/api/apiserver/v1"
	machinev1beta1 "github.com/openshift/api/machine/v1beta1"
	operatorv1 "github.com/openshift/api/operator/v1"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/openshift-recover/recover/internal/openshift"
)

// wedgeState is what the Builder keeps, unserialized, to assemble the wedge facts
// at Finish: sources feed objects in any order (pods before their nodes and
// budgets, endpoint slices before the webhooks that call them).
type wedgeState struct {
	// pdbSel holds each PodDisruptionBudget's selector by namespace and name.
	pdbSel map[string]map[string]labels.Selector
	// candidates are the pods a drain would evict, with their labels, by
	// "<ns>/<name>"; Finish keeps those a budget selects on a troubled node.
	candidates map[string]*drainCand
	// drainComplete says every node and PodDisruptionBudget was added (the
	// source said so): pods can then be dropped as they come.
	drainComplete bool
	troubled      map[string]bool
	// slices holds ready endpoint counts: service "<ns>/<name>" -> slice -> ready.
	slices map[string]map[string]int32
	// bindings are the ValidatingAdmissionPolicyBindings' texts by policy.
	bindings map[string][]string
	// gates and acks are the admin-gates and admin-acks data (nil: not seen).
	gates, acks map[string]string
	acksUID     string
}

type drainCand struct {
	pod    DrainPod
	labels labels.Set
}

func newWedgeState() wedgeState {
	return wedgeState{
		pdbSel:     map[string]map[string]labels.Selector{},
		candidates: map[string]*drainCand{},
		slices:     map[string]map[string]int32{},
		bindings:   map[string][]string{},
	}
}

// AddPodDisruptionBudget adds a policy/v1 PodDisruptionBudget (any namespace).
func (b *Builder) AddPodDisruptionBudget(p *policyv1.PodDisruptionBudget) {
	r := PodDisruptionBudgetFromAPI(p)
	sel := PDBSelector(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen("pdb", p.Namespace, p.Name) {
		return
	}
	b.s.PodDisruptionBudgets = append(b.s.PodDisruptionBudgets, r)
	if b.w.pdbSel[p.Namespace] == nil {
		b.w.pdbSel[p.Namespace] = map[string]labels.Selector{}
	}
	b.w.pdbSel[p.Namespace][p.Name] = sel
}

// DrainInputsComplete tells the builder that every node and PodDisruptionBudget
// has been added, so that pods added from now on are dropped at once unless a
// budget of their namespace selects them on a node with DrainTrouble (a source
// that streams every pod of the cluster calls it first). Without it, pods are
// kept until Finish, whatever the order.
func (b *Builder) DrainInputsComplete() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.w.drainComplete = true
	b.w.troubled = b.troubledNodes()
	for k, c := range b.w.candidates {
		if !b.w.troubled[c.pod.Node] || len(b.budgetsOf(c)) == 0 {
			delete(b.w.candidates, k)
		}
	}
}

// DrainPodsNeeded reports whether pods must be read for DrainPods: some node has
// DrainTrouble and some PodDisruptionBudget exists. Otherwise DrainPods is empty
// by definition, whatever the pods.
func (b *Builder) DrainPodsNeeded() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.s.PodDisruptionBudgets) > 0 && len(b.troubledNodes()) > 0
}

// PDBNamespaces returns the namespaces that hold a PodDisruptionBudget, sorted:
// where the pods of DrainPods can be.
func (b *Builder) PDBNamespaces() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	set := map[string]bool{}
	for _, p := range b.s.PodDisruptionBudgets {
		set[p.Namespace] = true
	}
	return keysInOrder(set)
}

func (b *Builder) troubledNodes() map[string]bool {
	out := map[string]bool{}
	for i := range b.s.Nodes {
		if b.s.Nodes[i].DrainTrouble() {
			out[b.s.Nodes[i].Name] = true
		}
	}
	return out
}

// budgetsOf returns the PodDisruptionBudgets of the candidate's namespace that
// select it, sorted.
func (b *Builder) budgetsOf(c *drainCand) []string {
	var out []string
	for name, sel := range b.w.pdbSel[c.pod.Namespace] {
		if sel.Matches(c.labels) {
			out = append(out, c.pod.Namespace+"/"+name)
		}
	}
	sort.Strings(out)
	return out
}

func cutKey(key string) (ns, name string, ok bool) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return "", key, false
}

// addCandidate keeps a pod a drain would evict (b.mu held).
func (b *Builder) addCandidate(d DrainPod, podLabels map[string]string) {
	key := d.Namespace + "/" + d.Name
	if _, ok := b.w.candidates[key]; ok {
		return
	}
	c := &drainCand{pod: d, labels: labels.Set(podLabels)}
	if b.w.drainComplete && (!b.w.troubled[d.Node] || len(b.budgetsOf(c)) == 0) {
		return
	}
	// The labels are copied: the caller's object (a page of a LIST) is released.
	c.labels = make(labels.Set, len(podLabels))
	for k, v := range podLabels {
		c.labels[k] = v
	}
	b.w.candidates[key] = c
}

// AddCertificateSigningRequest adds a CSR; only those not yet approved or denied
// (Pending) are kept.
func (b *Builder) AddCertificateSigningRequest(c *certificatesv1.CertificateSigningRequest) {
	if CSRState(c.Status) != CSRStatePending {
		return
	}
	r := CertificateSigningRequestFromAPI(c)
	addOnce(b, &b.s.CertificateSigningRequests, "csr", "", c.Name, r)
}

// AddCSRRecord adds a CSR some source has already reduced (the Insights archive
// keeps an anonymized record, not the object); only Pending ones are kept.
func (b *Builder) AddCSRRecord(r CertificateSigningRequest) {
	if r.State != CSRStatePending {
		return
	}
	addOnce(b, &b.s.CertificateSigningRequests, "csr", "", r.Name, r)
}

// AddMachine adds a machine-api Machine of openshift-machine-api (the namespace
// the machine approver reads); others are ignored.
func (b *Builder) AddMachine(m *machinev1beta1.Machine) {
	if m.Namespace != openshift.MachineAPINamespace {
		return
	}
	r := MachineFromAPI(m)
	addOnce(b, &b.s.Machines, "machine", m.Namespace, m.Name, r)
}

// AddConfigMap adds the data of openshift-config-managed/admin-gates or
// openshift-config/admin-acks; other ConfigMaps are ignored.
func (b *Builder) AddConfigMap(cm *corev1.ConfigMap) {
	gates := cm.Namespace == openshift.AdminGatesNamespace && cm.Name == openshift.AdminGatesConfigMap
	acks := cm.Namespace == openshift.AdminAcksNamespace && cm.Name == openshift.AdminAcksConfigMap
	if !gates && !acks {
		return
	}
	data := make(map[string]string, len(cm.Data))
	for k, v := range cm.Data {
		data[k] = v
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if gates {
		b.w.gates = data
		return
	}
	b.w.acks, b.w.acksUID = data, string(cm.UID)
}

// AddAPIRequestCount adds an APIRequestCount; only APIs a coming release removes
// are kept.
func (b *Builder) AddAPIRequestCount(a *apiserverv1.APIRequestCount) {
	r, ok := APIRequestCountFromAPI(a)
	if !ok {
		return
	}
	addOnce(b, &b.s.APIRequestCounts, "apirequestcount", "", a.Name, r)
}

// AddValidatingWebhookConfiguration adds the webhooks of a validating webhook
// configuration.
func (b *Builder) AddValidatingWebhookConfiguration(c *admissionv1.ValidatingWebhookConfiguration) {
	ws := ValidatingWebhooksFromAPI(c)
	addOnce(b, &b.s.Webhooks, "vwc", "", c.Name, ws...)
}

// AddMutatingWebhookConfiguration adds the webhooks of a mutating webhook
// configuration.
func (b *Builder) AddMutatingWebhookConfiguration(c *admissionv1.MutatingWebhookConfiguration) {
	ws := MutatingWebhooksFromAPI(c)
	addOnce(b, &b.s.Webhooks, "mwc", "", c.Name, ws...)
}

// WebhookServices returns the services the webhooks added so far call, as
// "<namespace>/<name>", sorted and unique: the endpoint slices a live source
// lists.
func (b *Builder) WebhookServices() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.webhookServices()
}

func (b *Builder) webhookServices() []string {
	set := map[string]bool{}
	for _, w := range b.s.Webhooks {
		if w.Service != "" {
			set[w.Service] = true
		}
	}
	return keysInOrder(set)
}

// AddValidatingAdmissionPolicy adds a ValidatingAdmissionPolicy.
func (b *Builder) AddValidatingAdmissionPolicy(p *admissionv1.ValidatingAdmissionPolicy) {
	r := AdmissionPolicyFromAPI(p)
	addOnce(b, &b.s.AdmissionPolicies, "vap", "", p.Name, r)
}

// AddValidatingAdmissionPolicyBinding adds a binding; Finish lists it on its
// policy (a binding of a policy not collected is dropped).
func (b *Builder) AddValidatingAdmissionPolicyBinding(p *admissionv1.ValidatingAdmissionPolicyBinding) {
	policy, text := AdmissionPolicyBindingText(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen("vapb", "", p.Name) {
		return
	}
	b.w.bindings[policy] = append(b.w.bindings[policy], text)
}

// AddEndpointSlice adds the ready endpoint count of an EndpointSlice of a
// service; Finish keeps the counts of the services webhooks call.
func (b *Builder) AddEndpointSlice(s *discoveryv1.EndpointSlice) {
	svc, ready, ok := EndpointSliceReady(s)
	if !ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.w.slices[svc] == nil {
		b.w.slices[svc] = map[string]int32{}
	}
	b.w.slices[svc][s.Name] = ready
}

// AddSecretMetadata adds a Secret's validity from its metadata alone, for the
// Secrets of the signer namespaces (openshift.SignerNamespaces) that carry a
// certificate-not-after annotation. It takes metadata, never a Secret: its data
// cannot reach a snapshot.
func (b *Builder) AddSecretMetadata(m *metav1.ObjectMeta) {
	if !slices.Contains(openshift.SignerNamespaces, m.Namespace) {
		return
	}
	r, ok := CertificateSecretFromMeta(m)
	if !ok {
		return
	}
	addOnce(b, &b.s.Certificates, "secret", m.Namespace, m.Name, r)
}

// SetCloudCredential stores cloudcredentials.operator.openshift.io/cluster (other
// names are ignored).
func (b *Builder) SetCloudCredential(c *operatorv1.CloudCredential) {
	if c.Name != "" && c.Name != openshift.SingletonName {
		return
	}
	r := CloudCredentialFromAPI(c)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.CloudCredential = &r
}

// stateOf returns the recorded state of a resource ("" when never recorded);
// b.mu held.
func (b *Builder) stateOf(res Resource, ns string) CollectionState {
	for _, r := range b.s.Resources {
		if r.Resource == res.Key() && r.Namespace == ns {
			return r.State
		}
	}
	return ""
}

// finishWedges assembles the facts that need every object: DrainPods, guard
// pods' order, ready endpoints, policy bindings and admin gates (b.mu held).
func (b *Builder) finishWedges() {
	s := &b.s
	troubled := b.troubledNodes()
	for _, c := range b.w.candidates {
		if !troubled[c.pod.Node] {
			continue
		}
		if pdbs := b.budgetsOf(c); len(pdbs) > 0 {
			d := c.pod
			d.PDBs = pdbs
			s.DrainPods = append(s.DrainPods, d)
		}
	}

	collected := b.stateOf(ResEndpointSlices, "") == Collected
	ready := map[string]int32{}
	for _, svc := range b.webhookServices() {
		var n int32
		for _, r := range b.w.slices[svc] {
			n += r
		}
		ready[svc] = n
		if collected {
			ns, name, _ := cutKey(svc)
			s.ServiceEndpoints = append(s.ServiceEndpoints, ServiceEndpoints{Namespace: ns, Name: name, Ready: n})
		}
	}
	for i := range s.Webhooks {
		w := &s.Webhooks[i]
		w.ReadyEndpoints = -1
		if collected && w.Service != "" {
			w.ReadyEndpoints = ready[w.Service]
		}
	}

	for i := range s.AdmissionPolicies {
		p := &s.AdmissionPolicies[i]
		p.Bindings = append([]string(nil), b.w.bindings[p.Name]...)
		sort.Strings(p.Bindings)
		if len(p.Bindings) == 0 {
			p.Bindings = nil
		}
	}

	if b.w.gates != nil || b.w.acks != nil ||
		b.stateOf(ResConfigMaps, openshift.AdminGatesNamespace) == Collected || b.stateOf(ResConfigMaps, openshift.AdminAcksNamespace) == Collected {
		s.AdminGates = &AdminGates{Gates: b.w.gates, Acks: b.w.acks, AcksUID: b.w.acksUID}
	}
}

// normalizeWedges sorts the wedge facts so that equal states give equal documents.
func normalizeWedges(s *Snapshot) {
	byKey := func(ns1, n1, ns2, n2 string) bool {
		if ns1 != ns2 {
			return ns1 < ns2
		}
		return n1 < n2
	}
	sort.Slice(s.PodDisruptionBudgets, func(i, j int) bool {
		a, b := s.PodDisruptionBudgets[i], s.PodDisruptionBudgets[j]
		return byKey(a.Namespace, a.Name, b.Namespace, b.Name)
	})
	sort.Slice(s.DrainPods, func(i, j int) bool {
		a, b := s.DrainPods[i], s.DrainPods[j]
		if a.Node != b.Node {
			return a.Node < b.Node
		}
		return byKey(a.Namespace, a.Name, b.Namespace, b.Name)
	})
	sort.Slice(s.CertificateSigningRequests, func(i, j int) bool {
		return s.CertificateSigningRequests[i].Name < s.CertificateSigningRequests[j].Name
	})
	sort.Slice(s.Machines, func(i, j int) bool {
		a, b := s.Machines[i], s.Machines[j]
		return byKey(a.Namespace, a.Name, b.Namespace, b.Name)
	})
	sort.Slice(s.APIRequestCounts, func(i, j int) bool { return s.APIRequestCounts[i].Name < s.APIRequestCounts[j].Name })
	sort.Slice(s.Webhooks, func(i, j int) bool {
		a, b := s.Webhooks[i], s.Webhooks[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return byKey(a.Configuration, a.Name, b.Configuration, b.Name)
	})
	sort.Slice(s.AdmissionPolicies, func(i, j int) bool { return s.AdmissionPolicies[i].Name < s.AdmissionPolicies[j].Name })
	sort.Slice(s.ServiceEndpoints, func(i, j int) bool {
		a, b := s.ServiceEndpoints[i], s.ServiceEndpoints[j]
		return byKey(a.Namespace, a.Name, b.Namespace, b.Name)
	})
	sort.Slice(s.Certificates, func(i, j int) bool {
		a, b := s.Certificates[i], s.Certificates[j]
		return byKey(a.Namespace, a.Name, b.Namespace, b.Name)
	})
	for i := range s.StaticPodOperators {
		g := s.StaticPodOperators[i].Guards
		sort.Slice(g, func(i, j int) bool { return byKey(g[i].Node, g[i].Name, g[j].Node, g[j].Name) })
	}
}
