package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The decision is made once (plan.Decide) and every consumer prints it:
// recover plan, the TUI session and inspect --verdict give the same outcome
// for every bundled example and for oc's real clusters. These tests run the
// commands as a user would and read what each prints.

// outcomeCase is one cluster: the source flags, and the outcome an expert
// would give (the acceptance of issue 31).
type outcomeCase struct {
	name   string
	source []string
	want   planfile.OutcomeKind
}

// exampleOutcomes are the bundled examples with a must-gather.
func exampleOutcomes(t *testing.T) []outcomeCase {
	t.Helper()
	want := map[string]planfile.OutcomeKind{
		// BZ1838497: the CVO reconciles a mixed cluster: it must be replaced.
		"reconciled-4.3-to-4.4": planfile.OutcomeReplaceCVO,
		"bz1838497-logs":        planfile.OutcomeReplaceCVO,
		// An update in progress whose static pods contradict their operator:
		// the forced redeployment waits for the admin's --accept.
		"false-success-revision": planfile.OutcomeRefused,
		// A risk on the in-flight target: retarget within the minor.
		"conditional-risk": planfile.OutcomeDriveCVO,
	}
	dirs, err := filepath.Glob("../../examples/*/must-gather")
	if err != nil || len(dirs) < 10 {
		t.Fatalf("examples: %v %v", dirs, err)
	}
	var out []outcomeCase
	for _, d := range dirs {
		name := filepath.Base(filepath.Dir(d))
		out = append(out, outcomeCase{name: "example/" + name, source: []string{"--must-gather", d}, want: want[name]})
	}
	return out
}

// ocClusterOutcomes are oc's real 4.14–4.20 clusters (their -cv, -co, -mcp,
// -node and -mc files), with the outcome an expert gives each: every one is an
// update in progress or a settled cluster, so the CVO keeps the wheel.
func ocClusterOutcomes(t *testing.T) []outcomeCase {
	t.Helper()
	dir := filepath.Join(shareddata.RealData(t, ""), "oc-upgrade-status-examples")
	var out []outcomeCase
	for name, want := range map[string]planfile.OutcomeKind{
		// 97% through 4.20; a master's daemon cannot pull the OS image: advice.
		"ocpbugs-60768":                  planfile.OutcomeAdvice,
		"4.14.1-degraded":                planfile.OutcomeAdvice,
		"4.15.0-ec2-unavailable-mco-20m": planfile.OutcomeAdvice,
		// The admin paused the worker pool (a canary): nothing for recover.
		"4.14.1-paused-worker-pool": "",
		"4.15.0-ec2-early":          "",
		"4.16.0-compact":            "",
		"not-upgrading":             planfile.OutcomeNothing,
		"to-multi-arch":             "",
	} {
		files, err := filepath.Glob(filepath.Join(dir, name+"-*.yaml"))
		if err != nil || len(files) < 4 {
			t.Fatalf("files of %s: %v %v", name, files, err)
		}
		var src []string
		for _, f := range files {
			src = append(src, "--from-file", f)
		}
		out = append(out, outcomeCase{name: "oc/" + name, source: src, want: want})
	}
	slices.SortFunc(out, func(a, b outcomeCase) int { return strings.Compare(a.name, b.name) })
	return out
}

// TestEveryConsumerPrintsTheOneDecision: recover plan (-o json: the plan's
// outcome, the NoPlan report, the refusal report, or the line that asks for a
// release), the TUI session and inspect --verdict agree with plan.Decide on
// every example and every real cluster; where an expert's answer is known, it
// is that answer. No real cluster in an update gets replace-cvo.
func TestEveryConsumerPrintsTheOneDecision(t *testing.T) {
	cases := append(exampleOutcomes(t), ocClusterOutcomes(t)...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			verdictKind := verdictOutcome(t, tc.source)
			planKind := planOutcome(t, tc.source)
			tuiKind := tuiOutcome(t, tc.source)
			if verdictKind != planKind || tuiKind != planKind {
				t.Fatalf("inspect --verdict says %q, recover plan %q, the TUI %q", verdictKind, planKind, tuiKind)
			}
			if tc.want != "" && planKind != tc.want {
				t.Fatalf("outcome %q, want %q", planKind, tc.want)
			}
			if strings.HasPrefix(tc.name, "oc/") && planKind == planfile.OutcomeReplaceCVO {
				t.Fatalf("a real cluster in a normal update gets replace-cvo")
			}
		})
	}
}

// verdictOutcome is the outcome inspect --verdict writes.
func verdictOutcome(t *testing.T, source []string) planfile.OutcomeKind {
	t.Helper()
	code, out, errOut := runRecover(t, append([]string{"inspect", "--verdict", "-o", "json"}, source...)...)
	if code != ExitOK {
		t.Fatalf("inspect --verdict: exit %d: %s", code, errOut)
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &cm); err != nil {
		t.Fatalf("inspect --verdict: %v\n%s", err, out)
	}
	return planfile.OutcomeKind(cm.Data["outcome"])
}

