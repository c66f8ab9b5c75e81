package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	fleetexport "github.com/openshift-recover/recover/apply/fleet/export"
	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/internal/testing/fleetgen"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/internal/testing/stagedplan"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestFleetReportsAGeneratedFleet runs recover fleet over generated
// must-gathers in every output format; without a terminal nothing but the
// report is written.
func TestFleetReportsAGeneratedFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("inspects generated must-gathers")
	}
	f, err := fleetgen.Generate(filepath.Join("..", ".."), t.TempDir(), 20)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runRecover(t, "fleet", "--dir", f.Dir, "-o", "json", "--concurrency", "2")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var r verdict.FleetReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Clusters != len(f.Clusters) || r.Failed != 2 || len(r.Groups) == 0 || r.FormatVersion != verdict.FormatVersion {
		t.Errorf("report: %d clusters, %d failed, %d groups; generated %d", r.Clusters, r.Failed, len(r.Groups), len(f.Clusters))
	}
	code, out, _ = runRecover(t, "fleet", "--dir", f.Dir)
	if code != ExitOK || !strings.Contains(out, "SIGNATURE") || !strings.Contains(out, "Could not inspect 2:") {
		t.Errorf("table: exit %d\n%s", code, out)
	}
	code, out, _ = runRecover(t, "fleet", "--dir", f.Dir, "-o", "markdown")
	if code != ExitOK || !strings.HasPrefix(out, "# Fleet verdict\n") {
		t.Errorf("markdown: exit %d\n%s", code, out)
	}
}

