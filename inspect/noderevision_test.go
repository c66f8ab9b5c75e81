package inspect

import "testing"

func TestNodeRevisionPredicates(t *testing.T) {
	mirror := &StaticPod{Name: "etcd-m0", Node: "m0"}
	for _, tc := range []struct {
		name      string
		n         NodeRevision
		podsKnown bool
		mismatch  bool
		missing   bool
	}{
		{"agree", NodeRevision{Listed: true, Claimed: 7, Running: 7, Mirror: mirror}, true, false, false},
		{"runs another revision", NodeRevision{Listed: true, Claimed: 8, Running: 7, Mirror: mirror}, true, true, false},
		{"unlabeled mirror proves nothing", NodeRevision{Listed: true, Claimed: 8, Running: 0, Mirror: mirror}, true, false, false},
		{"no claim yet", NodeRevision{Listed: true, Claimed: 0, Running: 7, Mirror: mirror}, true, false, false},
		{"not listed", NodeRevision{Running: 7, Mirror: mirror}, true, false, false},
		{"no mirror pod", NodeRevision{Listed: true, Claimed: 7}, true, false, true},
		{"pods not collected", NodeRevision{Listed: true, Claimed: 7}, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.n.RevisionMismatch(); got != tc.mismatch {
				t.Errorf("RevisionMismatch = %v, want %v", got, tc.mismatch)
			}
			if got := tc.n.MissingMirror(tc.podsKnown); got != tc.missing {
				t.Errorf("MissingMirror = %v, want %v", got, tc.missing)
			}
		})
	}
}

func TestSummaryKubeletSkew(t *testing.T) {
	sum := &Summary{OldestKubeAPIServer: &KubeAPIServerVersion{Version: "1.25.4"}}
	for _, tc := range []struct {
		kubelet string
		ok      bool
		skew    int
		newer   bool
	}{
		{"v1.25.4", true, 0, false},
		{"v1.24.6", true, -1, false},
		{"v1.26.0", true, 1, true},
		{"banana", false, 0, false},
		{"", false, 0, false},
	} {
		v, ok := sum.KubeletSkew(tc.kubelet)
		if ok != tc.ok || v.Skew != tc.skew || v.Newer != tc.newer {
			t.Errorf("KubeletSkew(%q) = %+v, %v", tc.kubelet, v, ok)
		}
	}
	if _, ok := (&Summary{}).KubeletSkew("v1.25.4"); ok {
		t.Error("no oldest kube-apiserver: the skew is unknown")
	}
	if _, ok := (*Summary)(nil).KubeletSkew("v1.25.4"); ok {
		t.Error("nil summary: the skew is unknown")
	}
}
