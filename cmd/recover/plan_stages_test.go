package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/plan/planfile"
)

// writeStagedGraph writes an update-service graph 4.4.3 -> 4.4.4 -> 4.5.1 ->
// 4.6.1, with 4.5.3 reachable from 4.4.4 but leading nowhere.
func writeStagedGraph(t *testing.T, edges string) string {
	t.Helper()
	vs := []string{"4.4.3", "4.4.4", "4.5.1", "4.5.3", "4.6.1"}
	images := map[string]string{
		"4.4.3": "quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc",
		"4.4.4": "quay.io/openshift-release-dev/ocp-release@sha256:baa687f29b0ac155d8f4c6914056d36d68f343feb9c1e82b46eef95819d00be5",
	}
	var nodes []string
	for i, v := range vs {
		img := images[v]
		if img == "" {
			img = fmt.Sprintf("quay.io/openshift-release-dev/ocp-release@sha256:%064x", i+100)
		}
		nodes = append(nodes, fmt.Sprintf(`{"version":%q,"payload":%q,"metadata":{}}`, v, img))
	}
	doc := `{"version":1,"nodes":[` + strings.Join(nodes, ",") + `],"edges":[` + edges + `]}`
	path := filepath.Join(t.TempDir(), "staged-graph.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPlanToStagesTheEUSPath(t *testing.T) {
	args := []string{"plan", "--must-gather", incident2MG, "--graph", writeStagedGraph(t, "[0,1],[1,2],[1,3],[2,4]"), "--payload", exampleDir + "/releases/4.4.4",
		"--accept", "force-redeployment:kube-apiserver", "--to", "4.6.1", "--eus", "-o", "json"}
	code, out, errOut := runRecover(t, args...)
	var p planfile.Plan
	if code != ExitOK || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("exit %d: %s\n%.400s", code, errOut, out)
	}
	// Stage 1 is a hop the CVO drives (staged-goal): a drive-cvo plan, format
	// 1.5, its forced redeployment beside the running CVO.
	if p.FormatVersion != planfile.FormatVersionDriveCVO || p.Mode != planfile.ModeDriveCVO || p.Goal != "4.6.1" || len(p.Stages) != 3 || p.Stages[1].To != "4.5.1" || p.Stages[1].Workers != planfile.WorkersPaused {
		t.Fatalf("format %s mode %s goal %s stages %+v", p.FormatVersion, p.Mode, p.Goal, p.Stages)
	}
	for _, st := range p.Steps {
		if st.Action == planfile.ActionDisableCVO || st.Action == planfile.ActionApply {
			t.Fatalf("stage 1 has a %s step: the CVO drives it", st.Action)
		}
	}
	code, _, errOut = runRecover(t, "plan", "--must-gather", incident2MG, "--eus")
	if code != ExitUsage || !strings.Contains(errOut, "--eus needs --to") {
		t.Fatalf("--eus alone: exit %d %s", code, errOut)
	}
}

func TestPlanToRefusesAStageWithExit6(t *testing.T) {
	// No 4.5 release leads on to 4.6.1: 4.4.4 -> 4.5.3 strands the cluster.
	args := []string{"plan", "--must-gather", incident2MG, "--graph", writeStagedGraph(t, "[0,1],[1,3]"), "--payload", exampleDir + "/releases/4.4.4",
		"--accept", "force-redeployment:kube-apiserver", "--to", "4.6.1"}
	code, _, errOut := runRecover(t, args...)
	if code != 6 || !strings.Contains(errOut, "no staged plan") || !strings.Contains(errOut, "4.5.3") || !strings.Contains(errOut, "pick another --to") {
		t.Fatalf("exit %d: %q", code, errOut)
	}
	// A stage-scoped --accept is read as one.
	if code, _, errOut := runRecover(t, "plan", "--must-gather", incident2MG, "--to", "4.6.1", "--accept", "2:admin-ack:"); code != ExitUsage {
		t.Fatalf("a malformed stage accept: exit %d %s", code, errOut)
	}
}

func TestPlanToTableShowsTheStages(t *testing.T) {
	code, out, errOut := runRecover(t, "plan", "--must-gather", incident2MG, "--graph", writeStagedGraph(t, "[0,1],[1,2],[1,3],[2,4]"), "--payload", exampleDir+"/releases/4.4.4",
		"--accept", "force-redeployment:kube-apiserver", "--to", "4.6.1", "--eus")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"STAGES to 4.6.1", "Not 4.5.3:", "stage2-", "paused", "MachineConfigControllerPausedPoolKubeletCA"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
