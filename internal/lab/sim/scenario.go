package sim

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// ScenarioFile is the name of a scenario's configuration file inside its directory.
const ScenarioFile = "scenario.yaml"

// The scenario document's identity.
const (
	ScenarioAPIVersion = "sim.recover.openshift.io/v1alpha1"
	ScenarioKind       = "Scenario"
)

// Scenario is a scenario.yaml: where the cluster's objects and release payloads are,
// how fast the fake controllers move, and which faults they start with. Paths are
// relative to the scenario directory.
type Scenario struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Description says what the scenario reproduces.
	Description string `json:"description,omitempty"`
	// MustGather is the directory, in `oc adm inspect` layout, whose objects are
	// loaded into the API server ("must-gather" when empty).
	MustGather string `json:"mustGather,omitempty"`
	// Releases are the releases the scenario knows: the versions the cluster ran or
	// may be moved to. The fake CVO can only apply a release that has a Payload.
	Releases []ReleaseRef `json:"releases"`
	// Seed seeds the fake CVO's shuffled Reconciling order (0 means 1).
	Seed uint64 `json:"seed,omitempty"`
	// Timing sets the fake controllers' delays; zero values take the defaults.
	Timing Timing `json:"timing,omitempty"`
	// Operators add to or override the operators the simulator derives from payloads.
	Operators []OperatorSpec `json:"operators,omitempty"`
	// Faults are active from the start.
	Faults []Fault `json:"faults,omitempty"`
	// JoiningNodes are machines whose kubelet is joining the cluster: booted, with
	// a Machine (openshift-machine-api, InternalDNS = the node name, no nodeRef)
	// but no Node, because their client certificate is not approved yet. The
	// simulator is their kubelet: it waits for its client CSR (the must-gather's,
	// else one it requests as the node-bootstrapper) to be issued, then registers
	// the Node. See docs/simulator.md.
	JoiningNodes []JoiningNode `json:"joiningNodes,omitempty"`
	// PodLogs serves the must-gather's container logs through pods/log: the
	// nodes' InternalIP becomes 127.0.0.1, where the simulator's kubelet server
	// listens (it needs Options.KubeletCA; see docs/simulator.md).
	PodLogs bool `json:"podLogs,omitempty"`
	// Verification, when set, makes the fake CVO verify every release it is
	// asked to move to, as the real one does (library-go pkg/verify): it
	// accepts the release only once a signature ConfigMap in
	// openshift-config-managed (label release.openshift.io/verification-signatures,
	// binaryData sha256-<hex>-<n>) holds a signature of the release's digest
	// that verifies against Keyring; until then it reports
	// ReleaseAccepted=False, RetrievePayload, "The update cannot be verified".
	Verification *Verification `json:"verification,omitempty"`
	// Try are the commands the lab suggests once the cluster is up, relative to
	// the repository root ("recover inspect", "recover plan --graph ...").
	Try []string `json:"try,omitempty"`

	// Dir is the scenario directory, set by LoadScenario.
	Dir string `json:"-"`
}

// Verification is the release keyring of a scenario whose CVO verifies releases.
type Verification struct {
	// Keyring is an OpenPGP public keyring file, relative to the scenario
	// directory.
	Keyring string `json:"keyring"`
}

// JoiningNode is a node whose kubelet waits for its client certificate.
type JoiningNode struct {
	// Node is the node's name: its kubelet's CN is system:node:<Node>.
	Node string `json:"node"`
	// ServingCSR makes the kubelet request its serving certificate
	// (kubelet-serving, as system:node:<Node>) once registered; it stays pending
	// until approved.
	ServingCSR bool `json:"servingCSR,omitempty"`
}

// ReleaseRef names one release of a scenario.
type ReleaseRef struct {
	// Version is the release's semantic version (4.4.3).
	Version string `json:"version"`
	// Image is the release pull spec, by digest: what ClusterVersion and the CVO
	// Deployment carry.
	Image string `json:"image"`
	// Payload is the directory of the release's extracted payload (`oc adm release
	// extract` layout: manifests/ and release-manifests/), relative to the scenario
	// directory. Empty for releases the cluster only ran in the past.
	Payload string `json:"payload,omitempty"`
	// Kubernetes is the release's Kubernetes version (1.17.1), the version its
	// kubelets report. Empty means: the kube-apiserver operand version its payload's
	// kube-apiserver ClusterOperator manifest declares.
	Kubernetes string `json:"kubernetes,omitempty"`
}

