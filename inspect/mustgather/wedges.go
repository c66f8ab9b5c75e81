package mustgather

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
)

// The wedge facts (formatVersion 1.1) in a must-gather:
//
//	cluster-scoped-resources/certificates.k8s.io/certificatesigningrequests[.yaml|/]
//	cluster-scoped-resources/admissionregistration.k8s.io/{validating,mutating}webhookconfigurations, validatingadmissionpolicies[bindings]
//	cluster-scoped-resources/apiserver.openshift.io/apirequestcounts
//	cluster-scoped-resources/operator.openshift.io/cloudcredentials
//	namespaces/<ns>/policy/poddisruptionbudgets[.yaml|/]                 every namespace
//	namespaces/<ns>/core/pods.yaml, namespaces/<ns>/pods/<pod>/<pod>.yaml  the namespaces of PDBs, for DrainPods
//	namespaces/openshift-machine-api/machine.openshift.io/machines
//	namespaces/openshift-config{,-managed}/core/configmaps[.yaml|/<name>.yaml]  admin-acks, admin-gates
//	namespaces/<ns>/discovery.k8s.io/endpointslices                       the namespaces of webhook services
//	namespaces/<signer ns>/core/secrets[.yaml|/]                          metadata only
//	namespaces/<ns>/operators.coreos.com/clusterserviceversions[.yaml|/]  metadata only: olm.maxOpenShiftVersion
//
// oc adm inspect elides Secret data; the decoder reads only a Secret's metadata
// either way.

// keepWedge reports whether a file under namespaces/ holds a wedge fact; rest is
// the path below namespaces/ ([ns, group dir, resource...]).
func keepWedge(rest []string) bool {
	ns, group, res := rest[0], rest[1], rest[2:]
	switch {
	case group == "pods", group == "core" && isResource(res, "pods"):
		return true // pods of any namespace: a PDB's pods, for DrainPods
	case group == "policy" && isResource(res, "poddisruptionbudgets"):
		return true
	case group == "discovery.k8s.io" && isResource(res, "endpointslices"):
		return true
	case group == "operators.coreos.com" && isResource(res, "clusterserviceversions"):
		return true // the installed operators' olm.maxOpenShiftVersion (issue 33)
	case group == "machine.openshift.io" && ns == openshift.MachineAPINamespace && isResource(res, "machines"):
		return true
	case group == "core" && isResource(res, "secrets"):
		return slices.Contains(openshift.SignerNamespaces, ns)
	case group == "core" && isResource(res, "configmaps"):
		gate := adminGateName(ns)
		return gate != "" && (len(res) == 1 || trimExt(res[1]) == gate)
	}
	return false
}

// isResource reports whether res is "<resource>.<ext>" or "<resource>/<file>".
func isResource(res []string, resource string) bool {
	return (len(res) == 1 && trimExt(res[0]) == resource) || (len(res) == 2 && res[0] == resource)
}

// adminGateName returns the admin-gate ConfigMap inspect reads in ns ("" for none).
func adminGateName(ns string) string {
	switch ns {
	case openshift.AdminGatesNamespace:
		return openshift.AdminGatesConfigMap
	case openshift.AdminAcksNamespace:
		return openshift.AdminAcksConfigMap
	}
	return ""
}

