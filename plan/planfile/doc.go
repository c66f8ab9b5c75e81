// Package planfile is the plan document, Terraform's planfile: what `recover
// plan` writes and `recover apply --plan` executes as it is. The planner
// (package plan) makes one; the engine (apply and its journal, gates and
// resource applier), the renderers (plan/render), the ConfigMap codec
// (plan/planconfigmap) and the TUI read one, and import this package, not the
// planner.
//
// It holds:
//   - the document's types (document.go): Plan, Step, Gate, Change, Manifest,
//     Stage, Candidate, Target, Remediation, the outcome (outcome_doc.go), and
//     the remedies' refusal with its report (refusal.go);
//   - the action registry's document half (action.go, action_<name>.go): per
//     action what a reader of a plan needs — the fields a Change may set, the
//     one object it acts on, its step-ID words, its roles (WaitOnly, Undoes,
//     Deletes, StopsCVO...), Temporary/RevertedWith/SettledBy, ImpliedGate,
//     the --accept name, its note and its hand command; one name for an
//     object (ObjectRef.String);
//   - the file I/O and its checks (planfile.go, validate.go, digest.go,
//     compactjson.go): Encode/Parse/Load/Save, Validate, Digest,
//     ManifestDigest;
//   - the one run order (stage_steps.go): RunOrder, StageSteps, StageOf.
//
// The checker (plan.Check: the invariants over a model of the cluster) stays
// with the planner. It verifies a plan against the snapshot it was made from,
// which only the planner holds; apply never called it. What apply verifies of
// a document it loads is Validate, which is here: the fields each action needs,
// the patch fields its spec allows, gates, the CVO bracket, stages. The
// checker's model of each action's effect is the planner's half of the action
// (plan/check_actions.go).
//
// This package imports no planner (plan), no engine (apply) and no TUI; the
// layering test (internal/testing/layering) holds apply, apply/journal,
// apply/gate, apply/resource and tui/... to importing it rather than plan.
package planfile