// Timing holds the fake controllers' delays. They are small in tests and larger in
// the lab, so a person can watch a rollout.
type Timing struct {
	// Operator is how long an operator stays Progressing before it reports a new
	// version (default 1s).
	Operator metav1.Duration `json:"operator,omitempty"`
	// StaticPodNode is how long a static-pod operator spends installing a revision
	// on one node (default 500ms).
	StaticPodNode metav1.Duration `json:"staticPodNode,omitempty"`
	// MachineConfigNode is how long the machine-config daemon spends updating one
	// node (drain, write, reboot; default 1s).
	MachineConfigNode metav1.Duration `json:"machineConfigNode,omitempty"`
	// CVOInterval is the fake CVO's pause between two Reconciling passes (default 5s).
	CVOInterval metav1.Duration `json:"cvoInterval,omitempty"`
	// CVOPoll is how often the fake CVO re-checks what it waits for (default 200ms).
	CVOPoll metav1.Duration `json:"cvoPoll,omitempty"`
	// PayloadLoad is how long the fake CVO spends retrieving and verifying a
	// release payload before it acts on it: after every start and for every new
	// desired release (default 0). In the first incident this took 5m45s (signature
	// fetches black-holed), which is what tripped the CVO into Reconciling.
	PayloadLoad metav1.Duration `json:"payloadLoad,omitempty"`
	// DrainRetry is how long the machine-config controller's drain controller
	// waits after a failed drain before it tries the evictions again (default 2s;
	// the real one waits 1 minute, 5 after 10 minutes of failures).
	DrainRetry metav1.Duration `json:"drainRetry,omitempty"`
	// DrainTimeout is how long the machine-config daemon waits for a drain before
	// it reports the node Degraded with "failed to drain node: <node> after 1
	// hour. ..." (default 30s; the real daemon waits 1 hour). It keeps waiting.
	DrainTimeout metav1.Duration `json:"drainTimeout,omitempty"`
	// PoolSyncNode is, per machine of the required pools, how long the
	// machine-config operator waits for the pools before it reports Degraded
	// with reason RequiredPoolsFailed (the real operator waits 10 minutes per
	// required machine). Zero means 10 times MachineConfigNode.
	PoolSyncNode metav1.Duration `json:"poolSyncNode,omitempty"`
	// InstallerBackoff is the first wait before a static-pod operator retries a
	// failed installer pod; each further failure waits 1.5 times longer, up to
	// 60 times this (default 1s; library-go waits 10s, 1.5x, up to 10 minutes).
	InstallerBackoff metav1.Duration `json:"installerBackoff,omitempty"`
}

// poolSyncTimeout is how long the machine-config operator waits for the required
// pools, which hold machines machines, before it reports Degraded.
func (t Timing) poolSyncTimeout(machines int) time.Duration {
	per := t.PoolSyncNode.Duration
	if per <= 0 {
		per = 10 * t.MachineConfigNode.Duration
	}
	return time.Duration(max(machines, 1)) * per
}

// installerBackoff is library-go's backOffDuration(base, 1.5, 60*base) for a node
// whose installer failed count times.
func (t Timing) installerBackoff(count int) time.Duration {
	base := t.InstallerBackoff.Duration
	d := time.Duration(float64(base) * math.Pow(1.5, float64(count)))
	if limit := 60 * base; d > limit {
		return limit
	}
	return d
}

// DefaultTiming is the timing used for fields a scenario leaves empty.
var DefaultTiming = Timing{
	Operator:          metav1.Duration{Duration: time.Second},
	StaticPodNode:     metav1.Duration{Duration: 500 * time.Millisecond},
	MachineConfigNode: metav1.Duration{Duration: time.Second},
	CVOInterval:       metav1.Duration{Duration: 5 * time.Second},
	CVOPoll:           metav1.Duration{Duration: 200 * time.Millisecond},
	DrainRetry:        metav1.Duration{Duration: 2 * time.Second},
	DrainTimeout:      metav1.Duration{Duration: 30 * time.Second},
	InstallerBackoff:  metav1.Duration{Duration: time.Second},
}

