package apply_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan/planfile"
)

func percentile(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	return ds[int(float64(len(ds)-1)*p)]
}

// BenchmarkStepOverhead measures the engine's own time per apply step on the real
// API server, without any wait: read the live object, server-side dry run, diff,
// fsync'd intent, update, fsync'd outcome, fsync'd done record, events. Each run
// updates 20 ConfigMaps; the metrics are the median and p90 step durations.
func BenchmarkStepOverhead(b *testing.B) {
	c, ctx := setup(b)
	ns := "recover-bench"
	if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	var steps []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := c.Reset(ctx); err != nil {
			b.Fatal(err)
		}
		pb := applytest.NewPlan().DisableCVO()
		for j := 0; j < 20; j++ {
			pb.Apply(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%d","namespace":%q},"data":{"run":"%d-%d"}}`, j, ns, i, time.Now().UnixNano()), nil)
		}
		p := pb.RestoreCVO().Plan()
		b.StartTimer()
		started := map[string]time.Time{}
		res, events := runWith(b, ctx, mustEngine(b, c), p, defaults(b), func(ev apply.Event) {
			if ev.Step == nil || ev.Step.Action != planfile.ActionApply {
				return
			}
			switch ev.Type {
			case apply.EventStepStarted:
				started[ev.Step.ID] = time.Now()
			case apply.EventStepDone:
				steps = append(steps, time.Since(started[ev.Step.ID]))
			}
		})
		if res.Outcome != apply.OutcomeCompleted {
			b.Fatalf("%s\n%s", res.Message, dump(events))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(steps, 0.5).Microseconds())/1000, "ms/step-median")
	b.ReportMetric(float64(percentile(steps, 0.9).Microseconds())/1000, "ms/step-p90")
}

// BenchmarkGateReaction measures how long a gate takes to pass after its
// condition becomes true: a ClusterOperator gate waits, the benchmark writes the
// operator's status, and the time from that write's return to the gate-passed
// event is the reaction.
func BenchmarkGateReaction(b *testing.B) {
	c, ctx := setup(b)
	name := "bench-reaction"
	cos := c.OSConfig.ConfigV1().ClusterOperators()
	if _, err := cos.Create(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	setVersion := func(v string) time.Time {
		co, err := cos.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		now := metav1.Now()
		co.Status.Versions = []configv1.OperandVersion{{Name: "operator", Version: v}}
		co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{
			{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, LastTransitionTime: now},
			{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, LastTransitionTime: now},
		}
		if _, err := cos.UpdateStatus(ctx, co, metav1.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
		return time.Now()
	}
	p := applytest.NewPlan().Wait("reaction", &planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: name, Versions: []planfile.OperandVersion{{Name: "operator", Version: applytest.TargetVersion}}}).Plan()
	e := mustEngine(b, c)
	var reactions []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		setVersion(applytest.CurrentVersion)
		var satisfied time.Time
		waiting := make(chan struct{}, 1)
		done := make(chan struct{})
		var passed time.Time
		go func() {
			defer close(done)
			res, events := runWith(b, ctx, e, p, defaults(b), func(ev apply.Event) {
				switch ev.Type {
				case apply.EventWaiting:
					select {
					case waiting <- struct{}{}:
					default:
					}
				case apply.EventGatePassed:
					passed = time.Now()
				}
			})
			if res.Outcome != apply.OutcomeCompleted {
				b.Errorf("%s\n%s", res.Message, dump(events))
			}
		}()
		<-waiting
		b.StartTimer()
		satisfied = setVersion(applytest.TargetVersion)
		<-done
		b.StopTimer()
		reactions = append(reactions, passed.Sub(satisfied))
	}
	b.ReportMetric(float64(percentile(reactions, 0.5).Microseconds())/1000, "ms-reaction-median")
	b.ReportMetric(float64(percentile(reactions, 0.9).Microseconds())/1000, "ms-reaction-p90")
}

// BenchmarkRemediationStepOverhead measures the engine's own time per
// remediation step on the real API server: a relax-pdb (live read, pre-image,
// fsync'd intent, patch with the resourceVersion, fsync'd outcome, a
// nodes-settled gate already met, fsync'd done) and its revert (live read, the
// journaled pre-image written back, a restored gate). Each run relaxes and
// restores 10 budgets; the metrics are the median and p90 of each kind.
func BenchmarkRemediationStepOverhead(b *testing.B) {
	c, ctx := setup(b)
	if err := c.SetDrain(ctx, "master-0", "", "", "Done"); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.SetDrain(ctx, "master-0", "", "", "") })
	var relaxes, reverts []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := c.Reset(ctx); err != nil {
			b.Fatal(err)
		}
		pb := applytest.NewPlan().DisableCVO()
		for j := 0; j < 10; j++ {
			pdb := newPDB(b, ctx, c, fmt.Sprintf("bench-%d", j))
			pb.RelaxPDB(pdb.Namespace, pdb.Name, string(pdb.UID), applytest.NodesSettled("master-0"))
			pb.Revert(pb.LastID())
		}
		p := pb.RestoreCVO().Plan()
		b.StartTimer()
		started := map[string]time.Time{}
		res, events := runWith(b, ctx, mustEngine(b, c), p, defaults(b), func(ev apply.Event) {
			if ev.Step == nil {
				return
			}
			switch ev.Type {
			case apply.EventStepStarted:
				started[ev.Step.ID] = time.Now()
			case apply.EventStepDone:
				d := time.Since(started[ev.Step.ID])
				switch ev.Step.Action {
				case planfile.ActionRelaxPDB:
					relaxes = append(relaxes, d)
				case planfile.ActionRevert:
					reverts = append(reverts, d)
				}
			}
		})
		if res.Outcome != apply.OutcomeCompleted {
			b.Fatalf("%s\n%s", res.Message, dump(events))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(relaxes, 0.5).Microseconds())/1000, "ms/relax-median")
	b.ReportMetric(float64(percentile(relaxes, 0.9).Microseconds())/1000, "ms/relax-p90")
	b.ReportMetric(float64(percentile(reverts, 0.5).Microseconds())/1000, "ms/revert-median")
	b.ReportMetric(float64(percentile(reverts, 0.9).Microseconds())/1000, "ms/revert-p90")
}
