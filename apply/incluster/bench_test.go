package incluster_test

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/apply/incluster"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// BenchmarkClusterJournalAppend appends a step's worth of records (an intent
// with a 2 KiB diff, an outcome, a gate, a step) per iteration to a journal
// kept in the cluster, on the real API server: the time before a change may
// be made, and, as etcd-bytes/op, what the API server writes to etcd for them
// (every append rewrites its chunk).
func BenchmarkClusterJournalAppend(b *testing.B) {
	kubetest.Require(b, env)
	c, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		b.Fatal(err)
	}
	ns, err := c.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-"}}, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	w, err := journal.CreateIn(incluster.NewJournalStore(c, ns.Name, "bench"), header)
	if err != nil {
		b.Fatal(err)
	}
	diff := strings.Repeat("+  key: value that changes\n", 80)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := strconv.Itoa(i)
		for _, r := range []journal.Record{
			{Type: journal.TypeIntent, Step: id, Action: "apply", Intent: &journal.Intent{Operation: "update", Diff: diff, Object: journal.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "cm-" + id}}},
			{Type: journal.TypeOutcome, Step: id, Action: "apply", Outcome: &journal.Outcome{Result: "updated", ResourceVersion: id}},
			{Type: journal.TypeGate, Step: id, Action: "apply", Gate: &journal.GateResult{Kind: "workload-rollout", Result: "passed"}},
			{Type: journal.TypeStep, Step: id, Action: "apply", Status: journal.StepDone},
		} {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	// Each append stored its chunk whole: the records before it in the chunk
	// and itself.
	written := 0
	for _, cm := range chunks(b, c, ns.Name, "bench") {
		keys := make([]string, 0, len(cm.Data))
		for k := range cm.Data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		size := 0
		for _, k := range keys {
			size += len(cm.Data[k])
			written += size
		}
	}
	b.ReportMetric(float64(written)/float64(b.N), "etcd-bytes/op")
}