// FastTiming is a test's timing: delays short enough for a whole update to run in
// seconds (the lab's --fast uses it too).
var FastTiming = Timing{
	Operator:          metav1.Duration{Duration: 100 * time.Millisecond},
	StaticPodNode:     metav1.Duration{Duration: 100 * time.Millisecond},
	MachineConfigNode: metav1.Duration{Duration: 200 * time.Millisecond},
	CVOInterval:       metav1.Duration{Duration: time.Second},
	CVOPoll:           metav1.Duration{Duration: 50 * time.Millisecond},
	DrainRetry:        metav1.Duration{Duration: 100 * time.Millisecond},
	DrainTimeout:      metav1.Duration{Duration: time.Second},
	InstallerBackoff:  metav1.Duration{Duration: 100 * time.Millisecond},
}

// HeldTiming is FastTiming with the CVO held in its payload retrieval and the
// machine-config daemons held on their nodes for an hour: the cluster holds still
// while a test inspects and plans it, until SetTiming(FastTiming) lets it move.
var HeldTiming = Timing{
	Operator:          FastTiming.Operator,
	StaticPodNode:     FastTiming.StaticPodNode,
	MachineConfigNode: metav1.Duration{Duration: time.Hour},
	CVOInterval:       FastTiming.CVOInterval,
	CVOPoll:           FastTiming.CVOPoll,
	PayloadLoad:       metav1.Duration{Duration: time.Hour},
	DrainRetry:        FastTiming.DrainRetry,
	DrainTimeout:      FastTiming.DrainTimeout,
	InstallerBackoff:  FastTiming.InstallerBackoff,
}

// withDefaults returns t with every zero field set from DefaultTiming.
func (t Timing) withDefaults() Timing {
	pick := func(v, d metav1.Duration) metav1.Duration {
		if v.Duration <= 0 {
			return d
		}
		return v
	}
	return Timing{
		Operator:          pick(t.Operator, DefaultTiming.Operator),
		StaticPodNode:     pick(t.StaticPodNode, DefaultTiming.StaticPodNode),
		MachineConfigNode: pick(t.MachineConfigNode, DefaultTiming.MachineConfigNode),
		CVOInterval:       pick(t.CVOInterval, DefaultTiming.CVOInterval),
		CVOPoll:           pick(t.CVOPoll, DefaultTiming.CVOPoll),
		PayloadLoad:       pick(t.PayloadLoad, DefaultTiming.PayloadLoad),
		DrainRetry:        pick(t.DrainRetry, DefaultTiming.DrainRetry),
		DrainTimeout:      pick(t.DrainTimeout, DefaultTiming.DrainTimeout),
		PoolSyncNode:      t.PoolSyncNode,
		InstallerBackoff:  pick(t.InstallerBackoff, DefaultTiming.InstallerBackoff),
	}
}

// OperatorType is how a fake operator rolls out a new release.
type OperatorType string

// The operator types.
const (
	// OperatorPlain goes Progressing, waits Timing.Operator, then reports the
	// release's versions.
	OperatorPlain OperatorType = "plain"
	// OperatorStaticPod rolls a new static-pod revision node by node first.
	OperatorStaticPod OperatorType = "static-pod"
	// OperatorMachineConfig rolls new machine configs through the pools first.
	OperatorMachineConfig OperatorType = "machine-config"
)

// OperatorSpec declares one fake operator explicitly. Operators are otherwise
// derived from the payloads: a Deployment carrying env RELEASE_VERSION belongs to
// the ClusterOperator manifests of the same payload component.
type OperatorSpec struct {
	// ClusterOperator is the ClusterOperator the operator reports to.
	ClusterOperator string `json:"clusterOperator"`
	// Deployment is the operator's Deployment, "<namespace>/<name>".
	Deployment string `json:"deployment"`
	// Type defaults by name: static-pod for kube-apiserver, kube-controller-manager,
	// kube-scheduler and etcd; machine-config for machine-config; plain otherwise.
	Type OperatorType `json:"type,omitempty"`
	// StaticPods locates the operand of a static-pod operator; defaults by name.
	StaticPods *StaticPodOperand `json:"staticPods,omitempty"`
}

