package overview

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/tui/common"
	"github.com/openshift-recover/recover/tui/keymap"
	"github.com/openshift-recover/recover/tui/styles"
)

func newScreen(s *inspect.Snapshot, w, h int) *Model {
	m := New(&common.Common{Styles: styles.Plain(), Keys: keymap.Default(), Now: time.Now})
	m.SetSnapshot(s)
	m.SetSize(w, h)
	return m
}

func incident(t *testing.T) *inspect.Snapshot {
	t.Helper()
	// go test runs in the package's directory (and -trimpath leaves runtime.Caller
	// no absolute path to start from).
	root := filepath.Join("..", "..")
	s, err := mustgather.New(filepath.Join(root, "examples", "reconciled-4.3-to-4.4", "must-gather")).Collect(context.Background())
	if err != nil {
		t.Fatalf("reading the example must-gather: %v", err)
	}
	return s
}

func TestViewIncident(t *testing.T) {
	m := newScreen(incident(t), 100, 60)
	m.SetTarget("4.4.4")
	v := m.View()
	for _, want := range []string{"CLAIM", "REALITY", "OPERATORS BY VERSION (distance to target 4.4.4)", "NODES BY KUBELET VERSION", "FINDINGS"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q", want)
		}
	}
	golden.Assert(t, golden.Path(t), []byte(v))
}

// TestSetSnapshotChangesNothing: the screen shows what inspect analyzed and
// never analyzes a snapshot itself.
func TestSetSnapshotChangesNothing(t *testing.T) {
	s := &inspect.Snapshot{}
	v := newScreen(s, 80, 10).View()
	if s.Summary != nil || s.Findings != nil {
		t.Fatal("the overview analyzed the snapshot it was given")
	}
	if !strings.Contains(v, "not analyzed") {
		t.Fatalf("an unanalyzed snapshot is not said to be:\n%s", v)
	}
}

// TestStaticPodsUseInspectsChecks: a node the operator lists without a mirror
// pod is "no mirror pod" only when the operand's pods were collected, as
// inspect's finding says; a mismatch needs both revisions known.
func TestStaticPodsUseInspectsChecks(t *testing.T) {
	for _, tc := range []struct {
		name      string
		collected bool
		mirrors   []inspect.StaticPod
		want, not string
	}{
		{"pods not collected", false, nil, "claims agree", "no mirror pod"},
		{"pods collected", true, nil, "m0 claims r7, no mirror pod", ""},
		{"runs another revision", true, []inspect.StaticPod{{Name: "etcd-m0", Node: "m0", Revision: 6}}, "m0 claims r7, runs r6", ""},
		{"unlabeled mirror pod", true, []inspect.StaticPod{{Name: "etcd-m0", Node: "m0"}}, "claims agree", "runs r0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &inspect.Snapshot{StaticPodOperators: []inspect.StaticPodOperator{{
				Resource: "etcds", Component: "etcd", Namespace: "openshift-etcd", Present: true, LatestAvailableRevision: 7,
				NodeStatuses: []operatorv1.NodeStatus{{NodeName: "m0", CurrentRevision: 7}},
				MirrorPods:   tc.mirrors,
			}}}
			if tc.collected {
				s.Resources = []inspect.ResourceStatus{{Resource: inspect.ResPods.Key(), Namespace: "openshift-etcd", State: inspect.Collected}}
			}
			inspect.Refresh(s)
			v := newScreen(s, 100, 60).View()
			if !strings.Contains(v, tc.want) {
				t.Errorf("missing %q in\n%s", tc.want, v)
			}
			if tc.not != "" && strings.Contains(v, tc.not) {
				t.Errorf("unexpected %q in\n%s", tc.not, v)
			}
		})
	}
}
