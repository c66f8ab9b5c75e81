package planfile

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Validate is the one structural validation of a plan document, which the
// planner runs before it saves a plan and apply before it runs one: its
// identity and format version, unique step IDs, the fields each action needs
// (its ActionSpec's rule), manifest digests, every gate's fields, and that every
// step that changes the cluster runs between disable-cvo and restore-cvo. The
// remediation rules (defense in depth against hand-edited plans, whose digests
// cover only manifests): a Change names its object, its fields, and a patch
// that sets nothing else; every temporary change has its revert step after it,
// and every revert reverts a change of the plan. A drive-cvo plan has no
// disable-cvo or restore-cvo and one set-desired-update. It needs no snapshot: Check,
// which the planner runs, asserts the invariants on a model of the cluster.
func Validate(p *Plan) error {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if p.APIVersion != APIVersion || p.Kind != Kind {
		return &ValidationError{Msg: fmt.Sprintf("not a recover plan (apiVersion %q, kind %q; want %s %s)", p.APIVersion, p.Kind, APIVersion, Kind)}
	}
	major, _, _ := strings.Cut(p.FormatVersion, ".")
	if want, _, _ := strings.Cut(FormatVersion, "."); major != want {
		return &ValidationError{Msg: fmt.Sprintf("plan format version %q is not supported (this recover reads %s.x)", p.FormatVersion, want)}
	}
	if len(p.Steps) == 0 {
		return &ValidationError{Msg: "the plan has no steps"}
	}
	seen := map[string]bool{}
	disable, restore, firstMut, lastMut := -1, -1, -1, -1
	for i := range p.Steps {
		s := &p.Steps[i]
		where := fmt.Sprintf("step %d (%s)", i+1, s.ID)
		at := func(format string, args ...any) { add("%s: "+format, append([]any{where}, args...)...) }
		if s.ID == "" {
			add("step %d has no id", i+1)
		} else if seen[s.ID] {
			at("duplicate step id")
		}
		seen[s.ID] = true
		spec := SpecOf(s.Action)
		if spec == nil {
			at("unknown action %q", s.Action)
			continue
		}
		if spec.Mutates {
			if firstMut < 0 {
				firstMut = i
			}
			lastMut = i
		}
		switch {
		case spec.StopsCVO:
			if disable >= 0 {
				at("a second %s step", s.Action)
			}
			disable = i
		case spec.RestartsCVO:
			if restore >= 0 {
				at("a second %s step", s.Action)
			}
			restore = i
		}
		if spec.validate != nil {
			spec.validate(p, i, at)
		}
		validateChangeFields(p, i, at)
		if spec.Temporary && s.RevertedBy == "" {
			at("%s is temporary: it needs revertedBy, the step that restores what it changes", s.Action)
		}
		if s.RevertedBy != "" {
			validateRevertedBy(p, i, at)
		}
		if s.Gate != nil {
			if err := ValidateGate(s.Gate); err != nil {
				at("%v", err)
			}
			if s.Gate.Kind == GateRestored && !spec.Undoes {
				at("a restored gate belongs on a revert step (it compares the object with the pre-image of the step reverted)")
			} else if len(spec.Gates) > 0 && !slices.Contains(spec.Gates, s.Gate.Kind) && slices.Contains(GateKinds(), s.Gate.Kind) {
				at("a %s gate does not belong on a %s step (it takes %s)", s.Gate.Kind, s.Action, gateList(spec.Gates))
			}
		}
	}
	if disable < 0 && restore < 0 {
		// No CVO bracket: the CVO keeps the wheel, so no step may change what
		// it manages (it would fight the change).
		for i := range p.Steps {
			if spec := SpecOf(p.Steps[i].Action); spec != nil && spec.CVOManages {
				add("step %s changes what the CVO manages (%s) and the plan has no disable-cvo step: the CVO would fight the change", p.Steps[i].ID, p.Steps[i].Action)
				break
			}
		}
	} else if firstMut >= 0 {
		if disable < 0 || disable > firstMut {
			add("step %s changes the cluster before a disable-cvo step: the CVO would fight the change", p.Steps[firstMut].ID)
		}
		if restore < 0 || restore < lastMut {
			add("no restore-cvo step after the last change (%s): the plan would leave the CVO disabled", p.Steps[lastMut].ID)
		}
	}
	if p.Mode == ModeDriveCVO {
		// The CVO keeps the wheel: it is never disabled, and it is handed
		// the target (no apply or delete: the no-bracket rule above).
		if disable >= 0 || restore >= 0 {
			add("a drive-cvo plan keeps the CVO running: it has no disable-cvo or restore-cvo step")
		}
		if n := CountAction(p, ActionSetDesiredUpdate); n != 1 {
			add("a drive-cvo plan hands the CVO its target in one set-desired-update step; it has %d", n)
		}
	}
	if restore >= 0 && disable >= 0 && restore < disable {
		add("restore-cvo (%s) comes before disable-cvo (%s)", p.Steps[restore].ID, p.Steps[disable].ID)
	}
	validateStages(p, add)
	if len(problems) > 0 {
		return &ValidationError{Msg: "invalid plan: " + strings.Join(problems, "; ")}
	}
	return nil
}

