package resource

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/openshift-recover/recover/internal/testing/referee"
)

// refereeInternalAPI is the Infrastructure status.apiServerInternalURI the
// referee's cluster had: its cvoMain objects point the CVO's Deployment at
// api-int.example.com:6443.
const refereeInternalAPI = "https://api-int.example.com:6443"

func refereeFacts(ctx referee.Context) Facts {
	return Facts{
		Owner:                &metav1.OwnerReference{APIVersion: "config.openshift.io/v1", Kind: "ClusterVersion", Name: ctx.CVName, UID: types.UID(ctx.CVUID)},
		Proxy:                ProxyEnv{HTTPProxy: ctx.Proxy.HTTPProxy, HTTPSProxy: ctx.Proxy.HTTPSProxy, NoProxy: ctx.Proxy.NoProxy},
		APIServerInternalURL: refereeInternalAPI,
	}
}

// cvoAction names recover's operation as the referee names the CVO's action.
func cvoAction(op Operation) string {
	switch op {
	case OpCreate, OpUpdate, OpDelete:
		return string(op)
	}
	return "none"
}

// refereeVerdict is recover's answer to one case, and how it compares.
type refereeVerdict struct {
	action, path string
	object       map[string]any
	err          error
}

func mergeCase(c referee.MergeCase, facts Facts) refereeVerdict {
	var live *unstructured.Unstructured
	if c.Mode == "update" {
		live = c.Live.Unstructured
	}
	res, err := Merge(c.Required.Unstructured, live, facts)
	if err != nil {
		return refereeVerdict{action: "error", err: err}
	}
	v := refereeVerdict{action: cvoAction(res.Operation), path: string(res.Path)}
	if res.Object != nil && (res.Operation == OpCreate || res.Operation == OpUpdate) {
		obj := res.Object.DeepCopy()
		if res.StatusAfterCreate != nil {
			obj.Object["status"] = res.StatusAfterCreate
		}
		v.object = referee.Normalize(obj, live, res.Operation == OpCreate)
	}
	return v
}

// disagreement says how recover's answer differs from a CVO's ("" when it
// agrees).
func disagreement(c referee.MergeCase, got refereeVerdict, want referee.Verdict) string {
	if got.action != want.Action {
		return fmt.Sprintf("action %s (%v), the CVO's %s", got.action, got.err, want.Action)
	}
	if want.Path != "" && got.path != want.Path && got.action != "none" {
		return fmt.Sprintf("path %s, the CVO's %s", got.path, want.Path)
	}
	if want.Action != "create" && want.Action != "update" {
		return ""
	}
	var live *unstructured.Unstructured
	if c.Mode == "update" {
		live = c.Live.Unstructured
	}
	cvo := referee.Normalize(want.Object.Unstructured, live, want.Action == "create")
	if reflect.DeepEqual(got.object, cvo) {
		return ""
	}
	return "object differs:\n" + refereeDiff(cvo, got.object)
}

func refereeDiff(cvo, got map[string]any) string {
	a, _ := yaml.Marshal(cvo)
	b, _ := yaml.Marshal(got)
	return udiff.Unified("cvo", "recover", string(a), string(b))
}

func TestMergeAgreesWithTheCVOReferee(t *testing.T) {
	total := 0
	counts := referee.Counts{}
	vs44 := referee.Counts{}
	for _, file := range []string{referee.MergeCasesFile, referee.MergeCasesSyntheticFile, referee.MergeCases420File} {
		ctx, cases := referee.LoadMergeCases(t, file)
		facts := refereeFacts(ctx)
		for _, c := range cases {
			total++
			got := mergeCase(c, facts)
			if c.Mode == "update" {
				counts[file+": writes on update pairs: "+got.action]++
			}
			if got.action == "error" {
				counts[file+": refused"]++
			}
			if c.CVO44.Action == "" {
				// The 4.20 cases have no 4.4 verdict.
			} else if d44 := disagreement(c, got, c.CVO44); d44 != "" {
				vs44[c.Mode+" "+c.Kind+" "+got.path+": "+strings.SplitN(d44, ":", 2)[0]]++
			}
			d := disagreement(c, got, c.CVOMain)
			if d == "" {
				counts[file+": agree"]++
				continue
			}
			counts[file+": differ"]++
			key := c.Mode + " " + c.Kind + " " + got.path
			counts[key]++
			if counts[key] <= 2 {
				t.Errorf("%s: %s", c.ID, d)
			}
		}
	}
	t.Logf("%d cases\n%sdifferences from the 4.4 CVO (not asserted):\n%s", total, counts, vs44)
}
