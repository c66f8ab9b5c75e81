package inspect

import (
	"sort"
	"sync"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Builder assembles a Snapshot from API objects. Sources feed it what they read
// (it reduces each object at once, so a source can stream pages through it) and
// record the provenance of every resource type; Finish sorts and analyzes. It is
// safe for concurrent use.
type Builder struct {
	mu    sync.Mutex
	s     Snapshot
	spo   map[string]*StaticPodOperator // by resource
	names map[string]bool               // "<kind>/<ns>/<name>" seen, for de-duplication
	w     wedgeState                    // the wedge facts assembled at Finish
}

// NewBuilder starts a snapshot of the given source kind and location.
func NewBuilder(kind SourceKind, location string) *Builder {
	b := &Builder{
		s: Snapshot{
			FormatVersion: FormatVersion,
			Source:        SourceInfo{Kind: kind, Location: location},
		},
		spo:   map[string]*StaticPodOperator{},
		names: map[string]bool{},
		w:     newWedgeState(),
	}
	for _, c := range StaticPodComponents {
		b.spo[c.Resource.Resource] = &StaticPodOperator{
			Resource: c.Resource.Resource, Component: c.Component,
			ClusterOperator: c.ClusterOperator, Namespace: c.Namespace,
		}
	}
	return b
}

// seen reports whether the object was added before, and marks it.
func (b *Builder) seen(kind, ns, name string) bool {
	key := kind + "/" + ns + "/" + name
	if b.names[key] {
		return true
	}
	b.names[key] = true
	return false
}

// addOnce appends rs to *to, under the lock, unless an object of that kind,
// namespace and name was added before (a source may list one twice).
func addOnce[T any](b *Builder, to *[]T, kind, ns, name string, rs ...T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.seen(kind, ns, name) {
		*to = append(*to, rs...)
	}
}

// SetCollectedAt sets when the state was observed and how that time was found.
func (b *Builder) SetCollectedAt(t time.Time, from string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.Source.CollectedAt = t.UTC().Truncate(time.Second)
	b.s.Source.CollectedAtFrom = from
}

// Record stores the provenance of one resource type, replacing an earlier record
// with the same key.
func (b *Builder) Record(rs ResourceStatus) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !rs.CollectedAt.IsZero() {
		rs.CollectedAt = rs.CollectedAt.UTC().Truncate(time.Millisecond)
	}
	for i := range b.s.Resources {
		if b.s.Resources[i].Key() == rs.Key() {
			b.s.Resources[i] = rs
			return
		}
	}
	b.s.Resources = append(b.s.Resources, rs)
}

