package common

import (
	"encoding/json"
	"testing"

	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/plan/planfile"
)

func TestFieldPath(t *testing.T) {
	for _, tc := range []struct {
		path []string
		want string
	}{
		{[]string{"spec", "minAvailable"}, "spec.minAvailable"},
		{[]string{"data", "ack-4.18-kube-1.32-api-removals-in-4.19"}, `data["ack-4.18-kube-1.32-api-removals-in-4.19"]`},
		{[]string{"metadata", "annotations", "cloudcredential.openshift.io/upgradeable-to"}, `metadata.annotations["cloudcredential.openshift.io/upgradeable-to"]`},
	} {
		if got := FieldPath(tc.path); got != tc.want {
			t.Errorf("FieldPath(%q) = %q, want %q", tc.path, got, tc.want)
		}
		if got := FieldKeyText(journal.FieldKey(tc.path)); got != tc.want {
			t.Errorf("FieldKeyText of %q = %q, want %q", journal.FieldKey(tc.path), got, tc.want)
		}
	}
}

func TestChangeFieldsAreExactlyTheChangesFields(t *testing.T) {
	c := &planfile.Change{
		Object: planfile.ObjectRef{Kind: "PodDisruptionBudget", Namespace: "ci", Name: "deck"},
		Fields: [][]string{{"spec", "minAvailable"}, {"spec", "maxUnavailable"}},
		Before: json.RawMessage(`{"spec":{"maxUnavailable":null,"minAvailable":2,"selector":{"x":"y"}}}`),
		Patch:  json.RawMessage(`{"spec":{"maxUnavailable":null,"minAvailable":0}}`),
	}
	got := ChangeFields(c)
	want := []FieldChange{{Path: "spec.minAvailable", Before: "2", After: "0"}, {Path: "spec.maxUnavailable", Before: "(absent)", After: "(absent)"}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if ChangeFields(nil) != nil {
		t.Error("no change, no fields")
	}
}

func TestTemporaryText(t *testing.T) {
	relax := &planfile.Step{ID: "005-relax-pdb-ci-deck", Action: planfile.ActionRelaxPDB, RevertedBy: "007-revert-pdb-ci-deck",
		Change: &planfile.Change{Object: planfile.ObjectRef{Kind: "PodDisruptionBudget", Namespace: "ci", Name: "deck"}}}
	if got, want := TemporaryText(relax), "PodDisruptionBudget ci/deck relaxed by step 005 — restored by step 007"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if TemporaryText(&planfile.Step{ID: "002-approve-csr-x", Action: planfile.ActionApproveCSR}) != "" {
		t.Error("a change no revert undoes is not temporary")
	}
	if Paired(relax) != "007-revert-pdb-ci-deck" || Paired(&planfile.Step{Reverts: "005-x"}) != "005-x" || Paired(nil) != "" {
		t.Error("Paired")
	}
}
