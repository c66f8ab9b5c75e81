package logs

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/openshift-recover/recover/inspect"
)

// generateCVOLog writes a CVO log of about size bytes as a CVO at V(4) writes
// it: mostly "Running sync for"/"Done syncing for" lines of the manifests, a sync
// line and a Result of work every 573 manifests, now and then a failed apply.
func generateCVOLog(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 512)
	for i := 0; b.Len() < size; i++ {
		s := i % 86400
		stamp := fmt.Sprintf("2020-05-24T%02d:%02d:%02d.%06d000Z I0524 %02d:%02d:%02d.%06d       1 ", s/3600%24, s/60%60, s%60, i%1000000, s/3600%24, s/60%60, s%60, i%1000000)
		switch {
		case i%1200 == 0:
			fmt.Fprintf(&b, "%ssync_worker.go:471] Running sync 4.4.3 (force=false) on generation 2 in state Reconciling at attempt 0\n", stamp)
		case i%1200 == 1199:
			fmt.Fprintf(&b, "%stask_graph.go:611] Result of work: []\n", stamp)
		case i%5000 == 17:
			fmt.Fprintf(&b, "%stask.go:77] error running apply for clusteroperator \"kube-apiserver\" (99 of 573): Cluster operator kube-apiserver is still updating\n", stamp)
		case i%2 == 0:
			fmt.Fprintf(&b, "%ssync_worker.go:621] Running sync for configmap \"openshift-config-managed/cm-%d\" (%d of 573)\n", stamp, i%573, i%573)
		default:
			fmt.Fprintf(&b, "%ssync_worker.go:634] Done syncing for configmap \"openshift-config-managed/cm-%d\" (%d of 573)\n", stamp, i%573, i%573)
		}
	}
	return b.Bytes()
}

// generateMCDLog writes a machine-config daemon's log of about size bytes: its
// routine lines and, while a budget holds its drain, a refused eviction every
// few lines.
func generateMCDLog(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 512)
	for i := 0; b.Len() < size; i++ {
		s := i % 86400
		stamp := fmt.Sprintf("2020-05-24T%02d:%02d:%02d.%06d000Z I0524 %02d:%02d:%02d.%06d    2214 ", s/3600%24, s/60%60, s%60, i%1000000, s/3600%24, s/60%60, s%60, i%1000000)
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "%supdate.go:99] error when evicting pods/\"web-%d\" -n \"shop\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n", stamp, i%7)
		case 1:
			fmt.Fprintf(&b, "%sdaemon.go:1188] Validating against current config rendered-worker-36d4519b5402262e370b728f72cd98a9\n", stamp)
		default:
			fmt.Fprintf(&b, "%srpm-ostree.go:261] Running captured: rpm-ostree kargs\n", stamp)
		}
	}
	return b.Bytes()
}

// BenchmarkScan measures one log scanned in memory, per family: the parser's
// speed in MB/s of log.
func BenchmarkScan(b *testing.B) {
	for _, tc := range []struct {
		family string
		data   []byte
	}{
		{inspect.LogFamilyCVO, generateCVOLog(64 << 20)},
		{inspect.LogFamilyMachineConfigDaemon, generateMCDLog(64 << 20)},
	} {
		b.Run(tc.family, func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			f := inspect.LogFile{Path: "bench.log", Namespace: "ns", Pod: "pod", Container: "c", Family: tc.family}
			for b.Loop() {
				if _, _, err := Scan(context.Background(), bytes.NewReader(tc.data), f, Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
