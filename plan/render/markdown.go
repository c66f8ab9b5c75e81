package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Markdown writes the plan as a runbook for change review: what changes, why this
// target and not the others, what to do before starting, the commands to run, the
// steps as a checklist with their gates (and the by-hand command where there is a
// simple one), and how to roll the CVO state back if the run is abandoned.
func Markdown(w io.Writer, p *planfile.Plan) error {
	ew := &errWriter{w: w}
	md := func(format string, args ...any) { ew.printf(format, args...) }
	n := countActions(p)
	paused := pausedPools(p)

	remediation := p.EffectiveMode() == planfile.ModeRemediation
	if remediation {
		md("# Recovery plan: remediation of %s (no new release)\n\n", fromVersions(p.Cluster.Components))
	} else {
		md("# Recovery plan: %s to %s\n\n", fromVersions(p.Cluster.Components), p.Target.Version)
	}
	md("Made by %s at %s from `%s`. Plan format %s. Cluster fingerprint `%s`: `recover apply` refuses the plan if the cluster has changed since.\n\n",
		p.Generator, p.CreatedAt.UTC().Format("2006-01-02 15:04:05 MST"), p.Inputs.Snapshot.Source, p.FormatVersion, p.Cluster.Fingerprint)
	if line := OutcomeLine(p); line != "" {
		md("**%s**\n\n", line)
	}

	md("## What\n\n")
	if remediation {
		md("- Mode: **remediation only**: no new release; the plan unblocks the cluster and the CVO resumes its desired update (%s).\n", orDash(p.Cluster.ClaimedVersion))
		md("- %d steps: %d remediation, %d wait; %s.\n",
			len(p.Steps), remedySteps(p), n[planfile.ActionWait], cvoBracket(p, true))
	} else {
		md("- Target: **%s**, `%s`", p.Target.Version, p.Target.Image)
		if p.Target.URL != "" {
			md(" ([errata](%s))", p.Target.URL)
		}
		md(".\n")
		md("- %d steps: %s; %s.\n", len(p.Steps), updateStepCounts(p), cvoBracket(p, true))
	}
	if len(paused) > 0 {
		md("- MachineConfigPools paused while the control plane catches up: %s.\n", strings.Join(paused, ", "))
	}
	if len(p.Skipped) > 0 {
		var names []string
		for _, s := range p.Skipped {
			names = append(names, s.Component)
		}
		md("- Left alone (verified at %s already): %s.\n", p.Target.Version, strings.Join(names, ", "))
	}
	if p.Target.Force {
		md("- The update is **forced**: %s.\n", p.Target.ForceReason)
	}
	markdownRemediations(md, p)
	md("\n")

	md("## Why\n\n### The cluster now\n\n")
	md("ClusterVersion claims **%s** (%s); a restarted CVO would run in %s mode.\n\n", orDash(p.Cluster.ClaimedVersion), orDash(p.Cluster.ClaimedState), orDash(p.Cluster.CVOMode))
	md("| component | version | claimed | kubernetes | evidence |\n|---|---|---|---|---|\n")
	for _, c := range p.Cluster.Components {
		md("| %s | %s | %s | %s | %s |\n", c.Name, orDash(c.Version), orDash(c.Claimed), orDash(c.Kubernetes), cell(c.Evidence))
	}
	if len(p.Cluster.Findings) > 0 {
		md("\nFindings:\n\n")
		for _, f := range p.Cluster.Findings {
			md("- **%s** %s `%s`: %s\n", f.Severity, f.Code, f.Subject, f.Message)
		}
	}
	if remediation {
		md("\n### Why no new release\n\n")
	} else {
		md("\n### Why %s\n\n", p.Target.Version)
	}
	for _, r := range p.Target.Reasons {
		md("- %s\n", r)
	}
	if len(p.Alternatives) > 0 {
		md("\n### The other candidates\n\n| rank | version | verdict | moves | rule | reason |\n|---|---|---|---|---|---|\n")
		for _, c := range p.Alternatives {
			md("| %d | %s | %s | %s | %s | %s |\n", c.Rank, c.Version, c.Verdict, distance(c.Distance), orDash(c.Rule), cell(c.Reason))
		}
	}
	if len(p.Skipped) > 0 {
		md("\n### Skipped components\n\n| component | manifests | why |\n|---|---|---|\n")
		for _, s := range p.Skipped {
			md("| %s | %d | %s |\n", s.Component, s.Manifests, cell(s.Reason))
		}
	}
	if len(p.Warnings) > 0 {
		md("\n### Warnings\n\n")
		for _, wn := range p.Warnings {
			md("- %s\n", wn)
		}
	}

	md("\n## Before you start\n\n")
	md("- Take an etcd backup and record it: `recover apply` wants `--backup-record FILE` (or `--i-have-a-backup`).\n")
	md("- Review this runbook together with the plan file it was made from; the plan embeds every manifest (digests checked by apply).\n")
	md("- See every change as a server-side dry run first:\n\n```sh\n%s\n```\n", nextcmd.ApplyDryRun(runbookPlan))

	md("\n## Run\n\n```sh\n# step by step, confirming each change\n%s\n\n", nextcmd.ApplyConfirming(runbookPlan, runbookBackup))
	md("# scripted: no prompts, JSON events\n%s\n\n", nextcmd.ApplyScripted(runbookPlan, runbookBackup))
	md("# after an interruption (Ctrl-C, a failed gate, a crash): resume from the journal\n%s\n```\n", nextcmd.Resume(runbookJournal))
	md("\nTo run a stretch of the plan, add `--from-step ID` and `--until-step ID`; the journal records the rest as skipped.\n")

	md("\n## Steps\n\n")
	for i := range p.Steps {
		s := &p.Steps[i]
		md("- [ ] **%s** `%s` %s", s.ID, s.Action, s.Object())
		if s.RunLevel != "" || s.Component != "" {
			md(" (run-level %s, %s)", orDash(s.RunLevel), orDash(s.Component))
		}
		md("\n  - Why: %s\n", s.Reason)
		markdownStepChange(md, p, s)
		if s.Gate != nil {
			md("  - Gate `%s`: %s\n", s.Gate.Kind, s.Gate.Description)
			if c := gateCommand(s.Gate); c != "" {
				md("  - Check: `%s`\n", c)
			}
		}
		if c := handCommand(p, s); c != "" {
			md("  - By hand: `%s`\n", c)
		}
	}

	if remediation {
		markdownRemediationRollback(md, p)
		return ew.err
	}
	if p.EffectiveMode() == planfile.ModeDriveCVO {
		markdownDriveRollback(md, p)
		return ew.err
	}
	md("\n## Roll back the CVO state\n\n")
	if temporaries := temporaryRestores(p); temporaries != "" {
		md("If a run stops while a temporary change is in force, `recover apply` restores it from its journal. By hand (the snapshot's values; the journal has the exact pre-image):\n\n```sh\n%s```\n\n", temporaries)
	}
	md("If the run is abandoned part-way, `recover apply` prints the exact commands to resume or to restore the CVO. By hand, in this order:\n\n```sh\n")
	if len(paused) > 0 {
		md("# 1. Unpause the pools recover paused -- ONLY once kube-apiserver, kube-controller-manager and kube-scheduler\n#    run %s on every master; before that, leave them paused (their kubelets would get ahead of the API server).\n", p.Target.Version)
		for _, pool := range paused {
			md("%s\n", nextcmd.PausePool(pool, false))
		}
	}
	if du := p.Cluster.DesiredUpdate; du != nil {
		md("# 2. Give the CVO a desired update: the target (recommended), or what the cluster had before:\n")
		md("%s\n", nextcmd.DesiredUpdate(p.Target.Version, p.Target.Image, p.Target.Force))
		md("#    before recovery it was (a CVO restored with it resumes %s mode):\n", orDash(p.Cluster.CVOMode))
		md("#    %s\n", nextcmd.DesiredUpdate(du.Version, du.Image, du.Force))
	} else {
		md("# 2. Give the CVO a desired update: the target\n")
		md("%s\n", nextcmd.DesiredUpdate(p.Target.Version, p.Target.Image, p.Target.Force))
	}
	md("# 3. Scale the CVO back to its replicas before recovery\n%s\n```\n", nextcmd.RestoreCVO(p.Cluster.CVOReplicas))
	return ew.err
}

