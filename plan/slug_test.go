package plan

import (
	"regexp"
	"testing"
)

// TestDashRunsIsTheRegexp keeps dashRuns to the regexp step IDs were first made
// with, ReplaceAllString(s, "-") of [^a-z0-9]+, on ASCII, Unicode and invalid
// UTF-8, and on every step ID of the example plans.
func TestDashRunsIsTheRegexp(t *testing.T) {
	re := regexp.MustCompile(`[^a-z0-9]+`)
	inputs := []string{
		"", "-", "--", "a", "apply-deployment-kube-apiserver-operator", "apply--a..b__c", "-a-", "ä-ö ü", "日本-x",
		"\xff\xfe", "a\xffb", "a\xc3", "0000_50_x.yaml", "wait-static-pods-kube-apiserver", "UPPER lower", "x\u2028y",
	}
	s := snapshot(t, incident1)
	p, err := makeExample(t, s, payload444, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range p.Steps {
		inputs = append(inputs, st.ID, string(st.Action)+"-"+st.Component)
	}
	for _, in := range inputs {
		if got, want := dashRuns(in), re.ReplaceAllString(in, "-"); got != want {
			t.Errorf("dashRuns(%q) = %q, the regexp gives %q", in, got, want)
		}
	}
}