// countAction counts the plan's steps of an action.
func CountAction(p *Plan, a Action) int {
	n := 0
	for i := range p.Steps {
		if p.Steps[i].Action == a {
			n++
		}
	}
	return n
}

// ValidationError is a plan document that is not valid. It is bad input.
type ValidationError struct{ Msg string }

func (e *ValidationError) Error() string { return e.Msg }

// BadInput reports true: the plan document is wrong.
func (e *ValidationError) BadInput() bool { return true }

func gateList(kinds []GateKind) string {
	var out []string
	for _, k := range kinds {
		out = append(out, string(k))
	}
	return strings.Join(out, " or ")
}

// validateRevertedBy checks a temporary change's link to its revert step.
func validateRevertedBy(p *Plan, i int, at problemFunc) {
	s := &p.Steps[i]
	if s.Change == nil {
		at("revertedBy %s on a step that changes no object (only a change can be reverted)", s.RevertedBy)
		return
	}
	j := p.stepIndex(s.RevertedBy)
	switch {
	case j < 0:
		at("a temporary change without its revert: revertedBy %q is not a step of the plan", s.RevertedBy)
	case j < i:
		at("revertedBy %s comes before the change", s.RevertedBy)
	case !p.Steps[j].Spec().Undoes || p.Steps[j].Reverts != s.ID:
		at("revertedBy %s is not a revert step of this step", s.RevertedBy)
	}
}

// stepIndex is the index of the step with that ID, -1 when there is none.
func (p *Plan) stepIndex(id string) int {
	for j := range p.Steps {
		if p.Steps[j].ID == id {
			return j
		}
	}
	return -1
}

// forbiddenPatchPaths are fields no remediation patch may set: the object's
// identity, its concurrency token and its status.
var forbiddenPatchPaths = [][]string{
	{"apiVersion"}, {"kind"}, {"metadata", "name"}, {"metadata", "namespace"}, {"metadata", "uid"},
	{"metadata", "resourceVersion"}, {"metadata", "generation"}, {"metadata", "managedFields"},
	{"metadata", "ownerReferences"}, {"metadata", "finalizers"}, {"metadata", "deletionTimestamp"}, {"status"},
}

