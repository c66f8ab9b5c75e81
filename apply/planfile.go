package apply

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/openshift-recover/recover/apply/gate"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/internal/bounded"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan"
)

// maxPlanBytes is the largest plan LoadPlan reads. A plan carries every
// manifest it applies, tens of MiB for a whole release.
const maxPlanBytes = 256 << 20

// LoadPlan reads a plan document and returns it with the sha256 digest of the file
// ("sha256:<hex>"), which the journal records so a resume executes the same plan.
// Errors classify as bad input.
func LoadPlan(path string) (*plan.Plan, string, error) {
	data, err := bounded.ReadFile(path, maxPlanBytes)
	if err != nil {
		return nil, "", &Error{Outcome: OutcomeBadInput, Err: fmt.Errorf("reading plan: %w", err)}
	}
	return ParsePlan(data, path)
}

// MaxPlanBytes is the largest plan LoadPlan and ParsePlan accept.
const MaxPlanBytes = maxPlanBytes

// ParsePlan reads a plan document's bytes (path names where they came from: a
// file, a ConfigMap) and returns it with their digest, as LoadPlan does for a
// file: the same bytes have the same digest wherever they are kept.
func ParsePlan(data []byte, path string) (*plan.Plan, string, error) {
	if len(data) > maxPlanBytes {
		return nil, "", fail(OutcomeBadInput, "plan %s is larger than %d bytes", path, maxPlanBytes)
	}
	sum := sha256.Sum256(data)
	var p plan.Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, "", fail(OutcomeBadInput, "plan %s is not a plan document: %v; make one with 'recover plan -o json'", path, err)
	}
	if err := ValidatePlan(&p); err != nil {
		return nil, "", &Error{Outcome: OutcomeBadInput, Err: fmt.Errorf("plan %s: %w", path, err)}
	}
	return &p, "sha256:" + hex.EncodeToString(sum[:]), nil
}

