package gate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The remediation gates (plan formatVersion 1.1). Like the others, each reduces
// the live objects with inspect's converters and asks inspect's predicates, so a
// gate never answers "settled", "ready", "issued" or "cleared" otherwise than the
// findings and the planner do.

var csrs = schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests"}

// Restore is what a restored gate compares, supplied by the engine: the fields
// the reverted step's change set and the pre-image the journal recorded for them
// before that change.
type Restore struct {
	// Step is the step whose change was reverted.
	Step   string
	Fields [][]string
	// PreImage is nil when the journal records no change of Step: there is
	// nothing to restore.
	PreImage map[string]json.RawMessage
}

// nodeSpec builds a nodes-settled or nodes-ready gate.
func nodeSpec(g *planfile.Gate, pred func(inspect.Node) inspect.Verdict, state string) (*spec, error) {
	if len(g.Nodes) == 0 {
		return nil, fmt.Errorf("%s gate needs nodes", g.Kind)
	}
	return &spec{
		sources: []source{{gvr: nodes}},
		eval: func(o [][]*unstructured.Unstructured, _ time.Duration) Progress {
			return evalNodes(g.Nodes, o[0], pred, state)
		},
	}, nil
}

// evalNodes asks pred of every named node.
func evalNodes(names []string, objs []*unstructured.Unstructured, pred func(inspect.Node) inspect.Verdict, state string) Progress {
	byName := map[string]*unstructured.Unstructured{}
	for _, u := range objs {
		byName[u.GetName()] = u
	}
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	var pending []string
	for _, name := range sorted {
		u := byName[name]
		if u == nil {
			pending = append(pending, name+": node does not exist")
			continue
		}
		var n corev1.Node
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &n); err != nil {
			pending = append(pending, name+": cannot read the node: "+err.Error())
			continue
		}
		if v := pred(inspect.NodeFromAPI(&n)); !v.OK {
			pending = append(pending, v.Pending...)
		}
	}
	if len(pending) == 0 {
		return Progress{Met: true, Message: fmt.Sprintf("%s %s", nodeList(sorted), state)}
	}
	return Progress{Message: fmt.Sprintf("%d of %d nodes not %s: %s", countNodes(pending, sorted), len(sorted), state, strings.Join(pending, "; ")), Pending: pending}
}

func nodeList(names []string) string {
	if len(names) == 1 {
		return "node " + names[0] + " is"
	}
	return "nodes " + strings.Join(names, ", ") + " are"
}

// countNodes counts the nodes named by the pending items ("<node>: ...").
func countNodes(pending, names []string) int {
	seen := map[string]bool{}
	for _, p := range pending {
		node, _, _ := strings.Cut(p, ":")
		seen[node] = true
	}
	n := 0
	for _, name := range names {
		if seen[name] {
			n++
		}
	}
	return max(n, 1)
}

// conditionSpec builds a condition-cleared gate on a ClusterVersion or a
// ClusterOperator.
func conditionSpec(g *planfile.Gate) (*spec, error) {
	if g.Object == nil || g.Object.Name == "" || g.Condition == "" {
		return nil, fmt.Errorf("condition-cleared gate needs object (a ClusterVersion or ClusterOperator) and condition")
	}
	var gvr schema.GroupVersionResource
	switch g.Object.Kind {
	case "ClusterVersion":
		gvr = clusterVersions
	case "ClusterOperator":
		gvr = clusterOperators
	default:
		return nil, fmt.Errorf("condition-cleared gate: object kind %q is neither ClusterVersion nor ClusterOperator", g.Object.Kind)
	}
	what := g.Object.String()
	return &spec{
		sources: []source{{gvr: gvr, name: g.Object.Name}},
		eval: func(o [][]*unstructured.Unstructured, _ time.Duration) Progress {
			return evalConditionCleared(what, g.Condition, g.Reason, first(o[0]))
		},
	}, nil
}

