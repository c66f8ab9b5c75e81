package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/internal/bounded"
)

// The policy document's identity.
const (
	APIVersion = "recover.openshift.io/v1alpha1"
	Kind       = "TransitionPolicy"
)

// Downgrades says how far a component may move down within its minor.
type Downgrades string

// The downgrade modes.
const (
	// DowngradesNever (the default): no component moves down at all; a
	// rollback needs the admin's explicit request (a --policy file).
	DowngradesNever Downgrades = "Never"
	// DowngradesPreviousHistory: only to the previous ClusterVersion
	// history entry, and only within its minor, as the CVO's ClusterVersionRollback
	// precondition allows without force.
	DowngradesPreviousHistory Downgrades = "PreviousHistory"
	// DowngradesWithinMinor: to any release of the same minor; a target that is not
	// the previous history entry needs force (and --force-reason).
	DowngradesWithinMinor Downgrades = "WithinMinor"
)

// Upgradeable says what Upgradeable=False does to a minor hop.
type Upgradeable string

// The Upgradeable modes.
const (
	// UpgradeableBlock (the default): a candidate that moves any component up a minor
	// is rejected while ClusterVersion or a ClusterOperator says Upgradeable=False.
	UpgradeableBlock Upgradeable = "Block"
	// UpgradeableForce: such a candidate qualifies, but the plan must set force
	// (the CVO would refuse the minor update otherwise), so it needs --force-reason.
	UpgradeableForce Upgradeable = "Force"
)

// KubeletSkew selects the kubelet lag limit.
type KubeletSkew string

// The kubelet skew policies.
const (
	// KubeletSkewOpenShift (the default): 2 minors behind the kube-apiserver on even
	// OpenShift minors, 1 on odd ones (cluster-kube-apiserver-operator
	// kubelet_version_skew_controller.go). Never stricter than upstream.
	KubeletSkewOpenShift KubeletSkew = "OpenShift"
	// KubeletSkewUpstream: 3 minors behind (2 for kubelets older than 1.25), the
	// kubernetes.io version-skew policy.
	KubeletSkewUpstream KubeletSkew = "Upstream"
)

// MaxAllowedMinorHop is the ceiling of MaxMinorHop: the CVO's GiantHop
// precondition refuses more, and Kubernetes forbids a kube-apiserver skipping a
// minor. A policy cannot raise it.
const MaxAllowedMinorHop = 1

// Policy is the transition policy. The zero value of a field means its default
// (see Default); Complete fills them in.
type Policy struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Downgrades: Never (default), PreviousHistory or WithinMinor.
	Downgrades Downgrades `json:"downgrades,omitempty"`
	// MaxMinorHop is how many minors a component may move up in one hop: 1
	// (default) or 0 (patch moves only).
	MaxMinorHop *int `json:"maxMinorHop,omitempty"`
	// Upgradeable: Block (default) or Force.
	Upgradeable Upgradeable `json:"upgradeable,omitempty"`
	// KubeletSkew: OpenShift (default) or Upstream.
	KubeletSkew KubeletSkew `json:"kubeletSkew,omitempty"`
	// HistoryCandidates adds the releases in ClusterVersion history to the graph's
	// versions as candidates (default true).
	HistoryCandidates *bool `json:"historyCandidates,omitempty"`
}

// DefaultYAML is the built-in policy, as a --policy file would spell it. Default
// parses it; docs/policy.md shows it.
const DefaultYAML = `apiVersion: recover.openshift.io/v1alpha1
kind: TransitionPolicy
# How far a component may move down within its minor: Never (the default: an update
# only goes forward; the CVO refuses a rollback unless forced, cluster-version-operator
# #918, and oc's rollback command was removed, oc #1806), PreviousHistory (only to the
# previous ClusterVersion history entry, as the CVO's Rollback precondition) or
# WithinMinor (any release of the minor; needs --force-reason unless it is the previous
# entry). A rollback is the admin's explicit request: a --policy file that allows it.
# Down across a minor is never allowed.
downgrades: Never
# How many minors a component may move up in one hop: 1 or 0 (patch moves only).
maxMinorHop: 1
# What Upgradeable=False (ClusterVersion or a ClusterOperator) does to a minor hop:
# Block, or Force (the plan sets force; needs --force-reason).
upgradeable: Block
# Kubelet lag behind the kube-apiserver: OpenShift (2 minors on even OpenShift minors,
# 1 on odd) or Upstream (3; 2 for kubelets older than 1.25). A kubelet is never
# allowed to be newer than the kube-apiserver.
kubeletSkew: OpenShift
# Consider the releases in ClusterVersion history as candidates, beside the graph's.
historyCandidates: true
`

// Default returns the built-in policy, completed.
func Default() *Policy {
	p, err := Parse("builtin", []byte(DefaultYAML))
	if err != nil {
		panic("policy: the built-in policy does not parse: " + err.Error())
	}
	return p
}

