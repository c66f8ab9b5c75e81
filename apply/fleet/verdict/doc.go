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
// there, so a template cannot ask for a field the verdict does not write.
//
// Signature groups clusters that are wedged the same way: the same causes (code
// and subject, with per-node subjects folded) and the same answer. Group turns
// many verdicts into a FleetReport (recover fleet), written as a table, JSON or
// Markdown.
//
// Store keeps a verdict in a cluster (a ConfigMap in one namespace), created or
// updated, and the plan its remedies come from beside it (SavePlan, create-only).
package verdict
