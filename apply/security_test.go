package apply_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/recoverbin"
)

// TestSecretValuesNeverLeaveTheCluster applies the full test plan, whose Secret
// changes a live Secret's value, with the real binary: as a dry run with plain
// diffs, then for real with JSON events, then summarises the journal. Neither
// the old nor the new value (in clear or base64) may appear on any output stream
// or in the journal; the diffs must show the change as hashes. The journal must
// be private (0600).
func TestSecretValuesNeverLeaveTheCluster(t *testing.T) {
	c, ctx := setup(t)
	b, sc := applytest.FullPlan("sec")
	prepareScenario(t, ctx, c, sc)
	const oldValue, newValue = "old-secret-value", "super-secret-value"
	if !strings.Contains(string(b.Plan().Steps[5].Manifest.Object), base64.StdEncoding.EncodeToString([]byte(newValue))) {
		t.Fatal("the full plan's Secret step moved; update this test")
	}
	live := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "token", Namespace: sc.Namespace, Annotations: map[string]string{
		"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"token":"` + base64.StdEncoding.EncodeToString([]byte(oldValue)) + `"}}`}},
		Data: map[string][]byte{"token": []byte(oldValue)}}
	if _, err := c.Kube.CoreV1().Secrets(sc.Namespace).Create(ctx, live, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	dir := t.TempDir()
	planPath := b.Write(t, dir)
	journalPath := filepath.Join(dir, "run.journal")
	kc := []string{"--kubeconfig", c.env.Kubeconfig}

	var outputs []string
	run := func(want int, args ...string) string {
		code, out, errOut := recoverbin.Run(t, nil, append(kc, args...)...)
		if code != want {
			t.Fatalf("%v: exit %d, want %d: %s", args, code, want, errOut)
		}
		outputs = append(outputs, out, errOut)
		return out
	}
	dry := run(0, "apply", "--plan", planPath, "--dry-run", "--diff", "--allow-stale")
	run(0, "apply", "--plan", planPath, "--journal", journalPath, "--yes", "--i-have-a-backup", "--allow-stale", "--events", "json")
	run(0, "journal", journalPath)
	run(0, "journal", journalPath, "-o", "json")
	journal := readFile(t, journalPath)
	outputs = append(outputs, journal)

	if !strings.Contains(dry, "redacted sha256:") || !strings.Contains(journal, "redacted sha256:") {
		t.Fatalf("the Secret's change must show, hashed, in the dry run's diff and in the journal's intent:\n%s", dry)
	}
	for _, v := range []string{oldValue, newValue} {
		for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
			for i, o := range outputs {
				if strings.Contains(o, form) {
					t.Errorf("output %d holds the Secret value %q:\n%s", i, form, o)
				}
			}
		}
	}
	st, err := os.Stat(journalPath)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("journal mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	got, err := c.Kube.CoreV1().Secrets(sc.Namespace).Get(context.Background(), "token", metav1.GetOptions{})
	if err != nil || string(got.Data["token"]) != newValue {
		t.Fatalf("the plan must still have applied the Secret: %v", err)
	}
}
