package inspect_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/dump"
	"github.com/openshift-recover/recover/inspect/insights"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

// ocProblem is one problem oc adm upgrade status reports in its Update Health
// section, as the finding recover must have for it.
type ocProblem struct {
	code, subject string
	details       map[string]string
}

// The Update Health messages of oc adm upgrade status (openshift/oc
// pkg/cli/admin/upgrade/status: nodes, control plane, workers and health
// insights), each with the finding that says the same.
var ocHealth = []struct {
	re   *regexp.Regexp
	want func(m []string) ocProblem
}{
	{regexp.MustCompile(`^Node (\S+) is degraded$`), func(m []string) ocProblem { return ocProblem{code: inspect.CodeNodeDegraded, subject: "node/" + m[1]} }},
	{regexp.MustCompile(`^Node (\S+) is not ready$`), func(m []string) ocProblem { return ocProblem{code: inspect.CodeNodeNotReady, subject: "node/" + m[1]} }},
	{regexp.MustCompile(`^Cluster Operator (\S+) is degraded \(`), func(m []string) ocProblem {
		return ocProblem{code: inspect.CodeOperatorDegraded, subject: "clusteroperator/" + m[1]}
	}},
	{regexp.MustCompile(`^Cluster Operator (\S+) is unavailable \(`), func(m []string) ocProblem {
		return ocProblem{code: inspect.CodeOperatorUnavailable, subject: "clusteroperator/" + m[1]}
	}},
	{regexp.MustCompile(`^Cluster Version version is failing to proceed with the update \((\S+)\)$`), func(m []string) ocProblem {
		return ocProblem{code: inspect.CodeClusterVersionFailing, subject: "clusterversion/version", details: map[string]string{"reason": m[1]}}
	}},
	{regexp.MustCompile(`^Outdated nodes in a paused pool '(\S+)' will not be updated$`), func(m []string) ocProblem {
		return ocProblem{code: inspect.CodePoolPaused, subject: "machineconfigpool/" + m[1]}
	}},
	{regexp.MustCompile(`^Previous update to (\S+) never completed, last complete update was (\S+)$`), func(m []string) ocProblem {
		return ocProblem{code: inspect.CodePreviousUpdateIncomplete, subject: "clusterversion/version", details: map[string]string{"previous": m[1], "lastCompleted": m[2]}}
	}},
}

// ocHealthMessages returns the messages of the Update Health section of an
// oc adm upgrade status --details output: the "Message:" lines of its detailed
// form, or the MESSAGE column of its table form.
func ocHealthMessages(t *testing.T, text string) []string {
	t.Helper()
	_, section, ok := strings.Cut(text, "= Update Health =\n")
	if !ok {
		return nil
	}
	var out []string
	table := false
	for _, line := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(line, "= "):
			return out // the next section
		case strings.HasPrefix(line, "SINCE "):
			table = true
		case strings.HasPrefix(line, "Message: "):
			out = append(out, strings.TrimPrefix(line, "Message: "))
		case table && strings.TrimSpace(line) != "":
			// SINCE LEVEL IMPACT MESSAGE: the message is the rest after three columns.
			f := strings.Fields(line)
			if len(f) < 4 {
				t.Fatalf("unreadable table line %q", line)
			}
			out = append(out, strings.Join(f[3:], " "))
		}
	}
	return out
}

// TestOCUpdateHealthIsAmongTheFindings reads every cluster of oc adm upgrade
// status' examples with the dump source and checks that every node, operator,
// pool and cluster-version problem oc reports in its Update Health section is
// among recover's findings, and that recover names the cause where the data holds
// it (the class of each degraded node). Alerts are out of scope: recover reads no
// alerts, and they are skipped by name.
func TestOCUpdateHealthIsAmongTheFindings(t *testing.T) {
	dir := filepath.Join(shareddata.RealData(t, ""), "oc-upgrade-status-examples")
	outputs, err := filepath.Glob(filepath.Join(dir, "*.detailed-output"))
	if err != nil || len(outputs) == 0 {
		t.Fatalf("no detailed outputs in %s: %v", dir, err)
	}
	// The class the daemon's reason gives on the clusters whose nodes oc calls
	// degraded.
	wantClass := map[string]string{
		"4.16.0-ec2-control-plane-updated-pdb-prohibits-draining": inspect.NodeClassDrain,
		"ocpbugs-60768": inspect.NodeClassPullFailure,
	}
	checked := 0
	for _, out := range outputs {
		name := strings.TrimSuffix(filepath.Base(out), ".detailed-output")
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(dir, name+"-*.yaml"))
			if len(files) < 4 {
				t.Fatalf("cluster %s has %d dump files", name, len(files))
			}
			s, err := dump.New(files...).Collect(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			have := map[string]inspect.Finding{}
			for _, f := range s.Findings {
				have[f.Code+" "+f.Subject] = f
			}
			alerts := 0
			for _, msg := range ocHealthMessages(t, string(text)) {
				if strings.HasPrefix(msg, "Alert is firing: ") {
					alerts++ // out of scope: recover reads no alerts
					continue
				}
				if msg == "Update is proceeding well" {
					continue
				}
				var want *ocProblem
				for _, h := range ocHealth {
					if m := h.re.FindStringSubmatch(msg); m != nil {
						p := h.want(m)
						want = &p
						break
					}
				}
				if want == nil {
					t.Errorf("oc reports %q, which this test does not map to a finding", msg)
					continue
				}
				checked++
				f, ok := have[want.code+" "+want.subject]
				if !ok {
					t.Errorf("oc reports %q; recover has no %s on %s (has %s)", msg, want.code, want.subject, findingList(s))
					continue
				}
				for k, v := range want.details {
					if f.Details[k] != v {
						t.Errorf("%s: details[%s] = %q, oc says %q", want.code, k, f.Details[k], v)
					}
				}
				if want.code == inspect.CodeNodeDegraded {
					if c := wantClass[name]; c != "" && f.Details["class"] != c {
						t.Errorf("%s: class %q, want %q (the daemon's reason holds the cause)", want.subject, f.Details["class"], c)
					}
					if f.Details["class"] == inspect.NodeClassUnknown {
						t.Errorf("%s: class unknown although the reason is %q", want.subject, f.Message)
					}
				}
			}
			if alerts > 0 {
				t.Logf("%d alert insight(s) skipped: recover reads no alerts", alerts)
			}
			for _, f := range s.Findings {
				if f.Class != inspect.ClassBlocks && f.Class != inspect.ClassInforms {
					t.Errorf("%s on %s has no class", f.Code, f.Subject)
				}
			}
		})
	}
	if checked == 0 {
		t.Fatal("no oc problem was checked")
	}
}

