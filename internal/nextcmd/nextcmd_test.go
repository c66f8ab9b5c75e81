package nextcmd

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"resume", Resume("recover-apply-20200524T160251Z.journal"), "recover apply --resume recover-apply-20200524T160251Z.journal --yes"},
		{"resume quotes a path with a space", Resume("/tmp/my runs/a.journal"), "recover apply --resume '/tmp/my runs/a.journal' --yes"},
		{"resume in the cluster", ResumeInCluster("openshift-recover", "recover-plan", "recover-plan-journal"), "recover apply --in-cluster --namespace openshift-recover --plan-configmap recover-plan --journal recover-plan-journal --yes"},
		{"resume in the cluster, plan unknown", ResumeInCluster("ns", "", "j"), "recover apply --in-cluster --namespace ns --journal j --yes"},
		{"apply a plan", ApplyPlan("plan.json"), "recover apply --plan plan.json --yes"},
		{"apply quotes a path with a space", ApplyPlan("my plans/p.json"), "recover apply --plan 'my plans/p.json' --yes"},
		{"dry run", ApplyDryRun("plan.json"), "recover apply --plan plan.json --dry-run"},
		{"confirming", ApplyConfirming("plan.json", "my backup.yaml"), "recover apply --plan plan.json --backup-record 'my backup.yaml'"},
		{"scripted", ApplyScripted("p.json", "b.yaml"), "recover apply --plan p.json --backup-record b.yaml --yes --events json"},
		{"a placeholder is quoted, not a redirection", Resume("recover-apply-<time>.journal"), "recover apply --resume 'recover-apply-<time>.journal' --yes"},
		{"scale the CVO", ScaleCVO(1), "oc scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=1"},
		{"restore the CVO to its replicas", RestoreCVO(ptrTo(3)), "oc scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=3"},
		{"restore a CVO whose replicas are unknown", RestoreCVO(nil), "oc scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=1"},
		{"restore a CVO that ran 0 replicas", RestoreCVO(ptrTo(0)), "oc scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=1"},
		{"disable the CVO", ScaleCVO(0), "oc scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=0"},
		{"core resource", Resource("v1", "ConfigMap", "admin-acks"), "configmap/admin-acks"},
		{"short group", Resource("policy/v1", "PodDisruptionBudget", "build"), "poddisruptionbudget/build"},
		{"qualified group", Resource("operator.openshift.io/v1", "KubeAPIServer", "cluster"), "kubeapiserver.operator.openshift.io/cluster"},
		{"namespaced patch", MergePatch("poddisruptionbudget/build", "ci", `{"spec":{"minAvailable":1}}`),
			`oc patch poddisruptionbudget/build -n ci --type=merge -p '{"spec":{"minAvailable":1}}'`},
		{"patch with a quote", MergePatch("configmap/x", "", `{"data":{"k":"it's"}}`),
			`oc patch configmap/x --type=merge -p '{"data":{"k":"it'\''s"}}'`},
		{"unpause", PausePool("worker", false), `oc patch machineconfigpool/worker --type=merge -p '{"spec":{"paused":false}}'`},
		{"desired update", DesiredUpdate("4.4.3", "quay.io/r@sha256:ab", false),
			`oc patch clusterversion/version --type=merge -p '{"spec":{"desiredUpdate":{"version":"4.4.3","image":"quay.io/r@sha256:ab","force":false}}}'`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, tt.got, tt.want)
		}
	}
}

// TestPatchReachesOcIntact runs a rendered command through sh with a fake oc
// that prints its arguments, and checks the patch arrives as valid JSON, byte
// for byte.
func TestPatchReachesOcIntact(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
	patch := `{"metadata":{"annotations":{"a":"b'c $HOME"}},"spec":{"minAvailable":"50%"}}`
	cmd := MergePatch("poddisruptionbudget/x", "ns", patch)
	out, err := exec.Command("sh", "-c", `oc() { for a in "$@"; do printf '%s\0' "$a"; done; }; `+cmd).Output()
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	got := args[len(args)-1]
	if got != patch || !json.Valid([]byte(got)) {
		t.Errorf("oc received patch %q, want %q", got, patch)
	}
}

func ptrTo(v int32) *int32 { return &v }
