package verdict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/plan/planconfigmap"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The verdict ConfigMap's defaults and its whole-document key.
const (
	// DefaultNamespace and DefaultName are where recover keeps a cluster's
	// verdict unless told otherwise (recover inspect --verdict-namespace,
	// --verdict-name).
	DefaultNamespace = "recover"
	DefaultName      = "recover-verdict"
	// DocumentKey holds the whole Verdict as JSON; the flat Fields sit beside it.
	DocumentKey = "verdict.json"
	// FlatCauses is how many causes get flat fields (cause1Code ...): a hub
	// sees the first ones by JSONPath and the rest in DocumentKey.
	FlatCauses = 3
)

// Field is one flat string of the verdict ConfigMap: its data key, which is
// also the name a ManifestWork feedback rule gives it.
type Field struct {
	Name string
	// Help says what the value is, for docs and templates.
	Help  string
	value func(v *Verdict) string
}

// Path is the JSONPath the ACM work agent evaluates for the field: a simple
// path into the ConfigMap's data, whose value is a string (the agent returns
// only scalar values unless its RawFeedbackJsonString gate is on).
func (f Field) Path() string { return ".data." + f.Name }

// The flat fields a hub reads, each defined once.
var (
	FieldFormatVersion = Field{"formatVersion", "the verdict's format version", func(v *Verdict) string { return v.FormatVersion }}
	FieldWave          = Field{"wave", "the fleet run that wrote the verdict; a fresh verdict carries the current wave", func(v *Verdict) string { return v.Wave }}
	FieldWedged        = Field{"wedged", `"true" when something holds the update back`, func(v *Verdict) string { return strconv.FormatBool(v.Wedged) }}
	FieldCauses        = Field{"causes", "how many causes hold the update", func(v *Verdict) string { return strconv.Itoa(len(v.Causes)) }}
	FieldAnswer        = Field{"answer", "what recover would do: none, plan, needs-accept, refused, new-release or advice", func(v *Verdict) string { return string(v.Remedy.Answer) }}
	FieldOutcome       = Field{"outcome", "the decision (plan.Decide): nothing, advice, remediation, drive-cvo, replace-cvo or refused", func(v *Verdict) string { return string(v.Remedy.Outcome) }}
	FieldRemedies      = Field{"remedies", "the remedies, comma-separated (relax-pdb, approve-csr, ...)", func(v *Verdict) string { return strings.Join(v.Remedy.Remedies, ",") }}
	FieldAcceptNeeded  = Field{"acceptNeeded", `"true" when the remedies wait for --accept names`, func(v *Verdict) string { return strconv.FormatBool(v.Remedy.NeedsAccept()) }}
	FieldAccept        = Field{"accept", "the --accept names the remedies wait for, comma-separated", func(v *Verdict) string { return strings.Join(v.Remedy.Accept, ",") }}
	FieldPlanDigest    = Field{"planDigest", "the sha256 of the plan recover made for the remedies", func(v *Verdict) string { return v.Remedy.PlanDigest }}
	FieldSignature     = Field{"signature", "the wedge signature: clusters wedged the same way share it", func(v *Verdict) string { return v.Signature }}
	FieldSettled       = Field{"settled", `"true" when recover has nothing left to do: nothing was wedged, or the apply run completed`, func(v *Verdict) string { return strconv.FormatBool(v.Settled) }}
	FieldApplyPhase    = Field{"applyPhase", "the apply run's phase: preflight, running, reverting or done", func(v *Verdict) string { return applyValue(v, func(a *ApplyState) string { return string(a.Phase) }) }}
	FieldApplyStep     = Field{"applyStep", "the step the apply run is at, or ended at", func(v *Verdict) string { return applyValue(v, func(a *ApplyState) string { return a.Step }) }}
	FieldApplyResult   = Field{"applyResult", "the apply run's outcome once done (completed, gate-failed, ..., or no-plan when there was nothing to apply)", func(v *Verdict) string { return applyValue(v, func(a *ApplyState) string { return a.Result }) }}
	FieldCVODisabled   = Field{"cvoDisabled", `"true" when the apply run left the CVO scaled down`, func(v *Verdict) string {
		return applyValue(v, func(a *ApplyState) string { return strconv.FormatBool(a.CVODisabled) })
	}}
	FieldCVOReplicas = Field{"cvoReplicas", "the replicas that give the CVO control back, when a run left it disabled", func(v *Verdict) string {
		return applyValue(v, func(a *ApplyState) string {
			if !a.CVODisabled {
				return ""
			}
			return strconv.Itoa(int(a.CVOReplicas))
		})
	}}
	FieldHandBack = Field{"handBack", "the command that gives the CVO control back, when a run left it disabled", func(v *Verdict) string { return applyValue(v, func(a *ApplyState) string { return a.HandBack }) }}
)

