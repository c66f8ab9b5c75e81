// Package verdict is the answer a fleet hub can read about one cluster: is it
// wedged, what holds it (the ranked causes of inspect's wedge summary, each a
// finding code and subject), what recover would do about it (the planner's
// remediation-only answer: the remedies of a plan, or why there is none, and the
// --accept names a remedy waits for), and how an apply run of that plan is going
// (phase, step, result). It is versioned (FormatVersion, Terraform's rule).
//
// Judge builds a Verdict from a snapshot and the planner; apply's event stream
// updates its Apply part (apply/printer.Verdict, a consumer of the events). The
// document travels as a ConfigMap (ToConfigMap, FromConfigMap): the whole
// document as JSON under one key, and flat string fields beside it, one per
// question, because the ACM work agent's feedbackRules read single scalar values
// by JSONPath (.data.<field>) and TALM completes a step when named values equal
// expected strings. Fields lists those fields; the fleet emitters name them from
// there, so a template cannot ask for a field the verdict does not write. A
// wave's plan travels beside it (PlanConfigMaps, named by PlanConfigMapName),
// and Merge is the record a new verdict makes over a stored one (an apply run's
// state of the same wave outlives inspect run again).
//
// Signature groups clusters that are wedged the same way: the same causes (code
// and subject, with per-node subjects folded) and the same answer. Group turns
// many verdicts into a FleetReport (recover fleet), written as a table, JSON or
// Markdown.
//
// This package is pure: it builds and reads the ConfigMap objects (k8s.io/api
// types) but talks to no cluster, and imports no client-go (the import table
// of docs/architecture.md holds it to that). apply/fleet/verdictstore keeps a
// verdict and its plan in a cluster; apply/fleet/export writes the fleet
// engines' documents that read them; inspect/fleet collects the many
// snapshots recover fleet judges here.
//
// It lives in the fleet room under apply/ (apply/fleet) rather than in the plan
// tree because it is the fleet's record, not a planner's rule: it asks the
// planner (plan.Decide, plan.Make) and is updated by apply's events, and the
// room's other packages (the store, the export) import apply.
package verdict