// validateChange checks a step's Change: its object, its fields (none that a
// remedy may not set), and a patch that sets nothing but them.
func validateChange(s *Step, at problemFunc) {
	ch := s.Change
	if ch == nil {
		at("%s needs change (the object, its merge patch and the fields it sets)", s.Action)
		return
	}
	o := ch.Object
	if o.APIVersion == "" || o.Kind == "" || o.Name == "" {
		at("change.object needs apiVersion, kind and name")
	}
	if len(ch.Fields) == 0 {
		at("the change of %s %s lists no fields: its pre-image could not be journaled nor restored", o.Kind, o.Name)
	}
	for _, f := range ch.Fields {
		if len(f) == 0 || slices.Contains(f, "") {
			at("change field %q has an empty segment", f)
			continue
		}
		for _, bad := range forbiddenPatchPaths {
			if covers(bad, f) || covers(f, bad) {
				at("change field %s is not a field a remedy may set", strings.Join(f, "."))
			}
		}
	}
	leaves, err := PatchLeaves(ch.Patch)
	if err != nil {
		at("%v", err)
		return
	}
	for _, p := range leaves {
		if !slices.ContainsFunc(ch.Fields, func(f []string) bool { return covers(f, p) }) {
			at("the patch sets %s, which is not among the change's fields (its pre-image would not be journaled)", strings.Join(p, "."))
		}
	}
}

// validateChangeFields checks that a step's Change sets only the fields its
// action allows (ActionSpec.Fields); a revert's are those of the step it
// reverts, whose action's rule holds them.
func validateChangeFields(p *Plan, i int, at problemFunc) {
	s := &p.Steps[i]
	if s.Change == nil {
		return
	}
	spec := s.Spec()
	if spec.Undoes {
		j := p.stepIndex(s.Reverts)
		if j < 0 {
			return // the revert's own validation says so
		}
		spec = p.Steps[j].Spec()
	}
	if len(spec.Fields) == 0 {
		at("%s takes no change (object, patch and fields)", spec.Action)
		return
	}
	for _, f := range s.Change.Fields {
		if !spec.AllowsField(f) {
			at("change field %s is not one %s sets (%s)", strings.Join(f, "."), spec.Action, fieldPatterns(spec.Fields))
		}
	}
}

// fieldPatterns spells allowed fields for a message: "spec.minAvailable or spec.maxUnavailable".
func fieldPatterns(fs [][]string) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = strings.Join(f, ".")
	}
	return strings.Join(out, " or ")
}

// covers reports whether field is path or a prefix of it.
func covers(field, path []string) bool {
	return len(field) > 0 && len(field) <= len(path) && slices.Equal(field, path[:len(field)])
}

// patchLeaves returns the paths a JSON merge patch sets (a key whose value is
// not a non-empty object is a leaf), sorted.
func PatchLeaves(patch json.RawMessage) ([][]string, error) {
	var p any
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, fmt.Errorf("the change's patch is not a JSON merge patch object: %v", err)
	}
	if _, ok := p.(map[string]any); !ok {
		return nil, fmt.Errorf("the change's patch is not a JSON merge patch object: not an object")
	}
	var out [][]string
	var walk func(prefix []string, v any)
	walk = func(prefix []string, v any) {
		if obj, ok := v.(map[string]any); ok && (len(obj) > 0 || prefix == nil) {
			for k, sub := range obj {
				walk(append(slices.Clone(prefix), k), sub)
			}
			return
		}
		out = append(out, prefix)
	}
	walk(nil, p)
	slices.SortFunc(out, func(a, b []string) int { return slices.Compare(a, b) })
	return out, nil
}

