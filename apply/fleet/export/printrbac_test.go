package export_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"

	fleetexport "github.com/openshift-recover/recover/apply/fleet/export"
	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// judgedPlan is the remediation plan recover makes for an example wedge with
// the admin's promises accept.
func judgedPlan(t testing.TB, example string, accept ...string) *planfile.Plan {
	t.Helper()
	s, err := mustgather.New(filepath.Join("..", "..", "..", "examples", example, "must-gather")).Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, p, err := verdict.Judge(context.Background(), s, verdict.Options{Accept: accept})
	if err != nil || p == nil {
		t.Fatalf("no plan for %s: %v", example, err)
	}
	return p
}

// grants is what RBAC objects grant, by where ("ClusterRole", "Role <ns>"),
// with the subjects they bind.
func grants(t *testing.T, objs []runtime.Object) (map[string][]rbacv1.PolicyRule, []string) {
	t.Helper()
	out := map[string][]rbacv1.PolicyRule{}
	var subjects []string
	for _, obj := range objs {
		switch x := obj.(type) {
		case *rbacv1.ClusterRole:
			out["ClusterRole"] = x.Rules
		case *rbacv1.Role:
			out["Role "+x.Namespace] = x.Rules
		case *rbacv1.ClusterRoleBinding:
			for _, s := range x.Subjects {
				subjects = append(subjects, "ClusterRoleBinding "+x.RoleRef.Name+" "+s.Namespace+"/"+s.Name)
			}
		case *rbacv1.RoleBinding:
			for _, s := range x.Subjects {
				subjects = append(subjects, "RoleBinding "+x.Namespace+" "+x.RoleRef.Name+" "+s.Namespace+"/"+s.Name)
			}
		}
	}
	return out, subjects
}

// manifestsOf are the objects a ManifestWorkReplicaSet template carries.
func manifestsOf(tmpl map[string]any) []*unstructured.Unstructured {
	ms, _, _ := unstructured.NestedSlice(tmpl, "spec", "manifestWorkTemplate", "workload", "manifests")
	out := make([]*unstructured.Unstructured, 0, len(ms))
	for _, m := range ms {
		out = append(out, &unstructured.Unstructured{Object: m.(map[string]any)})
	}
	return out
}

// TestApplyTemplateGrantsWhatPrintRBACPrints: for the plan of each remediation
// the fleet applies, the RBAC of the apply template, generated on the hub
// without the cluster (inspect's catalog maps the kinds), grants the same
// rules in the same places, to the same ServiceAccount, as recover apply
// --print-rbac prints for a run of the Job's arguments on the real API server
// (its discovery maps the kinds, its namespaces are checked). The namespaces
// the template's Roles are in exist on the spoke, as on every OpenShift
// cluster with the plan's objects.
func TestApplyTemplateGrantsWhatPrintRBACPrints(t *testing.T) {
	kubetest.Require(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	kc := kubernetes.NewForConfigOrDie(env.Config)
	for _, tc := range []struct {
		example string
		accept  []string
	}{
		{"pdb-blocks-drain", nil},
		{"paused-pool", nil},
		{"csr-pending", nil},
		{"admin-ack-required", []string{"admin-ack:ack-4.18-kube-1.32-api-removals-in-4.19"}},
		{"static-pod-stuck", []string{"force-redeployment:kube-apiserver"}},
		{"upgradeable-overrides", []string{"remove-overrides"}},
		{"cloud-credential-manual", []string{"upgradeable-to:4.15"}},
	} {
		t.Run(tc.example, func(t *testing.T) {
			p := judgedPlan(t, tc.example, tc.accept...)
			o := options(fleetexport.EngineTALM, p)
			ap, err := fleetexport.ApplyTemplate(o)
			if err != nil {
				t.Fatal(err)
			}
			var tmplObjs []runtime.Object
			for _, m := range manifestsOf(ap.Object) {
				obj, err := scheme.Scheme.New(m.GroupVersionKind())
				if err != nil {
					continue // a kind RBAC is not (the Job, ConfigMaps)
				}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m.Object, obj); err != nil {
					t.Fatal(err)
				}
				tmplObjs = append(tmplObjs, obj)
			}
			want, wantSubjects := grants(t, tmplObjs)
			if len(want["ClusterRole"]) == 0 || len(want["Role "+o.Namespace]) == 0 || len(wantSubjects) != len(want) {
				t.Fatalf("the template grants %v to %v: no ClusterRole, or no Role in the run's namespace", want, wantSubjects)
			}
			for where := range want {
				if ns, ok := strings.CutPrefix(where, "Role "); ok {
					ensureNamespace(t, ctx, kc, ns)
				}
			}

			path := filepath.Join(t.TempDir(), "plan.json")
			if _, err := planfile.Save(path, p); err != nil {
				t.Fatal(err)
			}
			// The Job's arguments, with the plan from the file instead of its
			// ConfigMap: --print-rbac prints for --plan FILE.
			var args []string
			job := fleetexport.ApplyArgs(o)
			for i := 0; i < len(job); i++ {
				switch job[i] {
				case "--in-cluster":
					args = append(args, "--plan", path)
				case "--plan-configmap":
					i++
				default:
					args = append(args, job[i])
				}
			}
			args = append(args, "--print-rbac", "--service-account", fleetexport.ApplyServiceAccount)
			code, out, errOut := runRecover(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errOut)
			}
			var printed []runtime.Object
			for _, doc := range strings.Split(out, "\n---\n") {
				obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
				if err != nil {
					t.Fatalf("decoding %q: %v", doc, err)
				}
				printed = append(printed, obj)
			}
			got, gotSubjects := grants(t, printed)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("--print-rbac grants\n%+v\nthe template grants\n%+v", got, want)
			}
			if !reflect.DeepEqual(gotSubjects, wantSubjects) {
				t.Errorf("--print-rbac binds %v, the template %v", gotSubjects, wantSubjects)
			}
		})
	}
}