// The files the runbook's commands name: the plan it was rendered from, saved
// as plan.json; the backup record the admin writes; the journal apply names
// after its start time (the placeholder is quoted: unquoted, <time> would be a
// shell redirection).
const (
	runbookPlan    = "plan.json"
	runbookBackup  = "backup.yaml"
	runbookJournal = "recover-apply-<time>.journal"
)

// markdownDriveRollback is the roll-back section of a drive-cvo plan: the CVO
// was never disabled; restore the temporary changes still in force, and the
// desired update can be put back only before the CVO has started the new one.
func markdownDriveRollback(md func(string, ...any), p *planfile.Plan) {
	md("\n## Roll back\n\n")
	md("The CVO keeps running through the plan: there is nothing to restore for it. If the run is abandoned part-way, `recover apply` restores every temporary change still in force from its journal and prints the command to resume. By hand:\n\n```sh\n")
	md("%s", temporaryRestores(p))
	if du := p.Cluster.DesiredUpdate; du != nil {
		md("# Only before the CVO has started %s (an update in progress only goes forward): the desired update the cluster had\n%s\n", p.Target.Version, nextcmd.DesiredUpdate(du.Version, du.Image, du.Force))
	}
	md("```\n")
}

// markdownRemediationRollback is the roll-back section of a remediation plan:
// restore the temporary changes still in force, then the CVO.
func markdownRemediationRollback(md func(string, ...any), p *planfile.Plan) {
	md("\n## Roll back\n\n")
	md("If the run is abandoned part-way, `recover apply` restores every temporary change still in force from its journal and prints the commands to resume or to restore the CVO. By hand, in this order:\n\n```sh\n")
	md("%s", temporaryRestores(p))
	md("# Scale the CVO back to its replicas before recovery (the plan does not change its desired update)\n%s\n```\n", nextcmd.RestoreCVO(p.Cluster.CVOReplicas))
}