// StaticPodOperand locates a static-pod operator's operator resource and mirror pods.
type StaticPodOperand struct {
	// Resource is the operator.openshift.io/v1 resource whose singleton "cluster"
	// holds the revisions (kubeapiservers).
	Resource string `json:"resource"`
	// Namespace and PodPrefix name the mirror pods <PodPrefix>-<node> in Namespace.
	Namespace string `json:"namespace"`
	PodPrefix string `json:"podPrefix"`
	// Container is the mirror pod's container that runs the operand image.
	Container string `json:"container"`
	// Operand is the operand's entry in the ClusterOperator's status.versions, used
	// for the "<Operand> is at revision N" messages (kube-apiserver).
	Operand string `json:"operand,omitempty"`
}

// staticPodOperands are the four static-pod operators of OpenShift 4, as library-go's
// static-pod controllers name their resources and mirror pods.
var staticPodOperands = map[string]StaticPodOperand{
	"kube-apiserver":          {Resource: "kubeapiservers", Namespace: "openshift-kube-apiserver", PodPrefix: "kube-apiserver", Container: "kube-apiserver", Operand: "kube-apiserver"},
	"kube-controller-manager": {Resource: "kubecontrollermanagers", Namespace: "openshift-kube-controller-manager", PodPrefix: "kube-controller-manager", Container: "kube-controller-manager", Operand: "kube-controller-manager"},
	"kube-scheduler":          {Resource: "kubeschedulers", Namespace: "openshift-kube-scheduler", PodPrefix: "openshift-kube-scheduler", Container: "kube-scheduler", Operand: "kube-scheduler"},
	"etcd":                    {Resource: "etcds", Namespace: "openshift-etcd", PodPrefix: "etcd", Container: "etcd", Operand: "etcd"},
}

// defaultOperatorType is the type an operator gets when its spec names none.
func defaultOperatorType(clusterOperator string) OperatorType {
	if _, ok := staticPodOperands[clusterOperator]; ok {
		return OperatorStaticPod
	}
	if clusterOperator == machineConfigOperator {
		return OperatorMachineConfig
	}
	return OperatorPlain
}

// ScenarioError is a scenario that cannot be loaded: a missing file, bad YAML, or a
// field that does not make sense. It is bad input.
type ScenarioError struct {
	Path string
	Err  error
}

func (e *ScenarioError) Error() string { return fmt.Sprintf("scenario %s: %v", e.Path, e.Err) }

// Unwrap returns the cause.
func (e *ScenarioError) Unwrap() error { return e.Err }

// BadInput marks scenario errors as bad input for recover's exit codes.
func (e *ScenarioError) BadInput() bool { return true }

// LoadScenario reads dir/scenario.yaml and checks it: known fields only, releases
// with versions and by-digest images, payload and must-gather directories present,
// and faults that name what they need.
func LoadScenario(dir string) (*Scenario, error) {
	path := filepath.Join(dir, ScenarioFile)
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &ScenarioError{Path: path, Err: fmt.Errorf("no %s here; a scenario is a directory holding %s, a must-gather and release payloads (see docs/simulator.md)", ScenarioFile, ScenarioFile)}
		}
		return nil, &ScenarioError{Path: path, Err: err}
	}
	s := &Scenario{}
	if err := yaml.UnmarshalStrict(data, s); err != nil {
		return nil, &ScenarioError{Path: path, Err: fmt.Errorf("malformed: %w", err)}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &ScenarioError{Path: path, Err: err}
	}
	s.Dir = abs
	if err := s.validate(); err != nil {
		return nil, &ScenarioError{Path: path, Err: err}
	}
	return s, nil
}

