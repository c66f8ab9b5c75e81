package inspect

import (
	"os"
	"strings"
	"testing"
)

// TestFindingRegistryCoversEveryCode walks every code: each has exactly one
// registry entry with a tier, a next command (constant or computed), and a
// section in docs/findings.md; the registry holds no code Codes does not list.
func TestFindingRegistryCoversEveryCode(t *testing.T) {
	doc, err := os.ReadFile("../docs/findings.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, c := range Codes {
		listed[c] = true
		sp := FindingSpecOf(c)
		if sp == nil {
			t.Errorf("%s: no FindingSpec in inspect/findingspec.go", c)
			continue
		}
		if sp.Tier < 1 || sp.Tier > 9 {
			t.Errorf("%s: tier %d, want 1-9", c, sp.Tier)
		}
		if sp.Next == "" && sp.next == nil && sp.Tier < 8 {
			t.Errorf("%s: a tier-%d finding needs its next command (Next or next)", c, sp.Tier)
		}
		if !strings.Contains(string(doc), "\n## "+c+"\n") {
			t.Errorf("%s: docs/findings.md does not document it", c)
		}
	}
	for _, sp := range findingTable {
		if !listed[sp.Code] {
			t.Errorf("%s: registered but not in Codes", sp.Code)
		}
	}
	// docs/findings.md documents the codes in the registry's (Codes') order.
	var sections []string
	for _, line := range strings.Split(string(doc), "\n") {
		if name, ok := strings.CutPrefix(line, "## "); ok && listed[name] {
			sections = append(sections, name)
		}
	}
	if strings.Join(sections, " ") != strings.Join(Codes, " ") {
		t.Errorf("docs/findings.md's sections are not in Codes' order:\n docs:  %v\n Codes: %v", sections, Codes)
	}
	if got := len(FindingSpecs()); got != len(Codes) {
		t.Errorf("FindingSpecs() = %d entries, Codes %d", got, len(Codes))
	}
}
