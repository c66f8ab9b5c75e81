package insights

import (
	"io/fs"
	"path"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/bounded"
	"github.com/openshift-recover/recover/internal/openshift"
)

// maxAckBytes caps one admin-acks value file.
const maxAckBytes = 1 << 20

// wedges reads the wedge facts an Insights archive holds and records the others
// as Absent, saying why.
func (r *reader) wedges() error {
	type step struct {
		res    inspect.Resource
		ns     string
		looked string
		files  []string
		caveat string
	}
	steps := []step{
		{res: inspect.ResPodDisruptionBudgets, looked: "config/pdbs/", files: r.nested("config/pdbs"),
			caveat: "the Insights operator gathers only the PodDisruptionBudgets of openshift-* namespaces (4.8 and later); others may exist"},
		{res: inspect.ResCertificateSigningRequests, looked: "config/certificatesigningrequests/", files: r.files("config/certificatesigningrequests"),
			caveat: "anonymized by the Insights operator: subjects and names are not readable"},
		{res: inspect.ResMachines, ns: openshift.MachineAPINamespace, looked: "config/machines/" + openshift.MachineAPINamespace + "/",
			files: r.files(path.Join("config/machines", openshift.MachineAPINamespace))},
		{res: inspect.ResValidatingWebhookConfigurations, looked: "config/validatingwebhookconfigurations/", files: r.files("config/validatingwebhookconfigurations")},
		{res: inspect.ResMutatingWebhookConfigurations, looked: "config/mutatingwebhookconfigurations/", files: r.files("config/mutatingwebhookconfigurations")},
		{res: inspect.ResCloudCredentials, looked: "config/clusteroperator/operator.openshift.io/cloudcredential/cluster.json",
			files: r.single("config/clusteroperator/operator.openshift.io/cloudcredential/cluster")},
	}
	for _, st := range steps {
		n, err := r.read(st.files, st.res.Kind)
		if err != nil {
			return err
		}
		rs := inspect.ResourceStatus{Resource: st.res.Key(), Namespace: st.ns, State: inspect.Collected, Count: n, From: r.from(st.files, st.looked), Reason: st.caveat}
		if len(st.files) == 0 {
			rs.State, rs.Reason = inspect.Absent, "not in the Insights archive"
			if st.res == inspect.ResCertificateSigningRequests {
				rs.Reason += " (it holds only CSRs without a valid certificate, and none when every CSR was issued)"
			}
		}
		r.b.Record(rs)
	}
	if err := r.adminAcks(); err != nil {
		return err
	}
	absent := func(res inspect.Resource, ns, why string) {
		r.b.Record(inspect.ResourceStatus{Resource: res.Key(), Namespace: ns, State: inspect.Absent, Reason: why})
	}
	absent(inspect.ResConfigMaps, openshift.AdminGatesNamespace, "an Insights archive does not gather the admin-gates ConfigMap")
	absent(inspect.ResAPIRequestCounts, "", "an Insights archive does not gather APIRequestCounts (only counts of an alert's APIs, while it fires)")
	absent(inspect.ResValidatingAdmissionPolicies, "", "an Insights archive does not gather ValidatingAdmissionPolicies")
	absent(inspect.ResValidatingAdmissionPolicyBindings, "", "an Insights archive does not gather ValidatingAdmissionPolicyBindings")
	for _, ns := range openshift.SignerNamespaces {
		absent(inspect.ResSecrets, ns, "an Insights archive does not gather Secrets")
	}
	if r.b.DrainPodsNeeded() {
		absent(inspect.ResPods, "", "an Insights archive holds only pods with failing containers, not the pods a drain must evict")
	} else {
		r.b.Record(inspect.ResourceStatus{Resource: inspect.ResPods.Key(), State: inspect.Collected,
			Reason: inspect.ReasonNotNeeded + "no node of the archive drains, is cordoned or degraded while a PodDisruptionBudget exists"})
	}
	if len(r.b.WebhookServices()) > 0 {
		absent(inspect.ResEndpointSlices, "", "an Insights archive does not gather EndpointSlices: whether webhooks' services answer is unknown")
	} else {
		r.b.Record(inspect.ResourceStatus{Resource: inspect.ResEndpointSlices.Key(), State: inspect.Collected,
			Reason: inspect.ReasonNotNeeded + "no webhook of the archive calls a service"})
	}
	return nil
}

// nested returns the JSON files one directory level below dir
// (config/pdbs/<namespace>/<name>.json).
func (r *reader) nested(dir string) []string {
	entries, err := fs.ReadDir(r.fsys, r.rel(dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, r.files(path.Join(dir, e.Name()))...)
		}
	}
	return out
}

// adminAcks reads config/configmaps/openshift-config/admin-acks/<key>, one file
// per data key holding its value: the archive gathers every ConfigMap of
// openshift-config, so a namespace directory without admin-acks says it does not
// exist.
func (r *reader) adminAcks() error {
	nsDir := path.Join("config/configmaps", openshift.AdminAcksNamespace)
	dir := path.Join(nsDir, openshift.AdminAcksConfigMap)
	rs := inspect.ResourceStatus{Resource: inspect.ResConfigMaps.Key(), Namespace: openshift.AdminAcksNamespace, State: inspect.Collected,
		From: []string{path.Join(r.display, dir) + "/"}}
	if fi, err := fs.Stat(r.fsys, r.rel(nsDir)); err != nil || !fi.IsDir() {
		rs.State, rs.Reason = inspect.Absent, "not in the Insights archive"
		r.b.Record(rs)
		return nil
	}
	entries, err := fs.ReadDir(r.fsys, r.rel(dir))
	if err != nil {
		rs.Reason = "the archive holds openshift-config's ConfigMaps but no " + openshift.AdminAcksConfigMap + ": it does not exist"
		r.b.Record(rs)
		return nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: openshift.AdminAcksNamespace, Name: openshift.AdminAcksConfigMap}, Data: map[string]string{}}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := bounded.ReadFS(r.fsys, r.rel(path.Join(dir, e.Name())), maxAckBytes)
		if err != nil {
			return &inspect.InputError{Path: path.Join(r.display, dir, e.Name()), Err: err}
		}
		cm.Data[e.Name()] = string(data)
	}
	r.b.AddConfigMap(cm)
	rs.Count = 1
	r.b.Record(rs)
	return nil
}