func evalConditionCleared(what, condType, reason string, u *unstructured.Unstructured) Progress {
	if u == nil {
		return Progress{Message: what + " does not exist", Pending: []string{what + " missing"}}
	}
	var conds []configv1.ClusterOperatorStatusCondition
	switch u.GetKind() {
	case "ClusterVersion":
		var cv configv1.ClusterVersion
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cv); err != nil {
			return Progress{Message: "cannot read " + what + ": " + err.Error()}
		}
		conds = cv.Status.Conditions
	default:
		var co configv1.ClusterOperator
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &co); err != nil {
			return Progress{Message: "cannot read " + what + ": " + err.Error()}
		}
		conds = inspect.ClusterOperatorFromAPI(&co).Conditions
	}
	subject := condType
	if reason != "" {
		subject += " " + reason
	}
	if v := inspect.ConditionCleared(conds, condType, reason); !v.OK {
		return Progress{Message: what + " still has " + v.String(), Pending: v.Pending}
	}
	return Progress{Met: true, Message: what + " no longer has " + subject}
}

// restoredSpec builds a restored gate: the object named by Object carries again
// the pre-image the engine supplies.
func restoredSpec(g *planfile.Gate, r *Restore, mapKind KindMapper) (*spec, error) {
	if g.Object == nil || g.Object.Name == "" || g.Object.Kind == "" {
		return nil, fmt.Errorf("restored gate needs object with apiVersion, kind and name")
	}
	src, err := objectSource(g, mapKind)
	if err != nil {
		return nil, err
	}
	what := g.Object.String()
	return &spec{
		sources: []source{src},
		eval: func(o [][]*unstructured.Unstructured, _ time.Duration) Progress {
			return evalRestored(what, r, first(o[0]))
		},
	}, nil
}

// evalRestored compares the live fields with the pre-image.
func evalRestored(what string, r *Restore, u *unstructured.Unstructured) Progress {
	switch {
	case r == nil:
		return Progress{Message: what + ": no pre-image to compare (the journal records none)", Pending: []string{"no pre-image"}}
	case r.PreImage == nil:
		return Progress{Met: true, Message: fmt.Sprintf("%s: step %s made no change, nothing to restore", what, r.Step)}
	case u == nil:
		return Progress{Message: what + " does not exist", Pending: []string{what + " missing"}}
	}
	live := resource.FieldValues(u.Object, r.Fields)
	var pending []string
	for _, f := range r.Fields {
		k := journal.FieldKey(f)
		if !resource.SameJSON(live[k], r.PreImage[k]) {
			pending = append(pending, fmt.Sprintf("%s is %s, its pre-image %s", k, resource.ValueText(live[k]), resource.ValueText(r.PreImage[k])))
		}
	}
	if len(pending) == 0 {
		var keys []string
		for _, f := range r.Fields {
			keys = append(keys, journal.FieldKey(f))
		}
		return Progress{Met: true, Message: fmt.Sprintf("%s carries its pre-image again (%s, journaled before step %s)", what, strings.Join(keys, ", "), r.Step)}
	}
	return Progress{Message: what + " is not restored: " + strings.Join(pending, "; "), Pending: pending}
}

// csrSpec builds a csr-issued gate.
func csrSpec(g *planfile.Gate) (*spec, error) {
	if g.Object == nil || g.Object.Name == "" {
		return nil, fmt.Errorf("csr-issued gate needs object.name (the CertificateSigningRequest)")
	}
	name := g.Object.Name
	return &spec{
		sources: []source{{gvr: csrs, name: name}},
		eval: func(o [][]*unstructured.Unstructured, _ time.Duration) Progress {
			return evalCSRIssued(name, first(o[0]))
		},
	}, nil
}

// evalCSRIssued: the request was approved and its certificate issued, as
// inspect.CSRIssued decides it.
func evalCSRIssued(name string, u *unstructured.Unstructured) Progress {
	if u == nil {
		return Progress{Message: "CertificateSigningRequest " + name + " does not exist", Pending: []string{"certificatesigningrequest/" + name + " missing"}}
	}
	var c certificatesv1.CertificateSigningRequest
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &c); err != nil {
		return Progress{Message: "cannot read CertificateSigningRequest " + name + ": " + err.Error()}
	}
	reduced := inspect.CertificateSigningRequestFromAPI(&c)
	if v := inspect.CSRIssued(reduced); !v.OK {
		p := Progress{Message: v.String(), Pending: v.Pending}
		// A denied or failed request is not issued without someone's action.
		p.Failed = reduced.State == inspect.CSRStateDenied || reduced.State == inspect.CSRStateFailed
		return p
	}
	return Progress{Met: true, Message: "certificatesigningrequest/" + name + " is approved and its certificate issued"}
}
