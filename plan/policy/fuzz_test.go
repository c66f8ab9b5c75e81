package policy

import (
	"encoding/json"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/internal/testing/inputcheck"
)

// FuzzParse feeds arbitrary bytes to the policy reader (recover plan --policy): a
// failure must be a one-line bad-input error; a policy that parses is complete,
// never allows more than one minor per hop, and parses to itself again from its
// own YAML.
func FuzzParse(f *testing.F) {
	f.Add([]byte(DefaultYAML))
	f.Add([]byte("apiVersion: recover.openshift.io/v1alpha1\nkind: TransitionPolicy\nmaxMinorHop: 0\ndowngrades: WithinMinor\n"))
	f.Add([]byte("apiVersion: recover.openshift.io/v1alpha1\nkind: TransitionPolicy\nmaxMinorHop: 2\n"))
	f.Add([]byte("apiVersion: recover.openshift.io/v1alpha1\nkind: TransitionPolicy\nunknown: 1\n"))
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\n"))
	f.Add([]byte("kind: TransitionPolicy\nkind: TransitionPolicy\n"))
	f.Add([]byte("{\"apiVersion\":\"recover.openshift.io/v1alpha1\",\"kind\":\"TransitionPolicy\",\"historyCandidates\":\"yes\"}"))
	f.Add([]byte{0xff, 0x00, ':'})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("policy.yaml", data)
		if err != nil {
			if pr := inputcheck.Problem(err); pr != "" {
				t.Fatal(pr)
			}
			return
		}
		if p.MaxMinorHop == nil || *p.MaxMinorHop > MaxAllowedMinorHop || *p.MaxMinorHop < 0 || p.HistoryCandidates == nil || p.Downgrades == "" || p.Upgradeable == "" || p.KubeletSkew == "" {
			t.Fatalf("a parsed policy is not complete and within bounds: %+v", p)
		}
		js, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		out, err := yaml.JSONToYAML(js)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse("again.yaml", out)
		if err != nil {
			t.Fatalf("a parsed policy written back does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(p, again) {
			t.Fatalf("the policy changed over a round trip: %+v, then %+v", p, again)
		}
	})
}