func TestFleetRefusesBadInvocations(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"fleet"}, ExitUsage, "nothing to inspect"},
		{[]string{"fleet", "--dir", dir, "--contexts", "a"}, ExitUsage, "cannot be combined"},
		{[]string{"fleet", "--contexts", "a,a"}, ExitUsage, "named twice"},
		{[]string{"fleet", "--dir", filepath.Join(dir, "missing")}, ExitBadInput, "missing"},
		{[]string{"fleet", "--dir", dir}, ExitBadInput, "no must-gather or Insights archive"},
		{[]string{"fleet", "--contexts", "a", "--concurrency", "-1"}, ExitUsage, "--concurrency"},
		{[]string{"fleet", "--contexts", "a", "-o", "csv"}, ExitUsage, "unsupported output format"},
		{[]string{"fleet", "--contexts", "a", "--accept", "force-redeployment:"}, ExitUsage, "accept"},
	} {
		code, _, errOut := runRecover(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d %q, want %d and one line with %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
}

// TestInspectVerdictOffline prints the verdict ConfigMap of a must-gather: the
// flat fields a hub reads and the whole document agree.
func TestInspectVerdictOffline(t *testing.T) {
	mg := filepath.Join("..", "..", "examples", "pdb-blocks-drain", "must-gather")
	code, out, errOut := runRecover(t, "inspect", "--must-gather", mg, "--verdict", "--wave", "w9")
	if code != ExitOK {
		t.Fatalf("exit %d %s", code, errOut)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict([]byte(out), &cm); err != nil {
		t.Fatalf("not a ConfigMap: %v\n%s", err, out)
	}
	v, err := verdict.FromConfigMap(&cm)
	if err != nil {
		t.Fatal(err)
	}
	if cm.Name != verdict.DefaultName || cm.Namespace != verdict.DefaultNamespace || v.Wave != "w9" || !v.Wedged ||
		cm.Data["answer"] != "plan" || cm.Data["remedies"] != "relax-pdb" || cm.Data["cause1Subject"] != "poddisruptionbudget/ci/deck" {
		t.Errorf("verdict configmap %s/%s: %v", cm.Namespace, cm.Name, cm.Data)
	}
	code, out, _ = runRecover(t, "inspect", "--must-gather", mg, "--verdict", "-o", "json", "--verdict-name", "v", "--verdict-namespace", "ns")
	if code != ExitOK || json.Unmarshal([]byte(out), &cm) != nil || cm.Name != "v" || cm.Namespace != "ns" {
		t.Errorf("-o json: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--verdict", "-o", "table"}, "-o yaml"},
		{[]string{"--verdict", "--save-plan"}, "--save-plan stores the plan in the live cluster"},
		{[]string{"--wave", "w1"}, "go with --verdict"},
		{[]string{"--verdict", "--wave", "W1"}, "lowercase"},
	} {
		code, _, errOut := runRecover(t, append([]string{"inspect", "--must-gather", mg}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d %q, want %d with %q", tc.args, code, errOut, ExitUsage, tc.msg)
		}
	}
}

// TestFleetExportWritesTheWave writes a TALM wave to stdout and to a
// directory, and refuses what would make a wave that cannot run.
func TestFleetExportWritesTheWave(t *testing.T) {
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.json")
	mg := filepath.Join("..", "..", "examples", "pdb-blocks-drain", "must-gather")
	code, out, errOut := runRecover(t, "plan", "--must-gather", mg, "-o", "json")
	if code != ExitOK {
		t.Fatalf("plan: exit %d %s", code, errOut)
	}
	if err := os.WriteFile(planFile, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"fleet", "export", "--wave", "w1", "--image", "quay.io/x/recover:v1", "--plan", planFile, "--i-have-a-backup",
		"--clusters", "a,b", "--canaries", "a"}
	code, out, errOut = runRecover(t, base...)
	if code != ExitOK || strings.Count(out, "\n---\n") != 2 {
		t.Fatalf("exit %d %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"kind: ManifestWorkReplicaSet", "kind: ClusterGroupUpgrade", "enable: false", "propagationPolicy: Orphan",
		"openshift-cluster-group-upgrades/expectedValues", "- recover-inspect-w1", "- recover-apply-w1"} {
		if !strings.Contains(out, want) {
			t.Errorf("the wave lacks %q", want)
		}
	}
	out2 := filepath.Join(dir, "wave")
	if code, _, errOut := runRecover(t, append(base, "--dir", out2)...); code != ExitOK {
		t.Fatalf("--dir: exit %d %s", code, errOut)
	}
	for _, f := range []string{"inspect.yaml", "apply.yaml", "clustergroupupgrade.yaml"} {
		if _, err := os.Stat(filepath.Join(out2, f)); err != nil {
			t.Error(err)
		}
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"fleet", "export", "--wave", "w1", "--image", "i", "--plan", planFile, "--clusters", "a"}, "--i-have-a-backup"},
		{[]string{"fleet", "export", "--wave", "w1", "--image", "i", "--i-have-a-backup", "--clusters", "a"}, "--plan"},
		{[]string{"fleet", "export", "--image", "i", "--plan", planFile, "--i-have-a-backup", "--clusters", "a"}, "--wave is required"},
		{[]string{"fleet", "export", "--for", "argo", "--wave", "w1", "--image", "i", "--i-have-a-backup"}, "--clusters"},
		{[]string{"fleet", "export", "--for", "flux", "--wave", "w1", "--image", "i", "--i-have-a-backup"}, "--for \"flux\""},
		{[]string{"fleet", "export", "--wave", "w1", "--image", "i", "--plan", planFile, "--i-have-a-backup", "--clusters", "a", "--canaries", "z"}, "canary z"},
	} {
		code, _, errOut := runRecover(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d %q, want %d with %q", tc.args, code, errOut, ExitUsage, tc.msg)
		}
	}
}

// TestFleetProgress: on a terminal the bar is redrawn in place with the count
// and cleared at the end; elsewhere nothing is written.
func TestFleetProgress(t *testing.T) {
	var tty, pipe strings.Builder
	p := newFleetProgress(&tty, true)
	q := newFleetProgress(&pipe, false)
	for i := 1; i <= 3; i++ {
		p.update(i, 3)
		q.update(i, 3)
	}
	p.done()
	q.done()
	if pipe.Len() != 0 {
		t.Errorf("not a terminal, yet %q was written", pipe.String())
	}
	out := tty.String()
	if strings.Count(out, "\r") != 4 || !strings.Contains(out, "3/3 clusters") || !strings.HasSuffix(out, "\r\033[K") || strings.Contains(out, "\n") {
		t.Errorf("terminal output %q", out)
	}
}

// TestFleetOfContexts inspects live clusters by kubeconfig context on a real
// kube-apiserver: a plain Kubernetes cluster is reported as not inspected (not
// OpenShift), and so is a context the kubeconfig does not have; neither stops
// the other.
func TestFleetOfContexts(t *testing.T) {
	env := apiServer(t, kubetest.Options{SkipCRDs: true})
	cfg, err := clientcmd.LoadFromFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runRecover(t, "fleet", "--kubeconfig", env.Kubeconfig, "--contexts", cfg.CurrentContext+",nosuch", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d %s", code, errOut)
	}
	var r verdict.FleetReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Clusters != 2 || r.Failed != 2 || len(r.Failures) != 2 {
		t.Fatalf("report %+v", r)
	}
	for _, f := range r.Failures {
		want := map[string]string{cfg.CurrentContext: "not an OpenShift 4 cluster", "nosuch": "nosuch"}[f.Cluster]
		if want == "" || !strings.Contains(f.Error, want) {
			t.Errorf("%s: %q, want it to say %q", f.Cluster, f.Error, want)
		}
	}
	code, out, _ = runRecover(t, "fleet", "--kubeconfig", env.Kubeconfig, "--all-contexts", "-o", "json")
	if code != ExitOK || json.Unmarshal([]byte(out), &r) != nil || r.Clusters != len(cfg.Contexts) {
		t.Errorf("--all-contexts: exit %d, %d clusters for %d contexts", code, r.Clusters, len(cfg.Contexts))
	}
}

// TestFleetJobArgumentsAreRecoversFlags parses the arguments the fleet's Jobs
// run (apply/fleet/export, spelled by internal/nextcmd) with recover's own
// commands: every flag exists, and the in-cluster run reads the wave's plan
// and keeps its journal where the templates say. A renamed flag fails here.
func TestFleetJobArgumentsAreRecoversFlags(t *testing.T) {
	o := fleetexport.Options{Engine: fleetexport.EngineTALM, Wave: "w1", Image: "i", BackupAcknowledged: true, Accept: []string{"remove-overrides"}}
	o.Complete()
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	for name, args := range map[string][]string{
		"inspect":      fleetexport.InspectArgs(o),
		"apply":        fleetexport.ApplyArgs(o),
		"apply pushed": fleetexport.ApplyPushArgs(o, "/kubeconfig/kubeconfig"),
	} {
		t.Run(name, func(t *testing.T) {
			cmd, rest, err := newRootCmd(streams).Find(args)
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			if cmd.Flags().NArg() != 0 {
				t.Errorf("arguments left over: %v", cmd.Flags().Args())
			}
			for _, a := range args[1:] {
				if flag, ok := strings.CutPrefix(a, "--"); ok && !cmd.Flags().Changed(flag) {
					t.Errorf("--%s is not a flag of recover %s", flag, cmd.Name())
				}
			}
			if cmd.Name() != "apply" {
				return
			}
			got := map[string]string{}
			for _, f := range []string{nextcmd.FlagNamespace, nextcmd.FlagPlanConfigMap, nextcmd.FlagJournal, nextcmd.FlagVerdictNamespace} {
				got[f] = cmd.Flags().Lookup(f).Value.String()
			}
			want := map[string]string{nextcmd.FlagNamespace: o.Namespace, nextcmd.FlagPlanConfigMap: verdict.PlanConfigMapName(o.Wave),
				nextcmd.FlagJournal: fleetexport.ApplyJournal(o), nextcmd.FlagVerdictNamespace: o.Namespace}
			if !reflect.DeepEqual(got, want) || cmd.Flags().Lookup(nextcmd.FlagInCluster).Value.String() != "true" {
				t.Errorf("the apply run reads %v, want %v, in the cluster", got, want)
			}
		})
	}
}

// TestFleetExportRunsAStagedWave exports the EUS plan 4.18.3 -> 4.18.9 ->
// 4.19.14 -> 4.20.3 as a TALM wave through the CLI and reads the Jobs out of
// the documents written: the inspect Job stores the staged plan to the goal
// (--save-plan --to 4.20.3 --eus) with scratch space for the payloads it
// pulls; stage N's Job runs the stored plan with --until-stage N, every stage
// on the one journal (stage N > 1 resumes the run the stage before kept).
// recover itself parses every Job's arguments: each gets past its flags and
// their checks and fails only on the absent cluster (exit 5, not 2).
func TestFleetExportRunsAStagedWave(t *testing.T) {
	dir := t.TempDir()
	var staged bytes.Buffer
	p := stagedplan.EUS()
	if err := planfile.Encode(&staged, p); err != nil {
		t.Fatal(err)
	}
	stagedFile := filepath.Join(dir, "staged.json")
	if err := os.WriteFile(stagedFile, staged.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "wave")
	code, _, errOut := runRecover(t, "fleet", "export", "--for", "talm", "--wave", "eus1", "--image", "quay.io/x/recover:v1", "--plan", stagedFile,
		"--i-have-a-backup", "--clusters", "a,b", "--canaries", "a", "--dir", out)
	if code != ExitOK {
		t.Fatalf("fleet export of a staged plan: exit %d %s", code, errOut)
	}
	// job reads the Job of a template file: its container's arguments and
	// its pod spec.
	job := func(file string) ([]string, map[string]any) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(out, file))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		manifests := doc["spec"].(map[string]any)["manifestWorkTemplate"].(map[string]any)["workload"].(map[string]any)["manifests"].([]any)
		for _, m := range manifests {
			obj := m.(map[string]any)
			if obj["kind"] != "Job" {
				continue
			}
			pod := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
			var args []string
			for _, a := range pod["containers"].([]any)[0].(map[string]any)["args"].([]any) {
				args = append(args, a.(string))
			}
			return args, pod
		}
		t.Fatalf("%s has no Job", file)
		return nil, nil
	}
	flag := func(args []string, name string) string {
		for i, a := range args {
			if a == "--"+name && i+1 < len(args) {
				return args[i+1]
			}
		}
		return ""
	}
	parses := func(what string, args []string) {
		t.Helper()
		code, _, errOut := runRecover(t, append(args, "--kubeconfig", filepath.Join(dir, "absent"))...)
		if code != ExitCluster || !strings.Contains(errOut, "kubeconfig") {
			t.Errorf("%s: recover %v: exit %d %q, want %d (its flags pass; only the cluster is absent)", what, args, code, errOut, ExitCluster)
		}
	}
	in, pod := job("inspect.yaml")
	if joined := strings.Join(in, " "); !strings.Contains(joined, "--save-plan --to 4.20.3 --eus") {
		t.Errorf("the inspect Job does not store the staged plan: %v", in)
	}
	if vols, _ := pod["volumes"].([]any); len(vols) != 1 || vols[0].(map[string]any)["emptyDir"] == nil {
		t.Errorf("the inspect Job has no scratch space for the payloads: %v", pod["volumes"])
	}
	parses("the inspect Job", in)
	journal := ""
	for _, st := range p.Stages {
		args, _ := job(fmt.Sprintf("stage-%d.yaml", st.Index))
		if got := flag(args, nextcmd.FlagUntilStage); got != fmt.Sprint(st.Index) {
			t.Errorf("stage %d's Job runs --until-stage %q: %v", st.Index, got, args)
		}
		if !slices.Contains(args, "--"+nextcmd.FlagInCluster) || flag(args, nextcmd.FlagPlanConfigMap) != verdict.PlanConfigMapName("eus1") {
			t.Errorf("stage %d's Job does not run the stored plan in the cluster: %v", st.Index, args)
		}
		j := flag(args, nextcmd.FlagJournal)
		if journal == "" {
			journal = j
		}
		if j == "" || j != journal {
			t.Errorf("stage %d keeps journal %q, stage 1 %q: a stage resumes the run the stage before kept", st.Index, j, journal)
		}
		parses(fmt.Sprintf("stage %d's Job", st.Index), args)
	}
}
