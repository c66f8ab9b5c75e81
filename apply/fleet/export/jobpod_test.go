package export_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift-recover/recover/apply"
	fleetexport "github.com/openshift-recover/recover/apply/fleet/export"
)

// drainRules reads docs/apply.md's list of what the apply Job's pod must be
// ("The drain or reboot of its own node": the bullets after "must have time
// to revert:").
func drainRules(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "apply.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "must have time to revert:\n")
	if !ok {
		t.Fatal(`docs/apply.md no longer has the list after "must have time to revert:": update this test with it`)
	}
	var rules []string
	for _, line := range strings.Split(strings.TrimLeft(after, "\n"), "\n") {
		if !strings.HasPrefix(line, "- ") {
			break
		}
		rules = append(rules, line)
	}
	if len(rules) == 0 {
		t.Fatal("docs/apply.md's list of the Job's requirements is empty")
	}
	return rules
}

// TestTheJobsAreWhatDocsApplyAsks holds every Job the templates carry to
// docs/apply.md's list, read from the doc itself: each bullet is checked, and
// a bullet this test does not know fails it (a new requirement must be
// checked here, not skipped).
func TestTheJobsAreWhatDocsApplyAsks(t *testing.T) {
	p := examplePlan(t)
	rules := drainRules(t)
	for _, engine := range []fleetexport.Engine{fleetexport.EngineTALM, fleetexport.EngineOCM} {
		o := options(engine, p)
		in, err := fleetexport.InspectTemplate(o)
		if err != nil {
			t.Fatal(err)
		}
		ap, err := fleetexport.ApplyTemplate(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, tmpl := range []*fleetexport.Template{in, ap} {
			manifests, _, _ := unstructured.NestedSlice(tmpl.Object, "spec", "manifestWorkTemplate", "workload", "manifests")
			var jobs []batchv1.Job
			kinds := map[string]bool{}
			for _, m := range manifests {
				u := &unstructured.Unstructured{Object: m.(map[string]any)}
				kinds[u.GetKind()] = true
				if u.GetKind() != "Job" {
					continue
				}
				var j batchv1.Job
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &j); err != nil {
					t.Fatal(err)
				}
				jobs = append(jobs, j)
			}
			if len(jobs) != 1 {
				t.Fatalf("%d Jobs in a template, want 1", len(jobs))
			}
			j := jobs[0]
			pod := j.Spec.Template.Spec
			for _, rule := range rules {
				switch {
				case strings.Contains(rule, "PodDisruptionBudget"):
					if kinds["PodDisruptionBudget"] {
						t.Errorf("%s: a PodDisruptionBudget in the template (%s)", j.Name, rule)
					}
				case strings.Contains(rule, "`emptyDir`"):
					for _, v := range pod.Volumes {
						if v.EmptyDir != nil || v.HostPath != nil {
							t.Errorf("%s: volume %s is an emptyDir or hostPath (%s)", j.Name, v.Name, rule)
						}
					}
				case strings.Contains(rule, "owned by a Job"):
					// It is a Job's pod template: the Job controller owns its pods.
				case strings.Contains(rule, "terminationGracePeriodSeconds"):
					m := regexp.MustCompile(`at least (\d+)`).FindStringSubmatch(rule)
					if m == nil {
						t.Fatalf("no number in %q", rule)
					}
					least, _ := strconv.ParseInt(m[1], 10, 64)
					if least < int64(apply.DefaultRevertTimeout/time.Second) {
						t.Errorf("docs/apply.md asks %d s, less than the reverts' %v", least, apply.DefaultRevertTimeout)
					}
					if g := pod.TerminationGracePeriodSeconds; g == nil || *g < least {
						t.Errorf("%s: terminationGracePeriodSeconds %s, docs/apply.md asks at least %d", j.Name, orUnset(g), least)
					}
				case strings.Contains(rule, "`restartPolicy: Never`"):
					if pod.RestartPolicy != "Never" {
						t.Errorf("%s: restartPolicy %q (%s)", j.Name, pod.RestartPolicy, rule)
					}
					if j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit < 3 {
						t.Errorf("%s: backoffLimit %v leaves no room for an eviction or a reboot", j.Name, j.Spec.BackoffLimit)
					}
				default:
					t.Errorf("docs/apply.md asks the Job %q, which this test does not check: add it", rule)
				}
			}
		}
	}
}

func orUnset(p *int64) string {
	if p == nil {
		return "unset (30)"
	}
	return strconv.FormatInt(*p, 10)
}