// namespaces lists the namespace directories of the must-gather.
func (r *reader) namespaces() []string {
	entries, _ := fs.ReadDir(r.fsys, "namespaces")
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// resourceFiles returns the data files of one resource type in a namespace: the
// list file and the per-object files.
func (r *reader) resourceFiles(ns string, res inspect.Resource) []string {
	base := path.Join("namespaces", ns, res.GroupDir(), res.Resource)
	return append(r.existing(listFiles(base)...), r.dataFiles(base)...)
}

// wedgesFirst reads what the second readers depend on: the cluster-scoped wedge
// types (webhooks among them) and every namespace's PodDisruptionBudgets. Then
// every node and budget is in, and pods can be reduced as they come.
func (r *reader) wedgesFirst() error {
	for _, res := range inspect.WedgeClusterResources {
		if err := r.cluster(res); err != nil {
			return err
		}
	}
	var files []string
	held := 0
	for _, ns := range r.namespaces() {
		f := r.resourceFiles(ns, inspect.ResPodDisruptionBudgets)
		if len(f) > 0 {
			held++
		}
		files = append(files, f...)
	}
	n, err := r.readFiles(files, inspect.ResPodDisruptionBudgets.Kind)
	if err != nil {
		return err
	}
	r.recordWith(inspect.ResPodDisruptionBudgets, "", files, []string{"namespaces/*/policy/poddisruptionbudgets.yaml"}, n,
		fmt.Sprintf("read from the %d namespaces of the must-gather that hold them; a namespace it does not hold may have more", held))
	r.b.DrainInputsComplete()
	return nil
}

// wedgesThen reads the namespaced wedge facts once the first ones are in.
func (r *reader) wedgesThen() error {
	machines := r.resourceFiles(openshift.MachineAPINamespace, inspect.ResMachines)
	n, err := r.readFiles(machines, inspect.ResMachines.Kind)
	if err != nil {
		return err
	}
	r.record(inspect.ResMachines, openshift.MachineAPINamespace, machines,
		[]string{path.Join("namespaces", openshift.MachineAPINamespace, "machine.openshift.io", "machines.yaml")}, n)

	for _, ns := range []string{openshift.AdminGatesNamespace, openshift.AdminAcksNamespace} {
		if err := r.adminGate(ns); err != nil {
			return err
		}
	}
	for _, ns := range openshift.SignerNamespaces {
		files := r.resourceFiles(ns, inspect.ResSecrets)
		n, err := r.readFiles(files, inspect.ResSecrets.Kind)
		if err != nil {
			return err
		}
		r.record(inspect.ResSecrets, ns, files, []string{path.Join("namespaces", ns, "core", "secrets.yaml")}, n)
	}
	if err := r.drainPods(); err != nil {
		return err
	}
	if err := r.clusterServiceVersions(); err != nil {
		return err
	}
	return r.endpointSlices()
}

// clusterServiceVersions reads the installed operators' CSVs of every
// namespace (metadata: olm.maxOpenShiftVersion). They are recorded only when
// the must-gather holds some: the default must-gather does not collect them,
// and a snapshot without the record says nothing either way.
func (r *reader) clusterServiceVersions() error {
	var files []string
	for _, ns := range r.namespaces() {
		files = append(files, r.resourceFiles(ns, inspect.ResClusterServiceVersions)...)
	}
	if len(files) == 0 {
		return nil
	}
	n, err := r.readFiles(files, inspect.ResClusterServiceVersions.Kind)
	if err != nil {
		return err
	}
	r.record(inspect.ResClusterServiceVersions, "", files, []string{"namespaces/*/operators.coreos.com/clusterserviceversions.yaml"}, n)
	return nil
}

// adminGate reads the admin-gates or admin-acks ConfigMap of ns: its own file,
// else the namespace's ConfigMap list. A configmaps/ directory without the file
// says the ConfigMap does not exist.
func (r *reader) adminGate(ns string) error {
	name := adminGateName(ns)
	dir := path.Join("namespaces", ns, "core", "configmaps")
	files := r.existing(listFiles(path.Join(dir, name))...)
	if len(files) == 0 {
		files = r.existing(listFiles(dir)...)
	}
	n, err := r.readFiles(files, inspect.ResConfigMaps.Kind)
	if err != nil {
		return err
	}
	if fi, err := fs.Stat(r.fsys, dir); len(files) == 0 && err == nil && fi.IsDir() {
		r.b.Record(inspect.ResourceStatus{Resource: inspect.ResConfigMaps.Key(), Namespace: ns, State: inspect.Collected, CollectedAt: r.at,
			From: []string{path.Join(r.display, dir) + "/"}, Reason: "the directory holds no " + name + " ConfigMap: it does not exist"})
		return nil
	}
	r.record(inspect.ResConfigMaps, ns, files, []string{path.Join(dir, name+".yaml"), dir + ".yaml"}, n)
	return nil
}

// drainPods reads the pods of the namespaces whose PodDisruptionBudgets may
// hold a drain, when some node has drain trouble; the static-pod namespaces'
// pods were read already.
func (r *reader) drainPods() error {
	if !r.b.DrainPodsNeeded() {
		r.b.Record(inspect.ResourceStatus{Resource: inspect.ResPods.Key(), State: inspect.Collected, CollectedAt: r.at,
			From:   []string{path.Join(r.display, "namespaces/*/core/pods.yaml")},
			Reason: inspect.ReasonNotNeeded + "no node of the must-gather drains, is cordoned or degraded while a PodDisruptionBudget exists"})
		return nil
	}
	var files, missing []string
	n := 0
	for _, ns := range r.b.PDBNamespaces() {
		if inspect.StaticPodComponentFor(ns) != nil && inspect.StaticPodComponentFor(ns).Namespace == ns {
			// Read with the operand's pods (and recorded on their own).
			continue
		}
		f := r.podFiles(ns)
		if len(f) == 0 {
			missing = append(missing, ns)
			continue
		}
		got, err := r.readFiles(f, "Pod")
		if err != nil {
			return err
		}
		n += got
		files = append(files, f...)
	}
	rs := inspect.ResourceStatus{Resource: inspect.ResPods.Key(), State: inspect.Collected, Count: n, CollectedAt: r.at, From: summarizeFiles(r.display, files)}
	if len(missing) > 0 {
		rs.State = inspect.Absent
		rs.Reason = "the pods of " + strings.Join(missing, ", ") + ", whose PodDisruptionBudgets may hold a drain, are not in the must-gather"
		for _, ns := range missing {
			rs.From = append(rs.From, path.Join(r.display, "namespaces", ns, "core", "pods.yaml"))
		}
	}
	r.b.Record(rs)
	return nil
}

// endpointSlices reads the EndpointSlices of the namespaces of the services
// webhooks call.
func (r *reader) endpointSlices() error {
	services := r.b.WebhookServices()
	if len(services) == 0 {
		r.b.Record(inspect.ResourceStatus{Resource: inspect.ResEndpointSlices.Key(), State: inspect.Collected, CollectedAt: r.at,
			From:   []string{path.Join(r.display, "namespaces/*/discovery.k8s.io/endpointslices.yaml")},
			Reason: inspect.ReasonNotNeeded + "no webhook of the must-gather calls a service"})
		return nil
	}
	var namespaces []string
	for _, svc := range services {
		ns, _, _ := strings.Cut(svc, "/")
		if !slices.Contains(namespaces, ns) {
			namespaces = append(namespaces, ns)
		}
	}
	var files, missing, looked []string
	for _, ns := range namespaces {
		f := r.resourceFiles(ns, inspect.ResEndpointSlices)
		if len(f) == 0 {
			missing = append(missing, ns)
			looked = append(looked, path.Join("namespaces", ns, "discovery.k8s.io", "endpointslices.yaml"))
		}
		files = append(files, f...)
	}
	n, err := r.readFiles(files, inspect.ResEndpointSlices.Kind)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		r.b.Record(inspect.ResourceStatus{Resource: inspect.ResEndpointSlices.Key(), State: inspect.Absent, CollectedAt: r.at, Count: n,
			Reason: "the EndpointSlices of " + strings.Join(missing, ", ") + ", where webhooks' services live, are not in the must-gather",
			From:   prefix(r.display, looked)})
		return nil
	}
	r.record(inspect.ResEndpointSlices, "", files, nil, n)
	return nil
}

func prefix(display string, paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, path.Join(display, p))
	}
	return out
}

// podFiles returns the pod files of a namespace, in either layout.
func (r *reader) podFiles(ns string) []string {
	nsDir := path.Join("namespaces", ns)
	files := r.existing(listFiles(path.Join(nsDir, "core", "pods"))...)
	files = append(files, r.dataFiles(path.Join(nsDir, "core", "pods"))...)
	if entries, err := fs.ReadDir(r.fsys, path.Join(nsDir, "pods")); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				files = append(files, r.existing(listFiles(path.Join(nsDir, "pods", e.Name(), e.Name()))...)...)
			}
		}
	}
	return files
}