// TestPDBExampleWedges checks the wedge summary of the real pdb-prohibits-draining
// cluster: its seven nodes that cannot drain, their degraded pool, machine-config
// Degraded and the CVO Failing make one line, and the node that is not ready
// another.
func TestPDBExampleWedges(t *testing.T) {
	dir := filepath.Join(shareddata.RealData(t, ""), "oc-upgrade-status-examples")
	files, _ := filepath.Glob(filepath.Join(dir, "4.16.0-ec2-control-plane-updated-pdb-prohibits-draining-*.yaml"))
	s, err := dump.New(files...).Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var drain *inspect.Wedge
	for i, w := range s.Blocking() {
		if w.Code == inspect.CodeNodeDegraded {
			if drain != nil {
				t.Fatalf("two NodeDegraded lines: %+v", s.Wedges)
			}
			drain = &s.Blocking()[i]
		}
	}
	if drain == nil {
		t.Fatalf("no NodeDegraded wedge: %+v", s.Wedges)
	}
	nodes := 0
	for _, sub := range drain.Subjects {
		if strings.HasPrefix(sub, "node/") {
			nodes++
		}
	}
	if nodes != 7 || !contains(drain.Subjects, "machineconfigpool/worker") || !contains(drain.Subjects, "clusteroperator/machine-config") || !contains(drain.Subjects, "clusterversion/version") {
		t.Errorf("the drain wedge stands for %v", drain.Subjects)
	}
	if !strings.Contains(drain.Summary, "(drain)") {
		t.Errorf("summary %q", drain.Summary)
	}
}

// TestInsights47UnsupportedConfigOverrides checks the real 4.7 Insights archive:
// ClusterVersion is Upgradeable=False because etcd and authentication carry
// unsupportedConfigOverrides.
func TestInsights47UnsupportedConfigOverrides(t *testing.T) {
	s, err := insights.New(filepath.Join(shareddata.RealData(t, ""), "insights-archive-sample-4.7")).Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]inspect.Finding{}
	for _, f := range s.FindingsWithCode(inspect.CodeUpgradeableFalse) {
		got[f.Subject] = f
	}
	for _, subject := range []string{"clusteroperator/etcd", "clusteroperator/authentication", "clusterversion/version"} {
		f, ok := got[subject]
		if !ok {
			t.Errorf("no UpgradeableFalse on %s (have %s)", subject, findingList(s))
			continue
		}
		if f.Details["class"] != inspect.UpgradeClassUnsupportedConfig || f.Class != inspect.ClassInforms {
			t.Errorf("%s: class %q (%s), want %s and informs: nothing asks for a minor update", subject, f.Details["class"], f.Class, inspect.UpgradeClassUnsupportedConfig)
		}
	}
	if cv := got["clusterversion/version"]; cv.Details["operators"] != "authentication,etcd" {
		t.Errorf("ClusterVersion's finding names operators %q", cv.Details["operators"])
	}
	var line *inspect.Wedge
	for i := range s.Wedges {
		if s.Wedges[i].Code == inspect.CodeUpgradeableFalse {
			if line != nil {
				t.Fatalf("the three findings are one cause, got two lines: %+v", s.Wedges)
			}
			line = &s.Wedges[i]
		}
	}
	if line == nil || !strings.Contains(line.Next, "unsupportedConfigOverrides") {
		t.Errorf("wedge %+v", line)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func findingList(s *inspect.Snapshot) string {
	var out []string
	for _, f := range s.Findings {
		out = append(out, f.Code+"@"+f.Subject)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