// SavePlan writes p to path as LoadPlan reads it (indented JSON, byte for byte
// what recover plan -o json prints), refusing an invalid plan and an existing
// file, syncs it to disk, and loads it back through LoadPlan for the digest the
// journal records. A plan that could not be written whole is removed, so no
// half-written plan is left for apply to find.
func SavePlan(path string, p *plan.Plan) (digest string, err error) {
	if err := ValidatePlan(p); err != nil {
		return "", &Error{Outcome: OutcomeBadInput, Err: fmt.Errorf("not saving the plan: %w", err)}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(p); err != nil {
		return "", fmt.Errorf("encoding plan: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("saving plan: %w", err)
	}
	_, err = f.Write(buf.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("saving plan %s: %w", path, err)
	}
	_, digest, err = LoadPlan(path)
	return digest, err
}

var digestImage = regexp.MustCompile(`@sha256:[0-9a-f]{64}$`)

// mutating actions need the CVO disabled.
var mutating = map[plan.Action]bool{
	plan.ActionApply: true, plan.ActionDelete: true, plan.ActionPausePool: true,
	plan.ActionUnpausePool: true, plan.ActionSetDesiredUpdate: true,
	plan.ActionRelaxPDB: true, plan.ActionRevert: true, plan.ActionApproveCSR: true,
	plan.ActionForceRedeployment: true, plan.ActionAcknowledgeGate: true,
	plan.ActionRemoveOverrides: true, plan.ActionAnnotateUpgradeableTo: true,
}

// ValidatePlan checks a plan document before anything runs: its identity and
// format version, unique step IDs, the fields each action needs, manifest digests,
// gates, a desired update by digest (force only with a reason), and that every step
// that changes the cluster runs between disable-cvo and restore-cvo. For the
// remediation steps (defense in depth against hand-edited plans, whose digests
// cover only manifests): a Change names its object, its fields, and a patch
// that sets nothing else; a relax-pdb never targets a guard PDB; every temporary
// change has its revert step after it, and every revert reverts a change of the
// plan; an approve-csr names the request as the plan saw it.
func ValidatePlan(p *plan.Plan) error {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if p.APIVersion != plan.APIVersion || p.Kind != plan.Kind {
		return fmt.Errorf("not a recover plan (apiVersion %q, kind %q; want %s %s)", p.APIVersion, p.Kind, plan.APIVersion, plan.Kind)
	}
	major, _, _ := strings.Cut(p.FormatVersion, ".")
	if want, _, _ := strings.Cut(plan.FormatVersion, "."); major != want {
		return fmt.Errorf("plan format version %q is not supported (this recover reads %s.x)", p.FormatVersion, want)
	}
	if len(p.Steps) == 0 {
		return fmt.Errorf("the plan has no steps")
	}
	seen := map[string]bool{}
	disable, restore, firstMut, lastMut := -1, -1, -1, -1
	for i := range p.Steps {
		s := &p.Steps[i]
		where := fmt.Sprintf("step %d (%s)", i+1, s.ID)
		if s.ID == "" {
			add("step %d has no id", i+1)
		} else if seen[s.ID] {
			add("%s: duplicate step id", where)
		}
		seen[s.ID] = true
		if mutating[s.Action] {
			if firstMut < 0 {
				firstMut = i
			}
			lastMut = i
		}
		switch s.Action {
		case plan.ActionDisableCVO:
			if disable >= 0 {
				add("%s: a second disable-cvo step", where)
			}
			disable = i
		case plan.ActionRestoreCVO:
			if restore >= 0 {
				add("%s: a second restore-cvo step", where)
			}
			restore = i
		case plan.ActionApply, plan.ActionDelete:
			obj, err := resource.Decode(s.Manifest)
			if err != nil {
				add("%s: %v", where, err)
				break
			}
			del := openshift.DeleteAnnotated(obj.GetAnnotations())
			if s.Action == plan.ActionApply && del {
				add("%s: manifest %s is annotated %s=true; it must be a delete step", where, s.Manifest.File, openshift.AnnotationDelete)
			}
			if s.Action == plan.ActionDelete && !del {
				add("%s: delete step for %s %s, which is not annotated %s=true; the CVO only deletes annotated manifests", where, s.Manifest.Kind, s.Manifest.Name, openshift.AnnotationDelete)
			}
		case plan.ActionPausePool, plan.ActionUnpausePool:
			if s.Pool == "" && s.Change == nil {
				add("%s: %s needs pool", where, s.Action)
			}
			if s.Change != nil {
				validateChange(s, where, add)
			}
		case plan.ActionRelaxPDB, plan.ActionForceRedeployment, plan.ActionAcknowledgeGate, plan.ActionRemoveOverrides, plan.ActionAnnotateUpgradeableTo, plan.ActionRevert, plan.ActionApproveCSR:
			validateRemediation(p, i, where, add)
		case plan.ActionSetDesiredUpdate:
			du := s.DesiredUpdate
			switch {
			case du == nil:
				add("%s: set-desired-update needs desiredUpdate", where)
			case du.Version == "" || !digestImage.MatchString(du.Image):
				add("%s: desiredUpdate needs a version and an image by digest (…@sha256:<64 hex>), got %q", where, du.Image)
			case du.Force && (!p.Target.Force || p.Target.ForceReason == ""):
				add("%s: desiredUpdate sets force but the plan's target gives no forceReason", where)
			}
		case plan.ActionWait:
			if s.Gate == nil {
				add("%s: a wait step needs a gate", where)
			}
		default:
			add("%s: unknown action %q", where, s.Action)
		}
		if s.RevertedBy != "" && s.Change == nil {
			add("%s: revertedBy %s on a step that changes no object (only a change can be reverted)", where, s.RevertedBy)
		}
		if s.Gate != nil {
			if _, ok := gate.DefaultTimeouts[s.Gate.Kind]; !ok {
				add("%s: unknown gate kind %q", where, s.Gate.Kind)
			} else if err := gate.Validate(s.Gate); err != nil {
				add("%s: %v", where, err)
			}
			if s.Gate.Kind == plan.GateRestored && s.Action != plan.ActionRevert {
				add("%s: a restored gate belongs on a revert step (it compares the object with the pre-image of the step reverted)", where)
			}
			if s.Gate.Timeout != "" {
				if d, err := time.ParseDuration(s.Gate.Timeout); err != nil || d <= 0 {
					add("%s: gate timeout %q is not a positive Go duration", where, s.Gate.Timeout)
				}
			}
		}
	}
	if firstMut >= 0 {
		if disable < 0 || disable > firstMut {
			add("step %s changes the cluster before a disable-cvo step: the CVO would fight the change", p.Steps[firstMut].ID)
		}
		if restore < 0 || restore < lastMut {
			add("no restore-cvo step after the last change (%s): the plan would leave the CVO disabled", p.Steps[lastMut].ID)
		}
	}
	if restore >= 0 && disable >= 0 && restore < disable {
		add("restore-cvo (%s) comes before disable-cvo (%s)", p.Steps[restore].ID, p.Steps[disable].ID)
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid plan: %s", strings.Join(problems, "; "))
	}
	return nil
}

// stepObject names a step's object for events.
func stepObject(s *plan.Step) string {
	switch {
	case s.Manifest != nil:
		if s.Manifest.Namespace != "" {
			return s.Manifest.Kind + " " + s.Manifest.Namespace + "/" + s.Manifest.Name
		}
		return s.Manifest.Kind + " " + s.Manifest.Name
	case s.Change != nil:
		return changeRef(s.Change.Object).Describe()
	case s.CSR != nil:
		return "CertificateSigningRequest " + s.CSR.Name
	case s.Pool != "":
		return "MachineConfigPool " + s.Pool
	case s.Action == plan.ActionDisableCVO || s.Action == plan.ActionRestoreCVO:
		return "Deployment " + openshift.CVONamespace + "/" + openshift.CVODeployment
	case s.Action == plan.ActionSetDesiredUpdate:
		return "ClusterVersion version"
	case s.Gate != nil:
		return gate.Subject(s.Gate)
	}
	return ""
}
