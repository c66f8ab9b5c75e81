package apply_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/inputcheck"
	"github.com/openshift-recover/recover/internal/testing/recoverbin"
)

// TestBadBackupRecords runs `recover apply --backup-record` with malformed
// records against the fixture cluster. A record that does not parse exits 4
// (bad input); one that parses but cannot vouch for a backup of this cluster
// exits 7 (preflight refused). Either way the error is one line, no journal is
// written and the cluster is untouched.
func TestBadBackupRecords(t *testing.T) {
	c, ctx := setup(t)
	b, sc := applytest.FullPlan("bkp")
	prepareScenario(t, ctx, c, sc)
	dir := t.TempDir()
	planPath := b.Write(t, dir)
	snapshot := filepath.Join(dir, "etcd-snapshot.db")
	if err := os.WriteFile(snapshot, []byte("not really etcd"), 0o600); err != nil {
		t.Fatal(err)
	}
	sha := strings.Repeat("a", 64)
	good := "path: /var/backup/snapshot.db\nsha256: " + sha + "\netcdRevision: 42\nclusterVersion: " + applytest.CurrentVersion + "\n"
	noise := make([]byte, 4096)
	r := rand.New(rand.NewPCG(3, 3))
	for i := range noise {
		noise[i] = byte(r.UintN(256))
	}
	for _, tc := range []struct {
		name  string
		setup func(p string)
		code  int
		want  string
	}{
		{"missing", func(p string) {}, 4, "no such file"},
		{"malformed YAML", func(p string) { write(t, p, "path: [x\n") }, 4, "backup record"},
		{"unknown field", func(p string) { write(t, p, good+"snapshotPath: /x\n") }, 4, "unknown field"},
		{"wrong types", func(p string) { write(t, p, strings.Replace(good, "42", "forty-two", 1)) }, 4, "backup record"},
		{"binary", func(p string) { write(t, p, string(noise)) }, 4, "backup record"},
		{"a directory", func(p string) { _ = os.Mkdir(p, 0o755) }, 4, "is a directory"},
		{"symlink loop", func(p string) { _ = os.Symlink(filepath.Base(p), p) }, 4, "too many levels of symbolic links"},
		{"huge", func(p string) { write(t, p, ""); _ = os.Truncate(p, 64<<20) }, 4, "backup record"},
		{"wrong kind: a plan", func(p string) { data, _ := os.ReadFile(planPath); write(t, p, string(data)) }, 4, "unknown field"},
		{"empty", func(p string) { write(t, p, "") }, 7, "path is empty"},
		{"sha256 not hex", func(p string) { write(t, p, strings.Replace(good, sha, "xyz", 1)) }, 7, "not 64 lowercase hex digits"},
		{"revision zero", func(p string) { write(t, p, strings.Replace(good, "42", "0", 1)) }, 7, "etcdRevision must be a positive number"},
		{"backup of another version", func(p string) { write(t, p, strings.Replace(good, applytest.CurrentVersion, "4.3.19", 1)) }, 7, "take a new one"},
		{"snapshot path is a device", func(p string) {
			write(t, p, strings.Replace(strings.Replace(good, "/var/backup/snapshot.db", "/dev/zero", 1), applytest.CurrentVersion, "4.3.19", 1))
		}, 7, "take a new one"},
		{"local snapshot does not match", func(p string) { write(t, p, strings.Replace(good, "/var/backup/snapshot.db", snapshot, 1)) }, 7, "not " + sha},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			rec, journalPath := filepath.Join(d, "backup.yaml"), filepath.Join(d, "run.journal")
			tc.setup(rec)
			code, out, errOut := recoverbin.Run(t, nil, "--kubeconfig", c.env.Kubeconfig, "apply", "--plan", planPath, "--journal", journalPath, "--yes", "--allow-stale", "--backup-record", rec)
			line := strings.TrimSuffix(errOut, "\n")
			if code != tc.code || !strings.HasPrefix(line, "error: ") || strings.Contains(line, "\n") || inputcheck.LineProblem(line) != "" || !strings.Contains(line, tc.want) {
				t.Errorf("exit %d (want %d), stderr %q (want one error line with %q); stdout %q", code, tc.code, errOut, tc.want, out)
			}
			if _, err := os.Stat(journalPath); err == nil {
				t.Error("a refused run must not write a journal")
			}
			d2, err := c.Kube.AppsV1().Deployments("openshift-cluster-version").Get(ctx, "cluster-version-operator", metav1.GetOptions{})
			if err != nil || *d2.Spec.Replicas != 1 {
				t.Fatalf("the CVO must be untouched: %v", err)
			}
		})
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
