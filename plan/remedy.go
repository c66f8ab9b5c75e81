package plan

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The remediation stage reads the snapshot's wedge findings (their codes,
// subjects and details: the contract in inspect/finding.go and the shared brief)
// with the facts they name, and turns each into steps that unblock the cluster,
// or into a refusal that says why recover will not take the remedy and what to
// do instead. The steps are grouped by the phase the experts put them in; the
// plan builder places the groups (remedy*.go hold one remedy each).

// The phases, in the order the remedies run: nodes that cannot join or report
// first (nothing else settles without them), then stuck static-pod rollouts (the
// control plane), then paused pools, then drains held by PodDisruptionBudgets,
// and last the admin's promises, whose effect the CVO computes once it runs.
const (
	phaseNodes = iota
	phaseStaticPods
	phasePools
	phasePDB
	phasePromises
)

// remedyGroup is a run of steps placed together: one remedy, or several that
// must run as one (PodDisruptionBudgets holding the same nodes are relaxed
// together, waited for together and restored together).
type remedyGroup struct {
	phase int
	// steps run inside the CVO bracket; post are waits after restore-cvo.
	steps, post []planfile.Step
	// pairs are (temporary, revert) indices into steps.
	pairs [][2]int
	rems  []remRef
	// component is set for a forced redeployment (update plans drop it when the
	// target rolls the component anyway); pool for an unpause.
	component, pool string
	// at and postAt are the steps' positions in the plan, once placed.
	at, postAt []int
}

// remRef is one Remediation of a group, with its steps' indices in the group.
type remRef struct {
	r          planfile.Remediation
	pre, posts []int
}

// refusal is a remedy the plan does not take.
type refusal struct {
	planfile.RefusedRemedy
	// blocking: the finding it answers holds the update (Class blocks-update).
	blocking bool
	// component, for a forced redeployment refused for want of its --accept
	// name, which an update plan that rolls the component anyway does not need.
	component string
	// findingSubject is the subject of the finding it answers (a refused CSR is
	// named by itself, its finding by the node).
	findingSubject string
}

// unsafe reports whether recover refuses the remedy whatever is accepted.
func (r refusal) unsafe() bool { return r.Accept == "" }

// remedyStage is the remediation stage's result.
type remedyStage struct {
	s      *inspect.Snapshot
	f      *facts
	accept acceptSet
	now    time.Time
	// signatures are the verified release signatures the admin supplied.
	signatures ReleaseSignatures

	groups   []*remedyGroup
	refused  []refusal
	warnings []string
	// risk is the conditional-update risk on the in-flight target, when the
	// snapshot found one: a retarget answers it.
	risk *inspect.Finding
	// stillRefused names the findings that keep the CVO from taking its
	// desired update and that no remedy answers (an operator's
	// Upgradeable=False the admin must resolve, a payload the CVO cannot
	// retrieve or verify): the restored CVO will still refuse that update.
	// "" when none.
	stillRefused string
}

// newRemedyStage reads the findings in the snapshot's order and plans a remedy or
// a refusal for each wedge it knows.
func newRemedyStage(s *inspect.Snapshot, f *facts, accept []string, sigs ReleaseSignatures, now time.Time) *remedyStage {
	rs := &remedyStage{s: s, f: f, accept: acceptSet(accept), signatures: sigs, now: now.UTC()}
	in := &remedyInputs{staticByComponent: map[string][]inspect.Finding{}}
	for _, fd := range s.Findings {
		if hook := remedyHooks[fd.Code]; hook != nil {
			hook(rs, in, fd)
		}
	}
	pdbs, staticOrder, staticByComponent := in.pdbs, in.staticOrder, in.staticByComponent
	acks, overrides, credentials := in.acks, in.overrides, in.credentials
	notUpgradeable, holding, preconditions := in.notUpgradeable, in.holding, in.preconditions
	for _, c := range staticOrder {
		rs.forceRedeployment(c, staticByComponent[c])
	}
	rs.relaxPDBs(pdbs)
	rs.adminAcks(acks)
	if len(overrides) > 0 {
		rs.removeOverrides(overrides[0])
	}
	if len(credentials) > 0 {
		rs.upgradeableTo(credentials[0])
	}
	if preconditions {
		// The CVO refuses its desired update on a precondition now: an
		// Upgradeable=False no step answers makes it refuse again.
		holding = append(notUpgradeable, holding...)
	}
	rs.stillRefused = holdingReason(holding)
	sort.SliceStable(rs.groups, func(i, j int) bool { return rs.groups[i].phase < rs.groups[j].phase })
	return rs
}

// remedyInputs gathers the findings the remedies answer together (one
// forced redeployment per component, one relax per budget set, one annotation
// for the cloud-credential reasons, ...).
type remedyInputs struct {
	pdbs                                                  []inspect.Finding
	staticByComponent                                     map[string][]inspect.Finding
	staticOrder                                           []string
	acks, overrides, notUpgradeable, credentials, holding []inspect.Finding
	preconditions                                         bool
}