// causeField is the flat field of the i-th cause's code or subject (i from 1).
func causeField(i int, subject bool) Field {
	if subject {
		return Field{fmt.Sprintf("cause%dSubject", i), fmt.Sprintf("the subject of cause %d", i), func(v *Verdict) string {
			if len(v.Causes) < i {
				return ""
			}
			return v.Causes[i-1].Subject
		}}
	}
	return Field{fmt.Sprintf("cause%dCode", i), fmt.Sprintf("the finding code of cause %d (docs/findings.md)", i), func(v *Verdict) string {
		if len(v.Causes) < i {
			return ""
		}
		return v.Causes[i-1].Code
	}}
}

// CauseCode and CauseSubject are the flat fields of the i-th cause (1 to
// FlatCauses).
func CauseCode(i int) Field    { return causeField(i, false) }
func CauseSubject(i int) Field { return causeField(i, true) }

// Fields are every flat field, in the order the ConfigMap and the feedback
// rules list them.
func Fields() []Field {
	out := []Field{FieldFormatVersion, FieldWave, FieldWedged, FieldCauses}
	for i := 1; i <= FlatCauses; i++ {
		out = append(out, CauseCode(i), CauseSubject(i))
	}
	return append(out, FieldAnswer, FieldOutcome, FieldRemedies, FieldAcceptNeeded, FieldAccept, FieldPlanDigest, FieldSignature,
		FieldSettled, FieldApplyPhase, FieldApplyStep, FieldApplyResult, FieldCVODisabled, FieldCVOReplicas, FieldHandBack)
}

func applyValue(v *Verdict, f func(*ApplyState) string) string {
	if v.Apply == nil {
		return ""
	}
	return f(v.Apply)
}

// Value returns the field's value in v.
func (f Field) Value(v *Verdict) string { return f.value(v) }

// ToConfigMap is v as the ConfigMap namespace/name: the flat fields and the
// whole document.
func ToConfigMap(v *Verdict, namespace, name string) (*corev1.ConfigMap, error) {
	doc, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the verdict: %w", err)
	}
	data := map[string]string{DocumentKey: string(doc)}
	for _, f := range Fields() {
		data[f.Name] = f.Value(v)
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: Labels()},
		Data:       data,
	}, nil
}

// Labels mark recover's verdict ConfigMaps.
func Labels() map[string]string {
	return map[string]string{"app.kubernetes.io/name": "recover", "app.kubernetes.io/component": "verdict"}
}

// FromConfigMap reads the verdict a ConfigMap holds (its DocumentKey), refusing
// a major format version it does not know.
func FromConfigMap(cm *corev1.ConfigMap) (*Verdict, error) {
	doc, ok := cm.Data[DocumentKey]
	if !ok {
		return nil, fmt.Errorf("configmap %s/%s holds no verdict (no %s key)", cm.Namespace, cm.Name, DocumentKey)
	}
	return Parse([]byte(doc))
}

// Parse reads a verdict document, refusing a major format version it does not
// know.
func Parse(doc []byte) (*Verdict, error) {
	var v Verdict
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, fmt.Errorf("the verdict is not a verdict document: %w", err)
	}
	major, _, _ := strings.Cut(v.FormatVersion, ".")
	if want, _, _ := strings.Cut(FormatVersion, "."); major != want {
		return nil, fmt.Errorf("verdict format version %q is not supported (this recover reads %s.x)", v.FormatVersion, want)
	}
	return &v, nil
}

// PlanConfigMapName is the plan ConfigMap of a wave: one per wave, so a new
// wave never runs a plan an earlier one made for a cluster that has changed
// since.
func PlanConfigMapName(wave string) string {
	if wave == "" {
		return "recover-plan"
	}
	return "recover-plan-" + wave
}

// WaveLabel marks what a fleet wave leaves on a cluster with the wave's name.
const WaveLabel = "recover.openshift.io/wave"

// PlanConfigMaps are the wave's plan ConfigMaps (PlanConfigMapName) in
// namespace: the plan p as plan/planconfigmap encodes it (gzip'd and split
// when large; the head first, then its parts), or, when p is nil, the one
// ConfigMap that says why there is none (reason); labelled as recover's plan
// of the wave. apply/fleet/verdictstore writes them.
func PlanConfigMaps(namespace, wave string, p *planfile.Plan, reason string) ([]*corev1.ConfigMap, error) {
	name := PlanConfigMapName(wave)
	objs := []*corev1.ConfigMap{planconfigmap.NoPlan(namespace, name, reason)}
	if p != nil {
		var doc bytes.Buffer
		if err := planfile.Encode(&doc, p); err != nil {
			return nil, fmt.Errorf("encoding the plan: %w", err)
		}
		var err error
		if objs, err = planconfigmap.Encode(doc.Bytes(), namespace, name); err != nil {
			return nil, err
		}
	}
	for _, cm := range objs {
		cm.Labels["app.kubernetes.io/name"] = "recover"
		cm.Labels["app.kubernetes.io/component"] = "plan"
		if wave != "" {
			cm.Labels[WaveLabel] = wave
		}
	}
	return objs, nil
}