// validate checks the scenario's fields and that its directories exist.
func (s *Scenario) validate() error {
	if s.APIVersion != ScenarioAPIVersion || s.Kind != ScenarioKind {
		return fmt.Errorf("apiVersion/kind is %q/%q, want %s/%s", s.APIVersion, s.Kind, ScenarioAPIVersion, ScenarioKind)
	}
	if s.MustGather == "" {
		s.MustGather = "must-gather"
	}
	if err := isDir(s.Path(s.MustGather)); err != nil {
		return fmt.Errorf("mustGather: %w", err)
	}
	if len(s.Releases) == 0 {
		return errors.New("releases: none given; list at least the release the cluster runs")
	}
	if v := s.Verification; v != nil {
		if v.Keyring == "" {
			return errors.New("verification.keyring: empty; name the release keyring the CVO verifies with")
		}
		if _, err := os.Stat(filepath.Join(s.Dir, v.Keyring)); err != nil {
			return fmt.Errorf("verification.keyring: %w", err)
		}
	}
	seen := map[string]bool{}
	for i, r := range s.Releases {
		if r.Version == "" {
			return fmt.Errorf("releases[%d]: version is empty", i)
		}
		if seen[r.Version] {
			return fmt.Errorf("releases[%d]: version %s listed twice", i, r.Version)
		}
		seen[r.Version] = true
		if !strings.Contains(r.Image, "@sha256:") {
			return fmt.Errorf("releases[%d] (%s): image %q is not a by-digest pull spec", i, r.Version, r.Image)
		}
		if r.Payload != "" {
			if err := isDir(s.Path(r.Payload)); err != nil {
				return fmt.Errorf("releases[%d] (%s): payload: %w", i, r.Version, err)
			}
		}
	}
	for i, op := range s.Operators {
		if op.ClusterOperator == "" {
			return fmt.Errorf("operators[%d]: clusterOperator is empty", i)
		}
		if ns, name, ok := strings.Cut(op.Deployment, "/"); !ok || ns == "" || name == "" {
			return fmt.Errorf("operators[%d] (%s): deployment %q is not <namespace>/<name>", i, op.ClusterOperator, op.Deployment)
		}
		switch op.Type {
		case "", OperatorPlain, OperatorMachineConfig:
		case OperatorStaticPod:
			if op.StaticPods == nil {
				if _, ok := staticPodOperands[op.ClusterOperator]; !ok {
					return fmt.Errorf("operators[%d] (%s): a static-pod operator needs staticPods (resource, namespace, podPrefix, container)", i, op.ClusterOperator)
				}
			}
		default:
			return fmt.Errorf("operators[%d] (%s): unknown type %q (want plain, static-pod or machine-config)", i, op.ClusterOperator, op.Type)
		}
	}
	joining := map[string]bool{}
	for i, jn := range s.JoiningNodes {
		if jn.Node == "" {
			return fmt.Errorf("joiningNodes[%d]: node is empty (name the node whose kubelet waits for its client certificate)", i)
		}
		if errs := validation.IsDNS1123Subdomain(jn.Node); len(errs) > 0 {
			return fmt.Errorf("joiningNodes[%d]: node %q is not a valid node name: %s", i, jn.Node, strings.Join(errs, "; "))
		}
		if joining[jn.Node] {
			return fmt.Errorf("joiningNodes[%d]: node %s listed twice", i, jn.Node)
		}
		joining[jn.Node] = true
	}
	for i, f := range s.Faults {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("faults[%d]: %w", i, err)
		}
		if f.needsStaticPodOperator() && !s.isStaticPodOperator(f.ClusterOperator) {
			return fmt.Errorf("faults[%d]: %s needs a static-pod operator (kube-apiserver, kube-controller-manager, kube-scheduler, etcd, or one declared with type static-pod), not %s", i, f.Type, f.ClusterOperator)
		}
	}
	return nil
}

// isStaticPodOperator reports whether the named operator rolls static pods.
func (s *Scenario) isStaticPodOperator(co string) bool {
	for _, op := range s.Operators {
		if op.ClusterOperator == co && op.Type != "" {
			return op.Type == OperatorStaticPod
		}
	}
	return defaultOperatorType(co) == OperatorStaticPod
}

// Path resolves a scenario-relative path.
func (s *Scenario) Path(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(s.Dir, rel)
}

// Release returns the scenario's release with the given version.
func (s *Scenario) Release(version string) (ReleaseRef, bool) {
	for _, r := range s.Releases {
		if r.Version == version {
			return r, true
		}
	}
	return ReleaseRef{}, false
}

// ReleaseByImage returns the scenario's release with the given pull spec.
func (s *Scenario) ReleaseByImage(image string) (ReleaseRef, bool) {
	for _, r := range s.Releases {
		if r.Image == image {
			return r, true
		}
	}
	return ReleaseRef{}, false
}

func isDir(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s does not exist", path)
		}
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", path)
	}
	return nil
}