// remedyHooks is the planner's half of the finding registry
// (inspect.FindingSpec): what each finding code contributes to the remedies.
// It lives in plan because a remedy builds plan steps, which inspect may not
// import; TestRemedyHooksAreRegisteredFindings holds its keys to registered
// codes.
var remedyHooks = map[string]func(rs *remedyStage, in *remedyInputs, fd inspect.Finding){
	inspect.CodeCSRPending:                        func(rs *remedyStage, _ *remedyInputs, fd inspect.Finding) { rs.csr(fd) },
	inspect.CodeStaticPodRolloutStuck:             collectStaticPod,
	inspect.CodeStaticPodRevisionMismatch:         collectStaticPod,
	inspect.CodeInstallerSucceededWithoutRevision: collectStaticPod,
	inspect.CodePoolPaused: func(rs *remedyStage, _ *remedyInputs, fd inspect.Finding) {
		if fd.Details["blocks"] == "true" {
			rs.unpause(fd)
		}
	},
	inspect.CodeDrainBlockedByPDB: func(rs *remedyStage, in *remedyInputs, fd inspect.Finding) {
		if inspect.IsGuardPDB(fd.Details["namespace"], fd.Details["name"]) {
			rs.guard(fd)
			return
		}
		in.pdbs = append(in.pdbs, fd)
	},
	inspect.CodeGuardPDBBlocksDrain: func(rs *remedyStage, _ *remedyInputs, fd inspect.Finding) { rs.guard(fd) },
	inspect.CodeAdminAckRequired:    func(_ *remedyStage, in *remedyInputs, fd inspect.Finding) { in.acks = append(in.acks, fd) },
	inspect.CodeUnmanagedOverrides: func(_ *remedyStage, in *remedyInputs, fd inspect.Finding) {
		if fd.Class == inspect.ClassBlocks {
			in.overrides = append(in.overrides, fd)
		}
	},
	inspect.CodeUpgradeableFalse:   collectUpgradeableFalse,
	inspect.CodeReleaseNotAccepted: collectReleaseNotAccepted,
	inspect.CodeConditionalRiskOnTarget: func(rs *remedyStage, _ *remedyInputs, fd inspect.Finding) {
		if rs.risk == nil {
			rs.risk = &fd
		}
	},
}

func collectStaticPod(rs *remedyStage, in *remedyInputs, fd inspect.Finding) {
	c := fd.Details["component"]
	if c == "" {
		rs.warnf("%s on %s names no component: no forced redeployment is planned for it", fd.Code, fd.Subject)
		return
	}
	if _, ok := in.staticByComponent[c]; !ok {
		in.staticOrder = append(in.staticOrder, c)
	}
	in.staticByComponent[c] = append(in.staticByComponent[c], fd)
}

func collectUpgradeableFalse(_ *remedyStage, in *remedyInputs, fd inspect.Finding) {
	switch fd.Details["class"] {
	case inspect.UpgradeClassOverrides:
		in.overrides = append([]inspect.Finding{fd}, in.overrides...)
	case inspect.UpgradeClassCloudCredential:
		// ClusterVersion copies the operator's reason when it is
		// the only one: one annotation answers both.
		if fd.Subject == "clusteroperator/"+openshift.CloudCredentialOperator {
			in.credentials = append([]inspect.Finding{fd}, in.credentials...)
		} else {
			in.credentials = append(in.credentials, fd)
		}
	default:
		// ClusterVersion's own condition only sums up the others;
		// an operator's reason the admin must resolve holds on.
		if strings.HasPrefix(fd.Subject, "clusteroperator/") && fd.Details["class"] != inspect.UpgradeClassAdminAck {
			in.notUpgradeable = append(in.notUpgradeable, fd)
		}
	}
}

func collectReleaseNotAccepted(rs *remedyStage, in *remedyInputs, fd inspect.Finding) {
	switch {
	case fd.Details["class"] == inspect.ReleaseClassPreconditions:
		in.preconditions = true
	case fd.Details["class"] == inspect.ReleaseClassSignature && rs.releaseSignature(fd):
		// answered: the restored CVO verifies and accepts it
	default:
		in.holding = append(in.holding, fd)
	}
}

func (rs *remedyStage) warnf(format string, args ...any) {
	rs.warnings = append(rs.warnings, fmt.Sprintf(format, args...))
}

// refuse records a refused remedy.
func (rs *remedyStage) refuse(fd inspect.Finding, remedy, subject, accept, reason string) {
	if subject == "" {
		subject = fd.Subject
	}
	rs.refused = append(rs.refused, refusal{RefusedRemedy: planfile.RefusedRemedy{Remedy: remedy, Finding: fd.Code, Subject: subject, Reason: reason, Accept: accept},
		blocking: fd.Class == inspect.ClassBlocks, findingSubject: fd.Subject})
}

