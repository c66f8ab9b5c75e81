package inspect

import (
	"fmt"
	"math/rand"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// genPool is a MachineConfigPool as the apiserver serves it, drawn from the
// states an update passes through and the odd ones a must-gather shows.
func genPool(r *rand.Rand) *mcfgv1.MachineConfigPool {
	configs := []string{"", "rendered-a", "rendered-b"}
	p := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: []string{"master", "worker", "infra"}[r.Intn(3)], Generation: int64(r.Intn(3))}}
	if r.Intn(2) == 0 {
		p.Labels = map[string]string{openshift.LabelRequiredForUpgradePool: ""}
	}
	p.Spec.Paused = r.Intn(2) == 0
	p.Spec.Configuration.Name = configs[1+r.Intn(2)]
	p.Status.Configuration.Name = configs[r.Intn(3)]
	p.Status.ObservedGeneration = int64(r.Intn(3))
	p.Status.MachineCount = int32(r.Intn(4))
	p.Status.UpdatedMachineCount = int32(r.Intn(int(p.Status.MachineCount) + 1))
	p.Status.DegradedMachineCount = int32(r.Intn(2))
	for _, ct := range []mcfgv1.MachineConfigPoolConditionType{mcfgv1.MachineConfigPoolUpdated, mcfgv1.MachineConfigPoolUpdating} {
		if st := []corev1.ConditionStatus{"", corev1.ConditionTrue, corev1.ConditionFalse}[r.Intn(3)]; st != "" {
			p.Status.Conditions = append(p.Status.Conditions, mcfgv1.MachineConfigPoolCondition{Type: ct, Status: st})
		}
	}
	return p
}

// The pool predicates answer three questions (does the pool gate the update,
// is it rolling, has it rolled out); over generated pools their answers never
// contradict each other, and each reads the field the MCO documents.
func TestPoolPredicatesAgree(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	var rolledOut, rolling int
	for i := 0; i < 5000; i++ {
		api := genPool(r)
		p := MachineConfigPoolFromAPI(api)
		_, labelled := api.Labels[openshift.LabelRequiredForUpgradePool]
		desc := fmt.Sprintf("%s labelled=%t spec=%s status=%s %d/%d degraded=%d gen=%d/%d conds=%v",
			api.Name, labelled, api.Spec.Configuration.Name, api.Status.Configuration.Name, api.Status.UpdatedMachineCount, api.Status.MachineCount,
			api.Status.DegradedMachineCount, api.Status.ObservedGeneration, api.Generation, api.Status.Conditions)

		if got, want := p.GatesUpdate(), labelled || api.Name == openshift.PoolMaster; got != want {
			t.Fatalf("%s: GatesUpdate = %t, want %t", desc, got, want)
		}
		v := PoolRolledOut(p)
		if v.OK && p.Rolling() {
			t.Fatalf("%s: PoolRolledOut OK while Rolling: a gate would pass on a pool the planner sees rolling", desc)
		}
		if v.OK {
			rolledOut++
			if api.Status.UpdatedMachineCount != api.Status.MachineCount || api.Status.DegradedMachineCount != 0 || api.Status.ObservedGeneration < api.Generation {
				t.Fatalf("%s: PoolRolledOut OK with machines behind, degraded or an unobserved spec", desc)
			}
		} else if len(v.Pending) == 0 {
			t.Fatalf("%s: not rolled out, but nothing pending is named", desc)
		}
		if p.Rolling() {
			rolling++
		}
	}
	// The generator must reach both sides of each question, or the property
	// says nothing.
	if rolledOut == 0 || rolling == 0 {
		t.Fatalf("generator reached %d rolled-out and %d rolling pools; want both > 0", rolledOut, rolling)
	}
}

// A pool whose counts say done but whose status.configuration is still the old
// rendered config has not rolled out: the MCO sets status.configuration only
// once every machine is on the spec's (machine-config-operator
// pkg/controller/node/status.go calculateStatus). Before, PoolRolledOut said
// OK here while the planner called the pool rolling.
func TestPoolRolledOutWaitsForStatusConfiguration(t *testing.T) {
	p := MachineConfigPool{Name: "worker", Configuration: "rendered-b", StatusConfiguration: "rendered-a", MachineCount: 3, UpdatedMachineCount: 3}
	if v := PoolRolledOut(p); v.OK {
		t.Fatalf("PoolRolledOut = OK for status.configuration %s != spec %s", p.StatusConfiguration, p.Configuration)
	}
	p.StatusConfiguration = "rendered-b"
	if v := PoolRolledOut(p); !v.OK {
		t.Fatalf("PoolRolledOut pending %v for a pool on its configuration", v.Pending)
	}
}
