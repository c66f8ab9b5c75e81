package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
)

// The --accept names of the admin's promises (formatVersion 1.1). Risk names keep
// their update-service form ("AuthConnectionLeak"); a remedy name is a lowercase
// prefix, and for three of them a colon and what it is about.
const (
	// AcceptForceRedeployment + "<component>": set a new forceRedeploymentReason on
	// the static-pod operator of kube-apiserver, etcd, kube-controller-manager or
	// kube-scheduler (it restarts that control-plane component one node at a time).
	AcceptForceRedeployment = "force-redeployment:"
	// AcceptAdminAck + "<gate key>": acknowledge an admin gate in
	// openshift-config/admin-acks.
	AcceptAdminAck = "admin-ack:"
	// AcceptRemoveOverrides: remove ClusterVersion spec.overrides (the CVO manages
	// the overridden objects again and reverts what was changed by hand in them).
	AcceptRemoveOverrides = "remove-overrides"
	// AcceptUpgradeableTo + "<major.minor>": annotate the cloud credentials as fit
	// for that minor (Manual mode).
	AcceptUpgradeableTo = "upgradeable-to:"
)

// AcceptUsage lists the remedy name forms, for messages.
const AcceptUsage = "force-redeployment:<kube-apiserver|etcd|kube-controller-manager|kube-scheduler>, admin-ack:<gate key>, remove-overrides, upgradeable-to:<major.minor>"

var (
	// remedyNameRE is what makes a name a remedy name rather than a risk name: a
	// lowercase, hyphenated word, alone or before a colon.
	remedyNameRE  = regexp.MustCompile(`^[a-z][a-z-]*(:|$)`)
	adminAckKeyRE = regexp.MustCompile(openshift.AdminAckGatePattern)
	majorMinorRE  = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)
)

// AcceptError is a malformed --accept name. The CLI exits 2.
type AcceptError struct {
	Name string
	Why  string
}

func (e *AcceptError) Error() string {
	return fmt.Sprintf("--accept %s: %s (remedy names: %s; risk names as the update service spells them)", e.Name, e.Why, AcceptUsage)
}

// ExitCode is 2: a flag is wrong.
func (e *AcceptError) ExitCode() int { return exitUsage }

// IsRemedyName reports whether an --accept name is a remedy name (well formed or
// not) rather than a conditional-update risk name.
func IsRemedyName(name string) bool {
	if name == AcceptRemoveOverrides {
		return true
	}
	return strings.Contains(name, ":") && remedyNameRE.MatchString(name)
}

// ValidateAccept checks every --accept name: a risk name is taken as it is; a
// remedy name must have a known prefix and a well-formed subject.
func ValidateAccept(names []string) error {
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			return &AcceptError{Name: `""`, Why: "an empty name"}
		}
		if !IsRemedyName(n) {
			continue
		}
		if err := validateRemedyName(n); err != nil {
			return err
		}
	}
	return nil
}

func validateRemedyName(n string) error {
	switch {
	case n == AcceptRemoveOverrides:
		return nil
	case strings.HasPrefix(n, AcceptForceRedeployment):
		c := strings.TrimPrefix(n, AcceptForceRedeployment)
		for _, sp := range inspect.StaticPodComponents {
			if sp.Component == c {
				return nil
			}
		}
		return &AcceptError{Name: n, Why: fmt.Sprintf("%q is not a static-pod component", c)}
	case strings.HasPrefix(n, AcceptAdminAck):
		k := strings.TrimPrefix(n, AcceptAdminAck)
		if !adminAckKeyRE.MatchString(k) {
			return &AcceptError{Name: n, Why: fmt.Sprintf("%q is not an admin gate key (the CVO's pattern %s, e.g. ack-4.18-kube-1.32-api-removals-in-4.19)", k, openshift.AdminAckGatePattern)}
		}
		return nil
	case strings.HasPrefix(n, AcceptUpgradeableTo):
		v := strings.TrimPrefix(n, AcceptUpgradeableTo)
		if !majorMinorRE.MatchString(v) {
			return &AcceptError{Name: n, Why: fmt.Sprintf("%q is not a major.minor version such as 4.17", v)}
		}
		return nil
	case strings.HasPrefix(n, AcceptRemoveOverrides+":"):
		return &AcceptError{Name: n, Why: "remove-overrides takes no subject"}
	}
	prefix, _, _ := strings.Cut(n, ":")
	return &AcceptError{Name: n, Why: fmt.Sprintf("unknown remedy %q", prefix)}
}

// acceptSet holds the --accept names.
type acceptSet []string

func (a acceptSet) has(name string) bool { return slices.Contains(a, name) }

// acceptNameFor is the --accept name a promise step needs ("" for a step that
// needs none): derived from what the step changes, so the checker and the
// builder cannot disagree.
func acceptNameFor(st *Step) string {
	switch st.Action {
	case ActionForceRedeployment:
		if st.Change != nil {
			for _, sp := range inspect.StaticPodComponents {
				if sp.Resource.Kind == st.Change.Object.Kind {
					return AcceptForceRedeployment + sp.Component
				}
			}
		}
		return AcceptForceRedeployment + "?"
	case ActionAcknowledgeGate:
		if st.Change != nil && len(st.Change.Fields) == 1 && len(st.Change.Fields[0]) == 2 {
			return AcceptAdminAck + st.Change.Fields[0][1]
		}
		return AcceptAdminAck + "?"
	case ActionRemoveOverrides:
		return AcceptRemoveOverrides
	case ActionAnnotateUpgradeableTo:
		if st.Change != nil {
			if v, ok := patchString(st.Change.Patch, "metadata", "annotations", openshift.AnnotationUpgradeableTo); ok {
				return AcceptUpgradeableTo + v
			}
		}
		return AcceptUpgradeableTo + "?"
	}
	return ""
}