// planOutcome is the outcome recover plan prints, without a graph.
func planOutcome(t *testing.T, source []string) planfile.OutcomeKind {
	t.Helper()
	code, out, errOut := runRecover(t, append([]string{"plan", "-o", "json"}, source...)...)
	switch code {
	case ExitOK, ExitAdvice:
		var doc struct {
			Kind    string            `json:"kind"`
			Outcome *planfile.Outcome `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Outcome == nil {
			t.Fatalf("recover plan exit %d: no outcome in %q (%v)", code, out, err)
		}
		if code == ExitAdvice && (doc.Kind != "NoPlan" || doc.Outcome.Kind != planfile.OutcomeAdvice) {
			t.Fatalf("exit %d with %s %s", code, doc.Kind, doc.Outcome.Kind)
		}
		return doc.Outcome.Kind
	case ExitRisksNotAccepted, ExitRemedyRefused:
		return planfile.OutcomeRefused
	}
	// A release is needed: recover plan says which rule asks for one, then
	// asks the cluster's update service (no network here).
	for _, k := range []planfile.OutcomeKind{planfile.OutcomeDriveCVO, planfile.OutcomeReplaceCVO} {
		if strings.Contains(errOut, "recover plan: a new release is needed (outcome "+string(k)+", rule ") {
			return k
		}
	}
	t.Fatalf("recover plan: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	return ""
}

// tuiOutcome is the outcome of the TUI session recover tui opens.
func tuiOutcome(t *testing.T, source []string) planfile.OutcomeKind {
	t.Helper()
	s, err := session(t, source...)
	if err != nil {
		t.Fatalf("tui session: %v", err)
	}
	if s.Outcome == nil {
		t.Fatalf("the TUI session has no outcome (plan %v, hint %q, error %v)", s.Plan != nil, s.PlanHint, s.PlanErr)
	}
	return s.Outcome.Kind
}

// TestAPlanSavedAsYAMLIsWhatApplyReads: plan -o yaml writes a document
// apply --plan FILE reads (a dry run), the same as -o json.
func TestAPlanSavedAsYAMLIsWhatApplyReads(t *testing.T) {
	code, out, errOut := runRecover(t, "plan", "-o", "yaml", "--must-gather", exampleDir+"/must-gather",
		"--graph", exampleDir+"/graph.json", "--graph-data", exampleDir+"/graph-data", "--channel", "stable-4.4",
		"--payload", exampleDir+"/releases/4.4.4")
	if code != ExitOK {
		t.Fatalf("plan -o yaml: exit %d: %s", code, errOut)
	}
	path := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	p, _, err := planfile.Load(path)
	if err != nil {
		t.Fatalf("apply --plan cannot read what plan -o yaml wrote: %v", err)
	}
	if p.Outcome == nil || p.Outcome.Kind != planfile.OutcomeReplaceCVO || p.Target.Version != "4.4.4" {
		t.Fatalf("outcome %+v target %s", p.Outcome, p.Target.Version)
	}
}

// TestAnUpdateInProgressWithAGraphGetsAdvice: oc's real 4.20 cluster
// (ocpbugs-60768: 97% through, a master's daemon cannot pull the OS image)
// given a graph and the real 4.20 payload still gets advice, exit 13: the CVO
// keeps the wheel and no manifest is pushed.
func TestAnUpdateInProgressWithAGraphGetsAdvice(t *testing.T) {
	real := shareddata.RealData(t, "")
	files, err := filepath.Glob(filepath.Join(real, "oc-upgrade-status-examples", "ocpbugs-60768-*.yaml"))
	if err != nil || len(files) < 4 {
		t.Fatalf("files: %v %v", files, err)
	}
	const image = "registry.build11.ci.openshift.org/ci-op-pw3ghqzh/release@sha256:6ef995f80511e6edb232430e2a28edcbc5dd32dd124c0c81d79cd78da6e2ddf6"
	graphFile := filepath.Join(t.TempDir(), "graph.json")
	g := `{"nodes":[{"version":"4.19.9","payload":"quay.io/openshift-release-dev/ocp-release@sha256:` + strings.Repeat("1", 64) + `"},` +
		`{"version":"4.20.0-0.nightly-2025-08-19-180353","payload":"` + image + `"}],"edges":[[0,1]]}`
	if err := os.WriteFile(graphFile, []byte(g), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"plan", "-o", "json", "--graph", graphFile, "--payload", filepath.Join(real, "payload-release-4.20")}
	for _, f := range files {
		args = append(args, "--from-file", f)
	}
	code, out, errOut := runRecover(t, args...)
	var r plan.NoPlanReport
	if code != ExitAdvice || json.Unmarshal([]byte(out), &r) != nil || r.Kind != "NoPlan" || r.Outcome.Kind != planfile.OutcomeAdvice || r.Outcome.Rule != "cvo-at-the-wheel" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(r.Outcome.Why, "keeps the wheel") || !hasFinding(r.Outcome.Evidence, "NodeDegraded") {
		t.Fatalf("outcome %+v", r.Outcome)
	}
	// The same words in the table, and the admin can still ask for the push.
	code, out, _ = runRecover(t, append(args[:1], append([]string{"-o", "table"}, args[3:]...)...)...)
	if code != ExitAdvice || !strings.Contains(out, "No plan: The CVO is updating") || !strings.Contains(out, "Outcome: advice (rule cvo-at-the-wheel)") {
		t.Fatalf("table: exit %d\n%s", code, out)
	}
}

func hasFinding(ev []planfile.Evidence, code string) bool {
	return slices.ContainsFunc(ev, func(e planfile.Evidence) bool { return e.Finding == code })
}
