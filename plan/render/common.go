package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// sortVersions sorts versions oldest first by semver precedence.
func sortVersions(vs []string) {
	sort.Slice(vs, func(i, j int) bool { return inspect.CompareVersions(vs[i], vs[j]) < 0 })
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// gateText is "kind: description", or "-".
func gateText(g *planfile.Gate) string {
	if g == nil {
		return "-"
	}
	return string(g.Kind)
}

// distance is "11 (6 minor, 29 patch)".
func distance(d planfile.Distance) string {
	return fmt.Sprintf("%d (%d minor, %d patch)", d.Components, d.Minor, d.Patch)
}

// versionGroups groups the ClusterOperator components by version: "4.3.19: a, b".
func versionGroups(cs []planfile.ComponentVersion) []string {
	by := map[string][]string{}
	var order []string
	for _, c := range cs {
		if strings.Contains(c.Name, "/") {
			continue
		}
		v := c.Version
		if v == "" {
			v = "unverified (claims " + orDash(c.Claimed) + ")"
		}
		if _, ok := by[v]; !ok {
			order = append(order, v)
		}
		by[v] = append(by[v], c.Name)
	}
	sortVersions(order)
	var out []string
	for _, v := range order {
		out = append(out, fmt.Sprintf("%s: %s", v, strings.Join(by[v], ", ")))
	}
	return out
}

// kubeletGroups groups the kubelets by Kubernetes version.
func kubeletGroups(cs []planfile.ComponentVersion) []string {
	by := map[string][]string{}
	var order []string
	for _, c := range cs {
		node, ok := strings.CutPrefix(c.Name, "kubelet/")
		if !ok {
			continue
		}
		if _, seen := by[c.Kubernetes]; !seen {
			order = append(order, c.Kubernetes)
		}
		by[c.Kubernetes] = append(by[c.Kubernetes], node)
	}
	sortVersions(order)
	var out []string
	for _, v := range order {
		out = append(out, fmt.Sprintf("%s: %s", v, strings.Join(by[v], ", ")))
	}
	return out
}

// countActions counts the steps per action.
func countActions(p *planfile.Plan) map[planfile.Action]int {
	out := map[planfile.Action]int{}
	for _, s := range p.Steps {
		out[s.Action]++
	}
	return out
}

// updateStepCounts says what an update plan's steps are: the manifests it
// pushes (apply, delete), or for a drive-cvo plan, which pushes none, the
// hand-over; then the waits and the remediation steps.
func updateStepCounts(p *planfile.Plan) string {
	n := countActions(p)
	out := fmt.Sprintf("%d apply, %d delete, %d wait", n[planfile.ActionApply], n[planfile.ActionDelete], n[planfile.ActionWait])
	if p.EffectiveMode() == planfile.ModeDriveCVO {
		out = fmt.Sprintf("%d set-desired-update, %d wait", n[planfile.ActionSetDesiredUpdate], n[planfile.ActionWait])
	}
	if r := remedySteps(p); r > 0 {
		out += fmt.Sprintf(", %d remediation", r)
	}
	return out
}

// pausedPools returns the pools the plan pauses.
func pausedPools(p *planfile.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		if s.Spec().PausesPool {
			out = append(out, s.Pool)
		}
	}
	return out
}

// fromVersions is what the cluster runs, for headlines: "4.3.19 + 4.4.3".
// When no component's version could be verified (a must-gather without the
// operators' Deployments), it is what they claim, said as a claim.
func fromVersions(cs []planfile.ComponentVersion) string {
	collect := func(version func(planfile.ComponentVersion) string) []string {
		seen := map[string]bool{}
		var vs []string
		for _, c := range cs {
			v := version(c)
			if strings.Contains(c.Name, "/") || v == "" || seen[v] {
				continue
			}
			seen[v] = true
			vs = append(vs, v)
		}
		sortVersions(vs)
		return vs
	}
	if vs := collect(func(c planfile.ComponentVersion) string { return c.Version }); len(vs) > 0 {
		return strings.Join(vs, " + ")
	}
	if vs := collect(func(c planfile.ComponentVersion) string { return c.Claimed }); len(vs) > 0 {
		return strings.Join(vs, " + ") + " (claimed)"
	}
	return "unknown"
}

// remedySteps counts the remediation steps that change something.
func remedySteps(p *planfile.Plan) int {
	n := 0
	for _, s := range p.Steps {
		if s.Remedy != "" && !s.Spec().WaitOnly {
			n++
		}
	}
	return n
}

// restoreStep is the 1-based position of restore-cvo (the last step when there is none).
// cvoBracket says where the plan stops the CVO: from its disable-cvo step to
// its restore-cvo step, or nowhere (the CVO keeps the wheel).
func cvoBracket(p *planfile.Plan, sentence bool) string {
	for i, s := range p.Steps {
		if s.Spec().StopsCVO {
			if sentence {
				return fmt.Sprintf("the cluster-version operator (CVO) is disabled in step %d and restored in step %d", i+1, restoreStep(p))
			}
			return fmt.Sprintf("the CVO is disabled from step %d to step %d", i+1, restoreStep(p))
		}
	}
	if p.EffectiveMode() == planfile.ModeDriveCVO {
		if sentence {
			return fmt.Sprintf("the cluster-version operator (CVO) keeps running: it is handed %s and carries the update out itself", p.Target.Version)
		}
		return fmt.Sprintf("the CVO keeps running and carries the update to %s itself", p.Target.Version)
	}
	if sentence {
		return "the cluster-version operator (CVO) keeps running: it is updating and undoes none of the remedies"
	}
	return "the CVO keeps running (it is updating)"
}

func restoreStep(p *planfile.Plan) int {
	for i, s := range p.Steps {
		if s.Spec().RestartsCVO {
			return i + 1
		}
	}
	return len(p.Steps)
}
