// Package plan chooses the nearest safe next-hop release for a wedged cluster and
// orders that release's manifests into steps, each with the gate it waits for.
//
// The result is a Plan: a self-contained, versioned document (see document.go and
// docs/plan-format.md) that `recover apply --plan` executes as it is, and that
// renders as a Markdown runbook for change review.
//
// Inputs come from inspect (the Snapshot), plan/graph (the update graph) and
// plan/payload (the target release's manifests). This package imports neither
// apply nor tui.
package plan