// validateManifest checks an apply or delete step's embedded manifest: its
// digest, its identity, and the delete annotation that makes it an apply or a
// delete. Text such as {{ $labels.instance }} is data: the CVO renders only its
// own manifests/ directory and applies every object as it is (issue 24).
func validateManifest(s *Step, at problemFunc) {
	m := s.Manifest
	if m == nil {
		at("%s needs manifest", s.Action)
		return
	}
	digest, err := ManifestDigest(m.Object)
	if err != nil {
		at("manifest %s: %v", m.File, err)
		return
	}
	if m.Digest != digest {
		at("manifest %s[%d] %s/%s: digest %s does not match its object (%s): the plan was edited after it was made; make a new plan", m.File, m.Index, m.Kind, m.Name, m.Digest, digest)
		return
	}
	var obj struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name        string            `json:"name"`
			Namespace   string            `json:"namespace"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(m.Object, &obj); err != nil {
		at("manifest %s: %v", m.File, err)
		return
	}
	if obj.APIVersion != m.APIVersion || obj.Kind != m.Kind || obj.Metadata.Name != m.Name || obj.Metadata.Namespace != m.Namespace {
		at("manifest %s[%d]: object is %s %s %s/%s but the plan says %s %s %s/%s", m.File, m.Index,
			obj.APIVersion, obj.Kind, obj.Metadata.Namespace, obj.Metadata.Name, m.APIVersion, m.Kind, m.Namespace, m.Name)
		return
	}
	if err := DeleteAnnotationProblem(s.Spec().Deletes, obj.Metadata.Annotations); err != nil {
		at("manifest %s (%s %s): %v", m.File, m.Kind, m.Name, err)
	}
}

// ValidateGate checks, without the cluster, that a gate is of a known kind and
// carries every field its kind needs, and that its timeout, when set, is a
// positive duration: the one rule for every gate kind.
func ValidateGate(g *Gate) error {
	object := func(what string) error {
		if g.Object == nil || g.Object.Name == "" || g.Object.Kind == "" || g.Object.APIVersion == "" {
			return fmt.Errorf("%s gate needs object with apiVersion, kind and name (%s)", g.Kind, what)
		}
		return nil
	}
	var err error
	switch g.Kind {
	case GateClusterOperator:
		if g.ClusterOperator == "" || len(g.Versions) == 0 {
			err = fmt.Errorf("cluster-operator gate needs clusterOperator and versions")
		}
		for _, v := range g.Versions {
			if v.Name == "" || v.Version == "" {
				err = fmt.Errorf("cluster-operator gate: a version entry needs name and version")
			}
		}
	case GateCRDEstablished:
		if g.Object == nil || g.Object.Name == "" {
			err = fmt.Errorf("crd-established gate needs object.name")
		}
	case GateWorkloadRollout, GateDeleted:
		err = object("the object it waits for")
	case GateStaticPods:
		if sp := g.StaticPods; sp == nil || sp.Resource == "" || sp.Namespace == "" || sp.PodPrefix == "" {
			err = fmt.Errorf("static-pods gate needs staticPods.resource, namespace and podPrefix")
		} else if sp.MinRevision < 0 {
			err = fmt.Errorf("static-pods gate: minRevision %d is negative", sp.MinRevision)
		}
	case GatePoolUpdated:
		if g.Pool == "" {
			err = fmt.Errorf("pool-updated gate needs pool")
		}
	case GateCVOScaledDown, GateCVORunning:
	case GateNodesSettled, GateNodesReady:
		if len(g.Nodes) == 0 {
			err = fmt.Errorf("%s gate needs nodes", g.Kind)
		}
	case GateCSRIssued:
		if g.Object == nil || g.Object.Name == "" {
			err = fmt.Errorf("csr-issued gate needs object.name (the CertificateSigningRequest)")
		}
	case GateRestored:
		// Without an object it watches the object the reverted step changed.
		if g.Object != nil {
			err = object("the object the revert restores")
		}
	case GateReleaseAccepted:
		if !DigestImageRE.MatchString(g.Image) {
			err = fmt.Errorf("release-accepted gate needs image, the release by digest (…@sha256:<64 hex>), got %q", g.Image)
		}
	case GateConditionCleared:
		switch {
		case g.Object == nil || g.Object.Name == "" || g.Condition == "":
			err = fmt.Errorf("%s gate needs object (a ClusterVersion or ClusterOperator) and condition", g.Kind)
		case g.Object.Kind != "ClusterVersion" && g.Object.Kind != "ClusterOperator":
			err = fmt.Errorf("%s gate: object kind %q is neither ClusterVersion nor ClusterOperator", g.Kind, g.Object.Kind)
		}
	default:
		err = fmt.Errorf("unknown gate kind %q", g.Kind)
	}
	if err == nil && g.Timeout != "" {
		if d, perr := time.ParseDuration(g.Timeout); perr != nil || d <= 0 {
			err = fmt.Errorf("gate timeout %q is not a positive Go duration", g.Timeout)
		}
	}
	return err
}
