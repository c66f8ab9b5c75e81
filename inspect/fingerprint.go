package inspect

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	configv1 "github.com/openshift/api/config/v1"
)

// fingerprintDoc is the canonical form Fingerprint digests: only the state a
// recovery plan depends on, in a fixed order, without timestamps, resource versions
// or list order.
type fingerprintDoc struct {
	Desired       configv1.Release             `json:"desired"`
	History0      *configv1.UpdateHistory      `json:"history0,omitempty"`
	DesiredUpdate *configv1.Update             `json:"desiredUpdate,omitempty"`
	Overrides     []configv1.ComponentOverride `json:"overrides,omitempty"`
	Operators     []fpOperator                 `json:"operators"`
	StaticPods    []fpStaticPod                `json:"staticPods"`
	Nodes         []fpNode                     `json:"nodes"`
	Pools         []fpPool                     `json:"pools"`
	CVOReplicas   *int32                       `json:"cvoReplicas,omitempty"`
	CVOPresent    bool                         `json:"cvoPresent"`
	NotCollected  []string                     `json:"notCollected,omitempty"`

	// The wedge facts a remedy depends on (formatVersion 1.1). Each is omitted
	// when empty, so a snapshot without them (an older must-gather, a cluster with
	// nothing wedged) digests as it did before they were collected.
	DrainPDBs         []fpPDB            `json:"drainPDBs,omitempty"`
	PendingCSRs       []string           `json:"pendingCSRs,omitempty"`
	AdminAcks         map[string]string  `json:"adminAcks,omitempty"`
	ForceRedeployment map[string]string  `json:"forceRedeployment,omitempty"`
	CloudCredential   *fpCloudCredential `json:"cloudCredential,omitempty"`
}

// fpPDB is a PodDisruptionBudget that holds a drain: what relax-pdb patches and
// restores, and whether it still allows no disruption.
type fpPDB struct {
	Key                        string `json:"key"`
	UID                        string `json:"uid,omitempty"`
	MinAvailable               string `json:"minAvailable,omitempty"`
	MaxUnavailable             string `json:"maxUnavailable,omitempty"`
	Selector                   string `json:"selector"`
	UnhealthyPodEvictionPolicy string `json:"unhealthyPodEvictionPolicy,omitempty"`
	DisruptionsAllowed         int32  `json:"disruptionsAllowed"`
}

type fpCloudCredential struct {
	Mode          string `json:"mode,omitempty"`
	UpgradeableTo string `json:"upgradeableTo,omitempty"`
}

type fpOperator struct {
	Name     string                    `json:"name"`
	Versions []configv1.OperandVersion `json:"versions"`
}

type fpStaticPod struct {
	Component string `json:"component"`
	Node      string `json:"node"`
	Running   int32  `json:"running"`
	Image     string `json:"image,omitempty"`
	Claimed   int32  `json:"claimed"`
}

type fpNode struct {
	Name    string `json:"name"`
	Kubelet string `json:"kubelet"`
	Current string `json:"current,omitempty"`
	Desired string `json:"desired,omitempty"`
}

type fpPool struct {
	Name          string `json:"name"`
	Paused        bool   `json:"paused"`
	Configuration string `json:"configuration"`
	Status        string `json:"status"`
}