// SetClusterVersion stores ClusterVersion/version (other names are ignored).
func (b *Builder) SetClusterVersion(cv *configv1.ClusterVersion) {
	if cv.Name != "" && cv.Name != openshift.ClusterVersionName {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.ClusterVersion = &ClusterVersion{UID: string(cv.UID), Spec: cv.Spec, Status: cv.Status}
}

// AddClusterOperator adds a ClusterOperator.
func (b *Builder) AddClusterOperator(co *configv1.ClusterOperator) {
	r := ClusterOperatorFromAPI(co)
	addOnce(b, &b.s.ClusterOperators, "co", "", co.Name, r)
}

// SetStaticPodOperator stores a static-pod operator CR (resource is its plural,
// e.g. "kubeapiservers"; only the singleton "cluster" counts; an empty name is
// taken to be it, as offline files without metadata are).
func (b *Builder) SetStaticPodOperator(resource string, meta metav1.ObjectMeta, spec operatorv1.StaticPodOperatorSpec, status operatorv1.StaticPodOperatorStatus) {
	if meta.Name != "" && meta.Name != openshift.SingletonName {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	op, ok := b.spo[resource]
	if !ok {
		return
	}
	op.Present = true
	op.UID = string(meta.UID)
	op.ManagementState = string(spec.ManagementState)
	op.ForceRedeploymentReason = spec.ForceRedeploymentReason
	op.LatestAvailableRevision = status.LatestAvailableRevision
	op.NodeStatuses = status.NodeStatuses
	op.Conditions = status.Conditions
}

// AddPod adds a pod. In a static-pod operand namespace its mirror, installer or
// guard pod record is kept; any pod a drain would evict through the eviction API
// is kept, lean and with its labels, until Finish, which keeps it as a DrainPod
// when a PodDisruptionBudget of its namespace selects it and its node has
// DrainTrouble (see DrainInputsComplete). Other pods are dropped.
func (b *Builder) AddPod(p *corev1.Pod) {
	var mirror *StaticPod
	var installer *InstallerPod
	var guard *GuardPod
	c := StaticPodComponentFor(p.Namespace)
	if c != nil && c.Namespace == p.Namespace {
		mirror, installer = StaticPodFromAPI(c, p)
		if mirror == nil && installer == nil {
			guard = GuardPodFromAPI(c, p)
		}
	}
	cand, isCand := drainCandidate(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if isCand {
		b.addCandidate(cand, p.Labels)
	}
	if mirror == nil && installer == nil && guard == nil {
		return
	}
	if b.seen("pod", p.Namespace, p.Name) {
		return
	}
	op := b.spo[c.Resource.Resource]
	switch {
	case mirror != nil:
		op.MirrorPods = append(op.MirrorPods, *mirror)
	case installer != nil:
		op.Installers = append(op.Installers, *installer)
	default:
		op.Guards = append(op.Guards, *guard)
	}
}

// AddNode adds a node's lean record.
func (b *Builder) AddNode(n *corev1.Node) {
	r := NodeFromAPI(n)
	addOnce(b, &b.s.Nodes, "node", "", n.Name, r)
}

// AddMachineConfigPool adds a pool.
func (b *Builder) AddMachineConfigPool(p *mcfgv1.MachineConfigPool) {
	r := MachineConfigPoolFromAPI(p)
	addOnce(b, &b.s.MachineConfigPools, "mcp", "", p.Name, r)
}

// AddMachineConfig adds a MachineConfig from its metadata; only rendered configs
// (rendered-*) and those with a release annotation are kept.
func (b *Builder) AddMachineConfig(m *metav1.ObjectMeta) {
	r := MachineConfigFromMeta(m)
	if r.ReleaseImageVersion == "" && !isRendered(m.Name) {
		return
	}
	addOnce(b, &b.s.MachineConfigs, "mc", "", m.Name, r)
}

func isRendered(name string) bool { return len(name) > 9 && name[:9] == "rendered-" }

// AddDeployment adds a Deployment: the CVO's goes to Snapshot.CVO, an operator's
// (an openshift-* Deployment declaring a version in its env) to
// OperatorDeployments; others are ignored.
func (b *Builder) AddDeployment(d *appsv1.Deployment) {
	if !isOpenShiftNamespace(d.Namespace) {
		return
	}
	r := DeploymentFromAPI(d)
	isCVO := d.Namespace == openshift.CVONamespace && d.Name == openshift.CVODeployment
	if !isCVO && !isOperatorDeployment(&r) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen("deploy", d.Namespace, d.Name) {
		return
	}
	if isCVO {
		b.s.CVO = &r
		return
	}
	b.s.OperatorDeployments = append(b.s.OperatorDeployments, r)
}

// SetFeatureGate stores FeatureGate/cluster.
func (b *Builder) SetFeatureGate(fg *configv1.FeatureGate) {
	if fg.Name != "" && fg.Name != openshift.SingletonName {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.FeatureGate = &FeatureGate{
		FeatureSet:   string(fg.Spec.FeatureSet),
		Custom:       fg.Spec.CustomNoUpgrade,
		FeatureGates: fg.Status.FeatureGates,
	}
}

// SetInfrastructure stores Infrastructure/cluster.
func (b *Builder) SetInfrastructure(in *configv1.Infrastructure) {
	if in.Name != "" && in.Name != openshift.SingletonName {
		return
	}
	r := &Infrastructure{
		InfrastructureName:     in.Status.InfrastructureName,
		ControlPlaneTopology:   string(in.Status.ControlPlaneTopology),
		InfrastructureTopology: string(in.Status.InfrastructureTopology),
		APIServerURL:           in.Status.APIServerURL,
	}
	if in.Status.PlatformStatus != nil {
		r.Platform = string(in.Status.PlatformStatus.Type)
	}
	if r.Platform == "" {
		r.Platform = string(in.Status.Platform) //nolint:staticcheck // older clusters only set the deprecated field
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.Infrastructure = r
}

// Finish sorts everything, fills in the source time when none was set (the newest
// timestamp found in the data), and computes the Summary and Findings. The Builder
// must not be used afterwards.
func (b *Builder) Finish() *Snapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := &b.s
	for _, c := range StaticPodComponents {
		op := b.spo[c.Resource.Resource]
		if op.Present || len(op.MirrorPods) > 0 || len(op.Installers) > 0 || len(op.Guards) > 0 || b.hasRecord(c.Resource.Key()) {
			s.StaticPodOperators = append(s.StaticPodOperators, *op)
		}
	}
	b.finishWedges()
	normalize(s)
	if s.Source.CollectedAt.IsZero() {
		if t := newestTimestamp(s); !t.IsZero() {
			s.Source.CollectedAt = t
			s.Source.CollectedAtFrom = "newest timestamp in the data"
		}
	}
	finishLogs(s)
	Refresh(s)
	return s
}

func (b *Builder) hasRecord(key string) bool {
	for _, r := range b.s.Resources {
		if r.Resource == key {
			return true
		}
	}
	return false
}

// normalize sorts every list so that equal states give equal documents.
func normalize(s *Snapshot) {
	if s.ClusterOperators == nil {
		s.ClusterOperators = []ClusterOperator{}
	}
	if s.StaticPodOperators == nil {
		s.StaticPodOperators = []StaticPodOperator{}
	}
	if s.MachineConfigPools == nil {
		s.MachineConfigPools = []MachineConfigPool{}
	}
	if s.Nodes == nil {
		s.Nodes = []Node{}
	}
	sort.Slice(s.Resources, func(i, j int) bool { return s.Resources[i].Key() < s.Resources[j].Key() })
	sort.Slice(s.ClusterOperators, func(i, j int) bool { return s.ClusterOperators[i].Name < s.ClusterOperators[j].Name })
	sort.Slice(s.MachineConfigPools, func(i, j int) bool { return s.MachineConfigPools[i].Name < s.MachineConfigPools[j].Name })
	sort.Slice(s.MachineConfigs, func(i, j int) bool { return s.MachineConfigs[i].Name < s.MachineConfigs[j].Name })
	sort.Slice(s.Nodes, func(i, j int) bool { return s.Nodes[i].Name < s.Nodes[j].Name })
	sort.Slice(s.OperatorDeployments, func(i, j int) bool {
		a, b := s.OperatorDeployments[i], s.OperatorDeployments[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	for i := range s.StaticPodOperators {
		op := &s.StaticPodOperators[i]
		sort.Slice(op.MirrorPods, func(i, j int) bool { return op.MirrorPods[i].Node < op.MirrorPods[j].Node })
		sort.Slice(op.Installers, func(i, j int) bool {
			a, b := op.Installers[i], op.Installers[j]
			if a.Node != b.Node {
				return a.Node < b.Node
			}
			if a.Revision != b.Revision {
				return a.Revision < b.Revision
			}
			return a.Retry < b.Retry
		})
		sort.Slice(op.NodeStatuses, func(i, j int) bool { return op.NodeStatuses[i].NodeName < op.NodeStatuses[j].NodeName })
	}
	normalizeWedges(s)
}

// newestTimestamp returns the newest ClusterVersion or ClusterOperator transition
// or history time: a lower bound for when an offline source was collected. Only
// those objects count: they are written by one process family and collected
// together, while dumps of other kinds are sometimes taken at other times.
func newestTimestamp(s *Snapshot) time.Time {
	var t time.Time
	see := func(m metav1.Time) {
		if m.Time.After(t) {
			t = m.Time
		}
	}
	if cv := s.ClusterVersion; cv != nil {
		for _, c := range cv.Status.Conditions {
			see(c.LastTransitionTime)
		}
		for _, h := range cv.Status.History {
			see(h.StartedTime)
			if h.CompletionTime != nil {
				see(*h.CompletionTime)
			}
		}
	}
	for _, co := range s.ClusterOperators {
		for _, c := range co.Conditions {
			see(c.LastTransitionTime)
		}
	}
	return t.UTC()
}