// DefaultDigest is the digest of DefaultYAML ("sha256:<hex>"), the plan's policy
// input digest when no --policy was given.
func DefaultDigest() string { return Digest([]byte(DefaultYAML)) }

// Digest returns "sha256:<hex>" of a policy file's bytes.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// maxPolicyBytes caps a policy file; a real one is a few KiB.
const maxPolicyBytes = 1 << 20

// Load reads and checks a policy file.
func Load(path string) (*Policy, []byte, error) {
	data, err := bounded.ReadFile(path, maxPolicyBytes)
	if err != nil {
		return nil, nil, &InputError{Path: path, Msg: "cannot read policy: " + errText(err), Hint: "pass --policy FILE with a TransitionPolicy (see docs/policy.md)"}
	}
	p, err := Parse(path, data)
	if err != nil {
		return nil, nil, err
	}
	return p, data, nil
}

// Parse decodes a policy strictly (unknown or duplicate fields are errors),
// checks it and fills in the defaults. source names the input in errors.
func Parse(source string, data []byte) (*Policy, error) {
	var p Policy
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		return nil, &InputError{Path: source, Msg: "not a TransitionPolicy: " + yamlText(err), Hint: "see docs/policy.md for the fields"}
	}
	if p.APIVersion != APIVersion || p.Kind != Kind {
		return nil, &InputError{Path: source, Msg: fmt.Sprintf("apiVersion %q, kind %q: want %s %s", p.APIVersion, p.Kind, APIVersion, Kind), Hint: "start the file with the built-in policy (docs/policy.md)"}
	}
	if err := p.Validate(); err != nil {
		return nil, &InputError{Path: source, Msg: err.Error(), Hint: "see docs/policy.md for the allowed values"}
	}
	p.Complete()
	return &p, nil
}

// Validate checks every field's value.
func (p *Policy) Validate() error {
	switch p.Downgrades {
	case "", DowngradesNever, DowngradesPreviousHistory, DowngradesWithinMinor:
	default:
		return fmt.Errorf("downgrades %q: want Never, PreviousHistory or WithinMinor", p.Downgrades)
	}
	if p.MaxMinorHop != nil && (*p.MaxMinorHop < 0 || *p.MaxMinorHop > MaxAllowedMinorHop) {
		return fmt.Errorf("maxMinorHop %d: want 0 or 1 (more than one minor per hop is never safe: the CVO refuses it and a kube-apiserver must not skip a minor)", *p.MaxMinorHop)
	}
	switch p.Upgradeable {
	case "", UpgradeableBlock, UpgradeableForce:
	default:
		return fmt.Errorf("upgradeable %q: want Block or Force", p.Upgradeable)
	}
	switch p.KubeletSkew {
	case "", KubeletSkewOpenShift, KubeletSkewUpstream:
	default:
		return fmt.Errorf("kubeletSkew %q: want OpenShift or Upstream", p.KubeletSkew)
	}
	return nil
}

// Complete fills in the defaults of unset fields.
func (p *Policy) Complete() {
	p.APIVersion, p.Kind = APIVersion, Kind
	if p.Downgrades == "" {
		p.Downgrades = DowngradesNever
	}
	if p.MaxMinorHop == nil {
		one := MaxAllowedMinorHop
		p.MaxMinorHop = &one
	}
	if p.Upgradeable == "" {
		p.Upgradeable = UpgradeableBlock
	}
	if p.KubeletSkew == "" {
		p.KubeletSkew = KubeletSkewOpenShift
	}
	if p.HistoryCandidates == nil {
		t := true
		p.HistoryCandidates = &t
	}
}

// minorHop returns MaxMinorHop with its default.
func (p *Policy) minorHop() int {
	if p.MaxMinorHop == nil {
		return MaxAllowedMinorHop
	}
	return *p.MaxMinorHop
}

// IncludeHistory reports whether history releases are candidates.
func (p *Policy) IncludeHistory() bool { return p.HistoryCandidates == nil || *p.HistoryCandidates }

// InputError is a problem with a policy file: unreadable, malformed or out of
// range. The CLI exits 4.
type InputError struct {
	Path string
	Msg  string
	Hint string
}

func (e *InputError) Error() string {
	s := e.Path + ": " + e.Msg
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// BadInput marks the error as an input problem.
func (e *InputError) BadInput() bool { return true }

// yamlText shortens sigs.k8s.io/yaml's decoding errors to their cause.
func yamlText(err error) string {
	s := err.Error()
	for _, p := range []string{"error unmarshaling JSON: while decoding JSON: ", "error converting YAML to JSON: ", "json: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	return strings.Join(strings.Fields(s), " ")
}

// errText is an OS error without the path it repeats.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
