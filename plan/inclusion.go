package plan

import (
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/payload"
)

// Inclusion from the cluster, never from defaults: every input the CVO's
// manifest filter takes is read from the snapshot (live, must-gather or
// Insights archive alike), and where the snapshot lacks one,
// InclusionAssumptions says what Inclusion had to assume, so that the plan
// warns instead of filtering the payload on a guess.

// Inclusion returns the payload inclusion inputs the cluster's CVO would use: the
// CVO Deployment's CLUSTER_PROFILE (default self-managed-high-availability) and
// EXCLUDE_MANIFESTS, FeatureGate/cluster's feature set and the gates enabled for
// the desired version, ClusterVersion spec.overrides and status.capabilities (nil
// on clusters that report no known capabilities, i.e. before 4.11).
func Inclusion(s *inspect.Snapshot) payload.Inclusion {
	var in payload.Inclusion
	if s.CVO != nil {
		in.Profile = s.CVO.Env("CLUSTER_PROFILE")
		in.ExcludeID = s.CVO.Env("EXCLUDE_MANIFESTS")
	}
	if in.Profile == "" {
		in.Profile = payload.DefaultClusterProfile
	}
	desired := ""
	if cv := s.ClusterVersion; cv != nil {
		desired = cv.Status.Desired.Version
		for _, o := range cv.Spec.Overrides {
			in.Overrides = append(in.Overrides, payload.Override{Kind: o.Kind, Group: o.Group, Namespace: o.Namespace, Name: o.Name, Unmanaged: o.Unmanaged})
		}
		if caps := cv.Status.Capabilities; len(caps.KnownCapabilities) > 0 {
			c := &payload.Capabilities{}
			for _, k := range caps.KnownCapabilities {
				c.Known = append(c.Known, string(k))
			}
			for _, e := range caps.EnabledCapabilities {
				c.Enabled = append(c.Enabled, string(e))
			}
			in.Capabilities = c
		}
	}
	if fg := s.FeatureGate; fg != nil {
		in.FeatureSet = fg.FeatureSet
		details := fg.FeatureGates
		pick := -1
		for i, d := range details {
			if d.Version == desired {
				pick = i
			}
		}
		if pick < 0 && len(details) > 0 {
			pick = 0
		}
		if pick >= 0 {
			for _, g := range details[pick].Enabled {
				in.EnabledFeatureGates = append(in.EnabledFeatureGates, string(g.Name))
			}
		}
	}
	return in
}

// InclusionAssumptions says, one sentence each, which of Inclusion's inputs the
// snapshot did not hold and what was assumed instead: the CVO Deployment's
// CLUSTER_PROFILE and EXCLUDE_MANIFESTS (an Insights archive never gathers
// Deployments; a hosted control plane's CVO runs outside the cluster),
// FeatureGate/cluster (the feature set and the gates a
// release.openshift.io/feature-gate manifest needs) and ClusterVersion (its
// capabilities and overrides). featureGated says whether the payload has
// manifests a feature set or gate selects (FeatureGated); without them the
// FeatureGate is not needed and not mentioned. Nil when everything was read.
func InclusionAssumptions(s *inspect.Snapshot, featureGated bool) []string {
	var out []string
	if s.CVO == nil {
		what := fmt.Sprintf("the CVO Deployment was not in the snapshot (%s), so its CLUSTER_PROFILE is assumed %s and its EXCLUDE_MANIFESTS empty",
			collectionOf(s, inspect.ResDeployments), payload.DefaultClusterProfile)
		if in := s.Infrastructure; in != nil && in.ControlPlaneTopology == "External" {
			what += "; Infrastructure says the control plane is External (a hosted control plane, whose CVO runs outside the cluster with another profile): the included manifests are likely wrong"
		}
		out = append(out, what)
	}
	// A payload without feature-set or feature-gate annotations is filtered the
	// same whatever the FeatureGate says.
	switch {
	case !featureGated:
	case s.FeatureGate == nil:
		out = append(out, fmt.Sprintf("FeatureGate/cluster was not in the snapshot (%s), so the feature set is assumed Default with no gate enabled: every manifest annotated release.openshift.io/feature-gate is left out", collectionOf(s, inspect.ResFeatureGates)))
	case s.ClusterVersion != nil && len(s.FeatureGate.FeatureGates) > 0:
		desired := s.ClusterVersion.Status.Desired.Version
		found := false
		var versions []string
		for _, d := range s.FeatureGate.FeatureGates {
			versions = append(versions, d.Version)
			found = found || d.Version == desired
		}
		if desired != "" && !found {
			out = append(out, fmt.Sprintf("FeatureGate/cluster status.featureGates has no entry for %s (only %s): the gates of %s are used", desired, strings.Join(versions, ", "), versions[0]))
		}
	}
	if s.ClusterVersion == nil {
		out = append(out, fmt.Sprintf("ClusterVersion was not in the snapshot (%s): capabilities are not filtered and no spec.overrides apply", collectionOf(s, inspect.ResClusterVersions)))
	}
	return out
}

// collectionOf says how the snapshot recorded a resource type (in the CVO's
// namespace when it was read per namespace): its state and reason, or "not
// recorded".
func collectionOf(s *inspect.Snapshot, r inspect.Resource) string {
	for _, ns := range []string{openshift.CVONamespace, ""} {
		for _, st := range s.Resources {
			if st.Resource == r.Key() && st.Namespace == ns {
				if st.Reason != "" {
					return string(st.State) + ": " + st.Reason
				}
				return string(st.State)
			}
		}
	}
	return "not recorded"
}

// FeatureGated reports whether any manifest of the payload carries a
// release.openshift.io/feature-set or feature-gate annotation.
func FeatureGated(pl *payload.Payload) bool {
	for _, m := range pl.Manifests {
		if _, ok := m.Annotations[openshift.AnnotationFeatureSet]; ok {
			return true
		}
		if _, ok := m.Annotations[openshift.AnnotationFeatureGate]; ok {
			return true
		}
	}
	return false
}