// temporaryRestores are the commands that put back each temporary change, as
// the snapshot showed the object.
func temporaryRestores(p *planfile.Plan) string {
	var b strings.Builder
	for i := range p.Steps {
		s := &p.Steps[i]
		if s.RevertedBy == "" || s.Change == nil {
			continue
		}
		fmt.Fprintf(&b, "# Restore what step %s changed, if it ran and step %s did not\n", stepNumber(s.ID), stepNumber(s.RevertedBy))
		fmt.Fprintf(&b, "%s\n", nextcmd.MergePatch(ocResource(s.Change.Object), s.Change.Object.Namespace, string(s.Change.Before)))
	}
	return b.String()
}

// cell makes text safe for a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}

// gateCommand is an oc command that shows what a gate waits for.
func gateCommand(g *planfile.Gate) string {
	switch g.Kind {
	case planfile.GateClusterOperator:
		return "oc get clusteroperator " + g.ClusterOperator + ` -o jsonpath='{.status.versions}{"\n"}{.status.conditions}'`
	case planfile.GateCRDEstablished:
		if g.Object != nil {
			return "oc wait --for=condition=Established crd/" + g.Object.Name + " --timeout=2m"
		}
	case planfile.GateWorkloadRollout:
		if g.Object != nil {
			if g.Object.Kind == "Job" {
				return fmt.Sprintf("oc wait --for=condition=Complete -n %s job/%s --timeout=10m", g.Object.Namespace, g.Object.Name)
			}
			return fmt.Sprintf("oc rollout status -n %s %s/%s", g.Object.Namespace, strings.ToLower(g.Object.Kind), g.Object.Name)
		}
	case planfile.GateStaticPods:
		if sp := g.StaticPods; sp != nil {
			return fmt.Sprintf("oc get %s/cluster -o jsonpath='{.status.latestAvailableRevision}{\"\\n\"}' && oc get pods -n %s -L revision | grep '^%s-'", sp.Resource, sp.Namespace, sp.PodPrefix)
		}
	case planfile.GatePoolUpdated:
		return "oc get machineconfigpool " + g.Pool
	case planfile.GateCVOScaledDown:
		return "oc get pods -n " + openshift.CVONamespace
	case planfile.GateCVORunning:
		return "oc get clusterversion " + openshift.ClusterVersionName + " && oc get pods -n " + openshift.CVONamespace
	case planfile.GateDeleted:
		if g.Object != nil {
			return fmt.Sprintf("oc get -n %s %s/%s", g.Object.Namespace, strings.ToLower(g.Object.Kind), g.Object.Name)
		}
	}
	return remedyGateCommand(g)
}

// handCommand is the oc command that does what a step does, where one command
// does it, in its action's words (plan.ActionSpec.HandCommand); apply steps go
// through recover apply (CVO semantics, digests checked).
func handCommand(p *planfile.Plan, s *planfile.Step) string { return planfile.StepHandCommand(p, s) }
