package plan

import (
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The static-pod remedy (W7, the second incident). A static-pod operator that
// believes a node is current, or whose revision keeps failing there, does not
// roll the node again by itself. A new spec.forceRedeploymentReason changes the
// revision's inputs (the operators copy it into the revisioned pod ConfigMap), so
// the revision controller makes revision latest+1 and the installer rolls it to
// every control-plane node, one at a time (openshift/api: "forceRedeploymentReason
// can be used to force the redeployment of the operand by providing a unique
// string ... to kick a previously failed deployment"). Because that restarts a
// control-plane component on every master, it needs --accept
// force-redeployment:<component>.

// staticPodOperatorRef is the operator.openshift.io singleton of a static-pod operand.
func staticPodOperatorRef(sp *inspect.StaticPodComponent) planfile.ObjectRef {
	return planfile.ObjectRef{APIVersion: sp.Resource.Group + "/" + sp.Resource.Version, Kind: sp.Resource.Kind, Name: "cluster"}
}

// staticPodComponent returns the static-pod component of an operand name.
func staticPodComponent(component string) *inspect.StaticPodComponent {
	for i := range inspect.StaticPodComponents {
		if inspect.StaticPodComponents[i].Component == component {
			return &inspect.StaticPodComponents[i]
		}
	}
	return nil
}

// forceRedeployment plans the forced rollout of one component for its findings,
// or refuses it without the --accept name.
func (rs *remedyStage) forceRedeployment(component string, fds []inspect.Finding) {
	sp := staticPodComponent(component)
	op := rs.s.StaticPodOperator(component)
	fd := fds[0]
	if sp == nil || op == nil || !op.Present {
		rs.warnf("%s on %s: the snapshot holds no %s operator: no forced redeployment is planned", fd.Code, fd.Subject, component)
		return
	}
	var what []string
	for _, f := range fds {
		what = append(what, describeStaticFinding(f))
	}
	accept := planfile.AcceptForceRedeployment + component
	restarts := fmt.Sprintf("a new forceRedeploymentReason rolls %s to a new revision and restarts it on every control-plane node, one node at a time", component)
	if !rs.accept.has(accept) {
		for _, f := range fds {
			r := refusal{RefusedRemedy: planfile.RefusedRemedy{Remedy: planfile.RemedyForceRedeployment, Finding: f.Code, Subject: f.Subject, Accept: accept,
				Reason: fmt.Sprintf("%s; %s, so recover does it only with --accept %s", describeStaticFinding(f), restarts, accept)},
				blocking: f.Class == inspect.ClassBlocks, component: component, findingSubject: f.Subject}
			rs.refused = append(rs.refused, r)
		}
		return
	}
	value := "recover-" + rs.planTime()
	minRev := op.LatestAvailableRevision + 1
	masters := rs.f.controlPlaneNodes()
	st := planfile.Step{Action: planfile.ActionForceRedeployment, Remedy: planfile.RemedyForceRedeployment, Finding: fd.Code,
		Change: planfile.NewChange(staticPodOperatorRef(sp), op.UID, planfile.Field{Path: []string{"spec", openshift.FieldForceRedeploymentReason}, After: value, Before: planfile.OrNil(op.ForceRedeploymentReason)}),
		Reason: fmt.Sprintf("%s. The operator will not roll the node again by itself: set %s/cluster spec.forceRedeploymentReason to %q (was %s), which makes revision %d and rolls it to every control-plane node, one at a time, as openshift/api documents the field (\"kick a previously failed deployment\"). Accepted with --accept %s: %s. The gate waits until every control-plane node runs revision %d or newer, Ready, with nodeStatuses agreeing (inspect.StaticPodsAt).",
			strings.Join(what, "; "), sp.Resource.Resource, value, quoteOrNone(op.ForceRedeploymentReason), minRev, accept, restarts, minRev),
		Gate: &planfile.Gate{Kind: planfile.GateStaticPods,
			Description: fmt.Sprintf("%s run %s at revision %d or newer (the latest available), Ready, and nodeStatuses agree", orWord(planfile.CapList(masters, 5), "every control-plane node"), component, minRev),
			StaticPods:  StaticPodsGateFor(sp, minRev)}}
	g := &remedyGroup{phase: phaseStaticPods, component: component, steps: []planfile.Step{st}}
	for _, f := range fds {
		r := remediation(planfile.RemedyForceRedeployment, f, fmt.Sprintf("Roll %s to revision %d on every control-plane node (forceRedeploymentReason %s).", component, minRev, value))
		r.Accepted = accept
		g.rems = append(g.rems, remRef{r: r, pre: []int{0}})
	}
	rs.groups = append(rs.groups, g)
}

// describeStaticFinding says what a static-pod finding found, in a clause.
func describeStaticFinding(f inspect.Finding) string {
	d := f.Details
	switch f.Code {
	case inspect.CodeStaticPodRolloutStuck:
		s := fmt.Sprintf("%s revision %s keeps failing on %s", d["component"], orWord(d["lastFailed"], orWord(d["target"], "?")), orWord(d["node"], "a node"))
		var more []string
		if d["failedCount"] != "" {
			more = append(more, d["failedCount"]+" failures")
		}
		if d["fallbackCount"] != "" && d["fallbackCount"] != "0" {
			more = append(more, d["fallbackCount"]+" fallbacks")
		}
		if d["reason"] != "" {
			more = append(more, d["reason"])
		}
		if len(more) > 0 {
			s += " (" + strings.Join(more, ", ") + ")"
		}
		return s
	case inspect.CodeInstallerSucceededWithoutRevision:
		return fmt.Sprintf("an installer on %s reported success but the %s mirror pod never reached its revision (InstallerSucceededWithoutRevision)", orWord(d["node"], "a node"), d["component"])
	}
	return fmt.Sprintf("the %s operator's nodeStatuses and the mirror pod on %s disagree about the revision (%s)", d["component"], orWord(d["node"], "a node"), f.Code)
}

func quoteOrNone(s string) string {
	if s == "" {
		return "unset"
	}
	return fmt.Sprintf("%q", s)
}
