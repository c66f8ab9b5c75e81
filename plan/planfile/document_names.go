package planfile

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/openshift-recover/recover/internal/nextcmd"
)

func Qualified(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// capList joins names, naming at most n of them.
func CapList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// poolRef is the object reference of a MachineConfigPool.
func PoolRef(name string) ObjectRef {
	return ObjectRef{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "MachineConfigPool", Name: name}
}

// csrRef is the object reference of a certificate signing request.
func CSRRef(name string) *ObjectRef {
	return &ObjectRef{APIVersion: "certificates.k8s.io/v1", Kind: "CertificateSigningRequest", Name: name}
}

var DigestImageRE = regexp.MustCompile(`@sha256:[0-9a-f]{64}$`)

// The --accept names of the admin's promises (formatVersion 1.1), spelled once
// in internal/nextcmd; each promise's action (its ActionSpec's Accept and
// acceptSubject) says what it is about and what subject it takes. Risk names
// keep their update-service form ("AuthConnectionLeak").
const (
	// AcceptForceRedeployment + "<component>": set a new forceRedeploymentReason on
	// the static-pod operator of kube-apiserver, etcd, kube-controller-manager or
	// kube-scheduler (it restarts that control-plane component one node at a time).
	AcceptForceRedeployment = nextcmd.AcceptForceRedeployment
	// AcceptAdminAck + "<gate key>": acknowledge an admin gate in
	// openshift-config/admin-acks.
	AcceptAdminAck = nextcmd.AcceptAdminAck
	// AcceptRemoveOverrides: remove ClusterVersion spec.overrides (the CVO manages
	// the overridden objects again and reverts what was changed by hand in them).
	AcceptRemoveOverrides = nextcmd.AcceptRemoveOverrides
	// AcceptUpgradeableTo + "<major.minor>": annotate the cloud credentials as fit
	// for that minor (Manual mode).
	AcceptUpgradeableTo = nextcmd.AcceptUpgradeableTo
)

// EffectiveMode is the plan's mode; plans before formatVersion 1.1 have none and
// are update plans.
func (p *Plan) EffectiveMode() string {
	if p.Mode == "" {
		return ModeUpdate
	}
	return p.Mode
}

// QualifiesWithRisks reports whether accepting c's risks (--accept) would make
// it a safe target: the planner demoted it for unaccepted conditional-update
// risks alone (it carries Risks only then).
func (c *Candidate) QualifiesWithRisks() bool {
	return c != nil && c.Verdict == VerdictDemoted && len(c.Risks) > 0
}

// The candidate verdicts.
const (
	// VerdictChosen marks the target in Selection.Candidates.
	VerdictChosen = "chosen"
	// VerdictDemoted: safe, but farther than the target, or safe only with risks not
	// named in --accept.
	VerdictDemoted = "demoted"
	// VerdictRejected: breaks a Mandatory or Policy rule.
	VerdictRejected = "rejected"
)

// Exit codes the planner's errors carry. They equal cmd/recover's
// ExitUsage, ExitRisksNotAccepted, ExitNoSafeTarget and ExitRemedyRefused (a CLI
// test keeps them in step); the plan package does not import the CLI.
const (
	ExitUsage            = 2
	ExitRisksNotAccepted = 3
	ExitNoSafeTarget     = 6
	ExitRemedyRefused    = 12
	ExitAdvice           = 13
)

// The Stage.Workers values.
const (
	WorkersFollow = "follow"
	WorkersPaused = "paused"
)
