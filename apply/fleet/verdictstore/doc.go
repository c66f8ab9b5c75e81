// Package verdictstore keeps a cluster's verdict, and the wave's plan beside
// it, in the cluster: the ConfigMap edge of apply/fleet/verdict, whose codec
// (ToConfigMap, FromConfigMap, PlanConfigMaps) and record rule (Merge) are
// pure. Store.Save writes the verdict, created or updated (the namespace is
// created when missing); Store.Load reads it; Store.SavePlan writes the plan's
// ConfigMaps create-only (an apply run may have started on a stored plan),
// the parts before the head. Verbs are what it needs on the ConfigMaps of its
// namespace (apply/incluster.VerdictAccess grants them to a fleet Job).
//
// Callers: recover inspect --verdict (--save-plan), recover apply --verdict
// (through apply/printer.Verdict, which only needs Load and Save), and the
// fleet's tests on the real API server.
//
// The name says what it is at the call site: verdictstore.Store, beside
// verdict.Verdict; it is a package of its own so that client-go stays out of
// the verdict.
package verdictstore
