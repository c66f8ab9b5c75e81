package mustgather

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/openshift"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/golden"
)

const (
	// exampleLogs is the BZ1838497 example: incident 1's must-gather with the
	// CVO's, the installers' and the daemons' logs.
	exampleLogs = "../../examples/bz1838497-logs/must-gather"
	// cleanLogs are the logs of a clean update, laid over incident 1's objects.
	cleanLogs = "testdata/clean-update-logs"
)

// copyDir copies a tree into dst; edit may rewrite each file's content.
func copyDir(t testing.TB, src, dst string, edit func(rel string, data []byte) []byte) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if edit != nil {
			data = edit(rel, data)
		}
		return os.WriteFile(to, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

var stamp = regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT[0-9:.]+Z `)

// withoutStamps copies the example with its logs as the component wrote them,
// without the RFC 3339 time oc adm inspect puts in front of each line.
func withoutStamps(t *testing.T) string {
	dst := filepath.Join(t.TempDir(), "mg")
	copyDir(t, exampleLogs, dst, func(rel string, data []byte) []byte {
		if strings.HasSuffix(rel, ".log") {
			return stamp.ReplaceAll(data, nil)
		}
		return data
	})
	return dst
}

// TestLogsProveTheIncidents is the acceptance: on a must-gather holding
// the CVO's, the installer's and the daemons' logs, inspect names the abandoned
// update with the two CVO lines, the interrupted installer with its last line,
// and the budget that holds the drain, and puts them on the timeline in order;
// from a directory and an archive, with and without the RFC 3339 prefix.
func TestLogsProveTheIncidents(t *testing.T) {
	for _, tc := range []struct {
		name string
		path func(t *testing.T) string
	}{
		{"directory", func(*testing.T) string { return exampleLogs }},
		{"tar.gz", func(t *testing.T) string { return tarOf(t, exampleLogs, true) }},
		{"without the inspect prefix", withoutStamps},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := collect(t, New(tc.path(t)))

			ab := finding(t, s, inspect.CodeCVOAbandonedUpdate, "clusterversion/version")
			cvoLog := "cluster-version-operator/cluster-version-operator/logs/current.log"
			up := evidence(t, ab, cvoLog+":5", "in state Updating at attempt 0")
			rec := evidence(t, ab, cvoLog+":15", "in state Reconciling at attempt 0")
			if ab.Details["runningPredatesFix"] != "true" || ab.Details["cvoVersion"] != "v4.3.19-202005041055-dirty" {
				t.Errorf("details %v", ab.Details)
			}

			in := finding(t, s, inspect.CodeInstallerInterrupted, "pod/openshift-kube-apiserver/installer-8-master-2")
			last := evidence(t, in, "installer-8-master-2/installer/installer/logs/current.log:5", `Creating directory "/etc/kubernetes/static-pod-resources/kube-apiserver-pod-8/secrets/etcd-client" ...`)
			if in.Details["node"] != "master-2" || !strings.Contains(in.Message, "Creating directory") {
				t.Errorf("InstallerInterrupted: %+v", in)
			}

			pdb := finding(t, s, inspect.CodeDrainBlockedByUnseenPDB, "pod/web-6d5f7c9b8-x2x9q")
			ev := evidence(t, pdb, "machine-config-daemon-4kx9q/machine-config-daemon/machine-config-daemon/logs/current.log:8", openshift.EvictionRefused)
			if pdb.Details["nodes"] != "worker-0" || pdb.Class != inspect.ClassBlocks || pdb.Details["count"] != "180" {
				t.Errorf("DrainBlockedByUnseenPDB: %+v", pdb)
			}

			// The timeline holds them in order, each linked to its finding, and
			// the wedges name the entries.
			var order []string
			for _, e := range []inspect.Evidence{up, rec, last, ev} {
				id := timelineID(t, s, e.Source)
				order = append(order, id)
			}
			for i := 1; i < len(order); i++ {
				if idNum(order[i]) <= idNum(order[i-1]) {
					t.Errorf("timeline out of order: %v", order)
				}
			}
			for _, code := range []string{inspect.CodeCVOAbandonedUpdate, inspect.CodeInstallerInterrupted, inspect.CodeDrainBlockedByUnseenPDB} {
				if w := wedgeOf(s, code); w == nil || len(w.Timeline) == 0 {
					t.Errorf("the wedge of %s names no timeline entry: %+v", code, w)
				}
			}
		})
	}
}

// TestCleanUpdateLogsProveNothing: logs of a clean update (the payload loaded,
// the graph ran to its end, then Reconciling; installers that wrote their
// manifests; daemons that drained nothing) raise no log finding and add no
// evidence.
func TestCleanUpdateLogsProveNothing(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "mg")
	copyDir(t, example1, dst, nil)
	copyDir(t, cleanLogs, dst, nil)
	s := collect(t, New(dst))
	if s.Logs == nil || len(s.Logs.Files) < 6 || len(s.Logs.Entries) == 0 {
		t.Fatalf("the clean logs were not read: %+v", s.Logs)
	}
	for _, code := range []string{inspect.CodeCVOAbandonedUpdate, inspect.CodeInstallerInterrupted, inspect.CodeDrainBlockedByUnseenPDB,
		inspect.CodeCVORetryingManifest, inspect.CodeNodeDegradedInLog, inspect.CodeCSRNotAuthorizedInLog} {
		if got := s.FindingsWithCode(code); len(got) > 0 {
			t.Errorf("%s fired on a clean update: %+v", code, got)
		}
	}
	for _, f := range s.Findings {
		for _, e := range f.Evidence {
			if strings.Contains(e.Source, "/logs/") {
				t.Errorf("%s on %s gained log evidence from a clean update: %+v", f.Code, f.Subject, e)
			}
		}
	}
	// The objects' findings are those of incident 1, logs or not.
	base := collect(t, New(example1))
	if got, want := codeSet(s), codeSet(base); got != want {
		t.Errorf("clean logs changed the findings:\n%s\nwant\n%s", got, want)
	}
}

// TestLogProvenance: each namespace's logs are recorded, collected or absent,
// and a must-gather without logs says so without a NotCollected finding.
func TestLogProvenance(t *testing.T) {
	s := collect(t, New(exampleLogs))
	states := map[string]inspect.CollectionState{}
	for _, r := range s.Logs.Sources {
		states[r.Namespace] = r.State
		if r.Resource != inspect.LogResource || len(r.From) == 0 {
			t.Errorf("record %+v", r)
		}
	}
	for ns, want := range map[string]inspect.CollectionState{
		"openshift-cluster-version": inspect.Collected, "openshift-kube-apiserver": inspect.Collected, "openshift-machine-config-operator": inspect.Collected,
		"openshift-etcd": inspect.Absent, "openshift-cluster-machine-approver": inspect.Absent,
	} {
		if states[ns] != want {
			t.Errorf("logs of %s: %s, want %s", ns, states[ns], want)
		}
	}
	for _, f := range s.Logs.Files {
		if f.Family == inspect.LogFamilyMachineConfigDaemon && f.Node == "" {
			t.Errorf("daemon log %s has no node", f.Path)
		}
	}
	old := collect(t, New(example1))
	if old.Logs == nil || len(old.Logs.Files) != 0 || len(old.Logs.Sources) != 7 {
		t.Fatalf("a must-gather without logs: %+v", old.Logs)
	}
	for _, f := range old.FindingsWithCode(inspect.CodeNotCollected) {
		if strings.Contains(f.Subject, "log") {
			t.Errorf("absent logs made a NotCollected finding: %+v", f)
		}
	}
}

func finding(t *testing.T, s *inspect.Snapshot, code, subject string) *inspect.Finding {
	t.Helper()
	for i, f := range s.Findings {
		if f.Code == code && f.Subject == subject {
			return &s.Findings[i]
		}
	}
	t.Fatalf("no %s on %s; findings: %s", code, subject, codeSet(s))
	return nil
}

// evidence returns the finding's evidence from the line whose source ends with
// suffix and whose text contains text; it must carry the line's time.
func evidence(t *testing.T, f *inspect.Finding, suffix, text string) inspect.Evidence {
	t.Helper()
	for _, e := range f.Evidence {
		if strings.HasSuffix(e.Source, suffix) && strings.Contains(e.Text, text) {
			if e.Time.IsZero() || e.Time.Year() != 2020 {
				t.Errorf("evidence %s has time %s", e.Source, e.Time)
			}
			return e
		}
	}
	t.Fatalf("%s has no evidence from %s saying %q: %+v", f.Code, suffix, text, f.Evidence)
	return inspect.Evidence{}
}

func timelineID(t *testing.T, s *inspect.Snapshot, source string) string {
	t.Helper()
	for _, e := range s.Timeline.Entries {
		if e.Source == source {
			if len(e.Findings) == 0 {
				t.Errorf("timeline entry %s (%s) is linked to no finding", e.ID, source)
			}
			return e.ID
		}
	}
	t.Fatalf("no timeline entry from %s", source)
	return ""
}

func idNum(id string) int {
	n := 0
	for _, c := range strings.TrimPrefix(id, "t") {
		n = n*10 + int(c-'0')
	}
	return n
}

func wedgeOf(s *inspect.Snapshot, code string) *inspect.Wedge {
	for i := range s.Wedges {
		if s.Wedges[i].Code == code {
			return &s.Wedges[i]
		}
	}
	return nil
}

func codeSet(s *inspect.Snapshot) string {
	var b bytes.Buffer
	for _, f := range s.Findings {
		b.WriteString(f.Code + "@" + f.Subject + "\n")
	}
	return b.String()
}

// TestExampleReports pins the reports a support case reads for the BZ1838497
// example: the table and the Markdown, the causes with their timeline entries
// and the timeline itself.
func TestExampleReports(t *testing.T) {
	s := collect(t, New(exampleLogs))
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"table", func(b *bytes.Buffer) error {
			return inspect.WriteReport(b, s, inspect.ReportOptions{SourceArgs: "--must-gather mg"})
		}},
		{"markdown", func(b *bytes.Buffer) error {
			return inspect.WriteMarkdown(b, s, inspect.ReportOptions{SourceArgs: "--must-gather mg"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"CVOAbandonedUpdate", "InstallerInterrupted", "DrainBlockedByUnseenPDB", "t24", "current.log:15"} {
				if !strings.Contains(b.String(), want) {
					t.Errorf("the %s report does not say %q", tc.name, want)
				}
			}
			golden.Assert(t, golden.Path(t), b.Bytes())
		})
	}
}