// Fingerprint returns "sha256:<hex>" over the state a recovery plan depends on:
// ClusterVersion status.desired, history[0] (state, image, version),
// spec.desiredUpdate and spec.overrides; every ClusterOperator's versions; every
// node's verified static-pod revision (mirror pod label and image, beside the
// claimed revision); node kubelet versions and machine-config current/desired
// configs; pools' paused flags and configurations; the CVO's replicas; and which
// of those resource types were not collected. Of the wedge facts (formatVersion
// 1.1) it covers what a remedy depends on: the spec and disruptionsAllowed of the
// PodDisruptionBudgets that select a DrainPod, the names of pending CSRs, the
// admin-acks data, each static-pod operator's forceRedeploymentReason and the
// CloudCredential's mode and upgradeable-to annotation; each is left out when
// empty, and whether their resource types were collected is not digested, so a
// must-gather that predates them matches a live cluster where nothing is
// wedged. It ignores timestamps, resource versions, conditions and list order,
// so re-collecting an unchanged cluster, live or from a must-gather of it, gives
// the same fingerprint. apply recomputes it live and refuses a plan whose
// fingerprint no longer matches.
func (s *Snapshot) Fingerprint() string {
	var d fingerprintDoc
	if cv := s.ClusterVersion; cv != nil {
		d.Desired = configv1.Release{Version: cv.Status.Desired.Version, Image: cv.Status.Desired.Image}
		if len(cv.Status.History) > 0 {
			h := cv.Status.History[0]
			d.History0 = &configv1.UpdateHistory{State: h.State, Image: h.Image, Version: h.Version}
		}
		d.DesiredUpdate = cv.Spec.DesiredUpdate
		d.Overrides = append(d.Overrides, cv.Spec.Overrides...)
		sort.Slice(d.Overrides, func(i, j int) bool {
			a, b := d.Overrides[i], d.Overrides[j]
			return a.Group+"/"+a.Kind+"/"+a.Namespace+"/"+a.Name < b.Group+"/"+b.Kind+"/"+b.Namespace+"/"+b.Name
		})
	}
	d.Operators = []fpOperator{}
	for _, co := range s.ClusterOperators {
		vs := append([]configv1.OperandVersion(nil), co.Versions...)
		sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
		d.Operators = append(d.Operators, fpOperator{Name: co.Name, Versions: vs})
	}
	sort.Slice(d.Operators, func(i, j int) bool { return d.Operators[i].Name < d.Operators[j].Name })
	d.StaticPods = []fpStaticPod{}
	for i := range s.StaticPodOperators {
		op := &s.StaticPodOperators[i]
		for _, t := range op.Truth() {
			sp := fpStaticPod{Component: op.Component, Node: t.Node, Running: t.Running, Claimed: t.Claimed}
			if t.Mirror != nil {
				sp.Image = t.Mirror.Image
			}
			d.StaticPods = append(d.StaticPods, sp)
		}
	}
	sort.Slice(d.StaticPods, func(i, j int) bool {
		a, b := d.StaticPods[i], d.StaticPods[j]
		if a.Component != b.Component {
			return a.Component < b.Component
		}
		return a.Node < b.Node
	})
	d.Nodes = make([]fpNode, 0, len(s.Nodes))
	for _, n := range s.Nodes {
		d.Nodes = append(d.Nodes, fpNode{Name: n.Name, Kubelet: n.KubeletVersion, Current: n.CurrentConfig, Desired: n.DesiredConfig})
	}
	sort.Slice(d.Nodes, func(i, j int) bool { return d.Nodes[i].Name < d.Nodes[j].Name })
	d.Pools = []fpPool{}
	for _, p := range s.MachineConfigPools {
		d.Pools = append(d.Pools, fpPool{Name: p.Name, Paused: p.Paused, Configuration: p.Configuration, Status: p.StatusConfiguration})
	}
	sort.Slice(d.Pools, func(i, j int) bool { return d.Pools[i].Name < d.Pools[j].Name })
	if s.CVO != nil {
		d.CVOPresent = true
		r := s.CVO.EffectiveReplicas()
		d.CVOReplicas = &r
	}
	wedge := map[string]bool{}
	for _, r := range WedgeResources() {
		wedge[r.Key()] = true
	}
	for _, r := range s.Resources {
		if r.State != Collected && !wedge[r.Key()] {
			d.NotCollected = append(d.NotCollected, r.Key()+"="+string(r.State))
		}
	}
	sort.Strings(d.NotCollected)
	fingerprintWedges(s, &d)
	// Marshalling plain strings, integers and booleans cannot fail.
	data, _ := json.Marshal(d)
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// fingerprintWedges adds the wedge facts a remedy depends on.
func fingerprintWedges(s *Snapshot, d *fingerprintDoc) {
	holding := map[string]bool{}
	for _, p := range s.DrainPods {
		for _, k := range p.PDBs {
			holding[k] = true
		}
	}
	for _, p := range s.PodDisruptionBudgets {
		if holding[p.Key()] {
			d.DrainPDBs = append(d.DrainPDBs, fpPDB{Key: p.Key(), UID: p.UID, MinAvailable: p.MinAvailable, MaxUnavailable: p.MaxUnavailable,
				Selector: p.Selector, UnhealthyPodEvictionPolicy: p.UnhealthyPodEvictionPolicy, DisruptionsAllowed: p.DisruptionsAllowed})
		}
	}
	sort.Slice(d.DrainPDBs, func(i, j int) bool { return d.DrainPDBs[i].Key < d.DrainPDBs[j].Key })
	for _, c := range s.CertificateSigningRequests {
		if c.State == CSRStatePending {
			d.PendingCSRs = append(d.PendingCSRs, c.Name)
		}
	}
	sort.Strings(d.PendingCSRs)
	if g := s.AdminGates; g != nil && len(g.Acks) > 0 {
		d.AdminAcks = g.Acks
	}
	for _, op := range s.StaticPodOperators {
		if op.ForceRedeploymentReason != "" {
			if d.ForceRedeployment == nil {
				d.ForceRedeployment = map[string]string{}
			}
			d.ForceRedeployment[op.Component] = op.ForceRedeploymentReason
		}
	}
	if c := s.CloudCredential; c != nil && (c.Mode != "" || c.UpgradeableTo != "") {
		d.CloudCredential = &fpCloudCredential{Mode: c.Mode, UpgradeableTo: c.UpgradeableTo}
	}
}
