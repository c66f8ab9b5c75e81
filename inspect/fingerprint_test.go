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
	operatorv1 "github.com/openshift/api/operator/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/openshift-recover/recover/internal/openshift"
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
	if !strings.Contains(buf.String(), `"formatVersion":"`+FormatVersion+`"`) {
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

// wedgeSnapshot builds the drain world with a pending CSR, admin acks and a
// forced redeployment, every resource recorded as collected.
func wedgeSnapshot(mut func(w *drainWorld, b *Builder)) *Snapshot {
	w := newDrainWorld()
	b := NewBuilder(SourceLive, "t")
	if mut != nil {
		mut(&w, b)
	}
	for _, n := range w.nodes {
		b.AddNode(n)
	}
	for _, p := range w.pdbs {
		b.AddPodDisruptionBudget(p)
	}
	for _, p := range w.pods {
		b.AddPod(p)
	}
	for _, r := range WedgeResources() {
		b.Record(ResourceStatus{Resource: r.Resource.Key(), Namespace: r.Namespace, State: Collected})
	}
	return b.Finish()
}

func TestFingerprintTracksWhatARemedyDependsOn(t *testing.T) {
	base := wedgeSnapshot(nil).Fingerprint()
	if again := wedgeSnapshot(nil).Fingerprint(); again != base {
		t.Fatalf("the same state gives two fingerprints")
	}
	for name, tc := range map[string]struct {
		mut     func(w *drainWorld, b *Builder)
		changes bool
	}{
		"drain pdb allows a disruption": {func(w *drainWorld, b *Builder) { w.pdbs[1].Status.DisruptionsAllowed = 1 }, true},
		"drain pdb relaxed": {func(w *drainWorld, b *Builder) {
			w.pdbs[0].Spec.MinAvailable = nil
			w.pdbs[0].Spec.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		}, true},
		"drain pdb eviction policy": {func(w *drainWorld, b *Builder) {
			w.pdbs[0].Spec.UnhealthyPodEvictionPolicy = ptr.To(policyv1.AlwaysAllow)
		}, true},
		"pending csr": {func(w *drainWorld, b *Builder) {
			b.AddCertificateSigningRequest(&certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "csr-1"}})
		}, true},
		"admin ack": {func(w *drainWorld, b *Builder) {
			b.AddConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: openshift.AdminAcksNamespace, Name: openshift.AdminAcksConfigMap},
				Data: map[string]string{"ack-4.18-kube-1.32-api-removals-in-4.19": "true"}})
		}, true},
		"force redeployment": {func(w *drainWorld, b *Builder) {
			b.SetStaticPodOperator("etcds", metav1.ObjectMeta{Name: "cluster"}, operatorv1.StaticPodOperatorSpec{ForceRedeploymentReason: "x"}, operatorv1.StaticPodOperatorStatus{})
		}, true},
		"upgradeable-to": {func(w *drainWorld, b *Builder) {
			b.SetCloudCredential(&operatorv1.CloudCredential{ObjectMeta: metav1.ObjectMeta{Name: "cluster", Annotations: map[string]string{openshift.AnnotationUpgradeableTo: "4.19"}}})
		}, true},
		// A budget that holds no drain, a pod moving between healthy nodes,
		// an approved CSR: nothing a remedy depends on.
		"pdb holding no drain": {func(w *drainWorld, b *Builder) {
			w.pdbs = append(w.pdbs, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "idle"},
				Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "none"}}}})
		}, false},
		"pod off a drained node": {func(w *drainWorld, b *Builder) { w.pods[3].Spec.NodeName = "master-1" }, false},
		"approved csr": {func(w *drainWorld, b *Builder) {
			b.AddCertificateSigningRequest(&certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "csr-2"}, Status: certificatesv1.CertificateSigningRequestStatus{
				Conditions: []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue}}}})
		}, false},
	} {
		if got := wedgeSnapshot(tc.mut).Fingerprint(); (got != base) != tc.changes {
			t.Errorf("%s: fingerprint changed %v, want %v", name, got != base, tc.changes)
		}
	}
}

// TestFingerprintOfSourcesWithoutWedgeFacts: a must-gather that predates the
// wedge facts (every wedge resource Absent) matches a live cluster where nothing
// is wedged, so plans made from it still apply; and the digest of such a
// snapshot is what it was before formatVersion 1.1.
func TestFingerprintOfSourcesWithoutWedgeFacts(t *testing.T) {
	live := healthy().snapshot()
	offline := *live
	offline.Resources = append([]ResourceStatus(nil), live.Resources...)
	for _, r := range WedgeResources() {
		offline.Resources = append(offline.Resources, ResourceStatus{Resource: r.Resource.Key(), Namespace: r.Namespace, State: Absent})
	}
	if live.Fingerprint() != offline.Fingerprint() {
		t.Fatal("absent wedge resources change the fingerprint")
	}
	// The healthy fixture's fingerprint before the wedge facts existed
	// (formatVersion 1.0's fingerprintDoc).
	const before = "sha256:5fab3fcee1119c37dba42b22a825e5262e1ebfa4b03ac19d1eab2e77a07cae08"
	if got := live.Fingerprint(); got != before {
		t.Errorf("the fingerprint of a snapshot without wedge facts changed: %s, was %s", got, before)
	}
}

func TestReadingA10SnapshotRecordsTheWedgeFactsAsNotCollected(t *testing.T) {
	s := healthy().snapshot()
	s.FormatVersion = "1.0"
	var keep []ResourceStatus
	wedge := map[string]bool{}
	for _, r := range WedgeResources() {
		wedge[r.Key()] = true
	}
	for _, r := range s.Resources {
		if !wedge[r.Key()] {
			keep = append(keep, r)
		}
	}
	s.Resources = keep
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := FileSource{Path: "-", In: bytes.NewReader(data)}.Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// One NotCollected finding names them all: the snapshot predates them.
	listed := map[string]bool{}
	for _, f := range back.FindingsWithCode(CodeNotCollected) {
		if f.Subject == "resources/wedge-facts" {
			for _, k := range strings.Split(f.Details["resources"], ",") {
				listed[k] = true
			}
		}
	}
	for _, r := range WedgeResources() {
		if back.stateIn(r.Resource.Key(), r.Namespace) != Absent || !listed[r.Key()] {
			t.Errorf("%s: state %s, listed as not collected %v", r.Key(), back.stateIn(r.Resource.Key(), r.Namespace), listed[r.Key()])
		}
	}
	if back.Fingerprint() != s.Fingerprint() {
		t.Error("reading a 1.0 snapshot changed its fingerprint")
	}
	// Reading what was read again adds nothing.
	again, _ := json.Marshal(back)
	back2, err := ReadSnapshot(bytes.NewReader(again))
	if err != nil || len(back2.Resources) != len(back.Resources) {
		t.Fatalf("second read: %v, %d vs %d records", err, len(back2.Resources), len(back.Resources))
	}
	// A 1.1 snapshot is left as it is.
	s.FormatVersion = FormatVersion
	data, _ = json.Marshal(s)
	cur, err := ReadSnapshot(bytes.NewReader(data))
	if err != nil || len(cur.Resources) != len(s.Resources) {
		t.Fatalf("a %s snapshot got records: %v", FormatVersion, err)
	}
}
