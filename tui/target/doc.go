// Package target is the Target screen: the release the plan chose and why, how far
// the cluster moves, the risks it accepted, and every alternative the planner
// rejected or demoted with the rule and the reason. A demoted alternative that
// only needs a named conditional-update risk can be accepted (a, then an explicit
// y in a dialog that names the risk); the session then re-plans through the
// planner with that risk accepted.
//
// A remediation plan (no new release) shows why none is needed, the
// remediations (remedy, finding, subject, steps, what they do) and the remedies
// the plan refuses, each with why and, for an admin's promise, the --accept name
// that allows it; a accepts such a promise the same way as a risk. When the
// planner refused to plan at all (plan.RemedyRefusedError: what holds the
// cluster has only refused remedies), the screen shows the error and the
// refusals.
package target