// remediation starts a Remediation for a finding.
func remediation(remedy string, fd inspect.Finding, summary string) planfile.Remediation {
	return planfile.Remediation{Remedy: remedy, Finding: fd.Code, Subject: fd.Subject, Summary: summary}
}

// empty reports whether the stage found nothing to do and nothing to refuse.
func (rs *remedyStage) empty() bool { return len(rs.groups) == 0 && len(rs.refused) == 0 }

// planTime is the plan's time in the compact form forceRedeploymentReason takes.
func (rs *remedyStage) planTime() string { return rs.now.Format("20060102T150405Z") }

// detailList splits a finding's comma-separated detail, dropping empty items.
func detailList(fd inspect.Finding, key string) []string {
	var out []string
	for _, v := range strings.Split(fd.Details[key], ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// node returns the snapshot's node of that name.
func (rs *remedyStage) node(name string) *inspect.Node {
	for i := range rs.s.Nodes {
		if rs.s.Nodes[i].Name == name {
			return &rs.s.Nodes[i]
		}
	}
	return nil
}

// controlPlaneNodes are the snapshot's control-plane nodes, sorted.
func (f *facts) controlPlaneNodes() []string {
	var out []string
	for _, n := range f.nodes {
		if n.ControlPlane {
			out = append(out, n.Name)
		}
	}
	sort.Strings(out)
	return out
}

// placeGroups appends the in-bracket steps of the groups keep selects, recording
// their positions in the groups.
func placeGroups(out []planfile.Step, groups []*remedyGroup, keep func(*remedyGroup) bool) []planfile.Step {
	for _, g := range groups {
		if !keep(g) {
			continue
		}
		for _, st := range g.steps {
			g.at = append(g.at, len(out))
			out = append(out, st)
		}
	}
	return out
}

// placePosts appends the groups' post-restore waits.
func placePosts(out []planfile.Step, groups []*remedyGroup) []planfile.Step {
	for _, g := range groups {
		for _, st := range g.post {
			g.postAt = append(g.postAt, len(out))
			out = append(out, st)
		}
	}
	return out
}

// link fills the placed groups' cross-references once the steps are numbered:
// RevertedBy and Reverts of each temporary change and its revert, and each
// Remediation's step IDs. It returns the remediations in plan order.
func link(steps []planfile.Step, groups []*remedyGroup) []planfile.Remediation {
	var out []planfile.Remediation
	for _, g := range groups {
		if len(g.at) != len(g.steps) {
			continue // not placed
		}
		for _, p := range g.pairs {
			tmp, rev := &steps[g.at[p[0]]], &steps[g.at[p[1]]]
			tmp.RevertedBy, rev.Reverts = rev.ID, tmp.ID
		}
		for _, r := range g.rems {
			rem := r.r
			rem.Steps = nil
			for _, i := range r.pre {
				rem.Steps = append(rem.Steps, steps[g.at[i]].ID)
			}
			for _, i := range r.posts {
				if i < len(g.postAt) {
					rem.Steps = append(rem.Steps, steps[g.postAt[i]].ID)
				}
			}
			out = append(out, rem)
		}
	}
	return out
}

// refusedList returns the refusals for the plan document, and the warnings that
// say a non-blocking remedy was not taken.
func refusedList(rfs []refusal) ([]planfile.RefusedRemedy, []string) {
	var out []planfile.RefusedRemedy
	var warnings []string
	for _, r := range rfs {
		out = append(out, r.RefusedRemedy)
		if !r.blocking {
			w := fmt.Sprintf("not taken: %s for %s %s: %s", r.Remedy, r.Finding, r.Subject, r.Reason)
			if r.Accept != "" {
				w += " (--accept " + r.Accept + ")"
			}
			warnings = append(warnings, w)
		}
	}
	return out, warnings
}

// blockingError returns the *RemedyRefusedError for the blocking findings left
// with refused remedies only (nil when there is none).
func blockingError(rfs []refusal, groups []*remedyGroup) error {
	answered := map[string]bool{}
	for _, g := range groups {
		for _, r := range g.rems {
			answered[r.r.Finding+" "+r.r.Subject] = true
		}
	}
	var blocking []planfile.RefusedRemedy
	for _, r := range rfs {
		if !r.blocking || r.Remedy == planfile.RemedyRetarget {
			continue
		}
		if answered[r.Finding+" "+r.findingSubject] {
			continue
		}
		blocking = append(blocking, r.RefusedRemedy)
	}
	if len(blocking) == 0 {
		return nil
	}
	e := &planfile.RemedyRefusedError{Refused: blocking}
	for _, r := range rfs {
		e.All = append(e.All, r.RefusedRemedy)
	}
	return e
}
