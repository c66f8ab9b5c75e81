package inspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
)

// readRepoFile reads a file relative to the repository root.
func readRepoFile(rel string) (string, error) {
	data, err := os.ReadFile(filepath.Join("..", rel))
	return string(data), err
}

func TestFingerprintIgnoresOrderAndTimes(t *testing.T) {
	a := healthy().snapshot().Fingerprint()
	f := healthy()
	// Reverse every list and move every timestamp: nothing a plan depends on changed.
	for i, j := 0, len(f.cos)-1; i < j; i, j = i+1, j-1 {
		f.cos[i], f.cos[j] = f.cos[j], f.cos[i]
	}
	for i, j := 0, len(f.nodes)-1; i < j; i, j = i+1, j-1 {
		f.nodes[i], f.nodes[j] = f.nodes[j], f.nodes[i]
	}
	for i, j := 0, len(f.pods)-1; i < j; i, j = i+1, j-1 {
		f.pods[i], f.pods[j] = f.pods[j], f.pods[i]
	}
	f.now = f.now.Add(3 * time.Hour)
	f.cv.Status.Conditions[0].LastTransitionTime = ago(-time.Minute)
	f.cv.ResourceVersion = "99999"
	f.node("worker-0").ResourceVersion = "12345"
	b := f.snapshot().Fingerprint()
	if a != b || !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+64 {
		t.Fatalf("fingerprints differ for the same state: %s vs %s", a, b)
	}
}

func TestFingerprintTracksWhatAPlanDependsOn(t *testing.T) {
	base := healthy().snapshot().Fingerprint()
	for name, mutate := range map[string]func(f *fixture){
		"kubelet":          func(f *fixture) { f.node("worker-0").Status.NodeInfo.KubeletVersion = "v1.17.2" },
		"node config":      func(f *fixture) { f.node("worker-0").Annotations[annDesiredConfig] = "rendered-worker-x" },
		"operator version": func(f *fixture) { f.co("dns").Status.Versions[0].Version = "4.4.3" },
		"static revision":  func(f *fixture) { f.pod("kube-apiserver-master-0").Labels["revision"] = "6" },
		"pool paused":      func(f *fixture) { f.pools[0].Spec.Paused = true },
		"cvo replicas":     func(f *fixture) { f.deploys[len(f.deploys)-1].Spec.Replicas = new(int32) },
		"desired update":   func(f *fixture) { f.cv.Spec.DesiredUpdate.Version = "4.4.5" },
		"history state":    func(f *fixture) { f.cv.Status.History[0].State = configv1.PartialUpdate },
		"overrides": func(f *fixture) {
			f.cv.Spec.Overrides = []configv1.ComponentOverride{{Kind: "Deployment", Name: "x", Unmanaged: true}}
		},
		"not collected": func(f *fixture) { f.forbidden = []string{"machineconfigs.machineconfiguration.openshift.io"} },
	} {
		f := healthy()
		mutate(f)
		if got := f.snapshot().Fingerprint(); got == base {
			t.Errorf("%s: fingerprint did not change", name)
		}
	}
}

func TestSnapshotJSONRoundTrip(t *testing.T) {
	f := healthy()
	f.co("dns").Status.Versions[0].Version = "4.4.3"
	s := f.snapshot()
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"formatVersion":"1.0"`) {
		t.Fatalf("snapshot JSON has no formatVersion: %.200s", buf.String())
	}
	back, err := FileSource{Path: "-", In: &buf}.Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if back.Fingerprint() != s.Fingerprint() || len(back.Findings) != len(s.Findings) || back.CVOMode() != s.CVOMode() {
		t.Fatalf("round trip changed the snapshot: %s/%d vs %s/%d", back.Fingerprint(), len(back.Findings), s.Fingerprint(), len(s.Findings))
	}
}

func TestReadSnapshotRejectsBadInput(t *testing.T) {
	for name, in := range map[string]string{
		"not json":     "formatVersion: 1.0",
		"no version":   `{"nodes": []}`,
		"future major": `{"formatVersion": "2.0"}`,
		"truncated":    `{"formatVersion": "1.0", "nodes": [`,
	} {
		_, err := ReadSnapshot(strings.NewReader(in))
		var ie *InputError
		if err == nil || !errorsAs(err, &ie) || !ie.BadInput() || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: want a one-line InputError, got %v", name, err)
		}
	}
}

func errorsAs(err error, target **InputError) bool { return errors.As(err, target) }
