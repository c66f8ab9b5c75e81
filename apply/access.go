package apply

import (
	"context"

	"github.com/openshift-recover/recover/plan"
)

// Access is one permission a run needs: a verb on a resource (and subresource),
// in a namespace ("" cluster-wide) or on one named object. Preflight asks the API
// server for each with a SelfSubjectAccessReview; the RBAC of a run inside the
// cluster (apply/incluster) grants exactly these.
type Access struct {
	Verb        string `json:"verb"`
	Group       string `json:"group,omitempty"`
	Resource    string `json:"resource"`
	Subresource string `json:"subresource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
}

func (a Access) internal() access {
	return access{verb: a.Verb, group: a.Group, resource: a.Resource, subresource: a.Subresource, namespace: a.Namespace, name: a.Name}
}

func (a access) external() Access {
	return Access{Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource, Namespace: a.namespace, Name: a.name}
}

// String reads as preflight's list of missing permissions does.
func (a Access) String() string { return a.internal().String() }

// accessNeeder is a journal store that needs permissions of its own (the
// ConfigMaps of a journal kept in the cluster).
type accessNeeder interface {
	Access() []Access
}

// RequiredAccess returns every permission a run of p with opts needs, the list
// preflight checks (derived from the plan's steps and gates through the REST
// mapper, plus the lock and the journal's store), and the problems that kept a
// step's permissions from being derived. It changes nothing.
func (e *Engine) RequiredAccess(ctx context.Context, p *plan.Plan, opts Options) ([]Access, []string) {
	needed, problems := newRun(e, p, opts, nil).requiredAccess(ctx)
	out := make([]Access, len(needed))
	for i, a := range needed {
		out[i] = a.external()
	}
	return out, problems
}
