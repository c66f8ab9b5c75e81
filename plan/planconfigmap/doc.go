// Package planconfigmap is the one codec of a plan kept in ConfigMaps: how a
// plan document's bytes (plan.Encode's, or a plan file's) become ConfigMaps
// (Encode), how the ConfigMap that says why there is no plan looks (NoPlan),
// and how the bytes are assembled and verified again (Assemble).
//
// A plan embeds every manifest it applies (a 4.4 update plan: 539 steps, 3.9 MB
// of JSON, 0.65 MB gzip'd), more than the 1 MiB of data the API server lets a
// ConfigMap hold, so it is kept gzip'd under GzipKey and split into parts of at
// most PartBytes: NAME holds part 0 and the annotations (the plan's digest and
// how many parts there are), NAME-part-1 ... the others (each with the digest
// and its index). A plan may also be kept as is under Key (oc create configmap
// NAME --from-file=plan.json). Either way the assembled bytes are the plan
// document's bytes, so its digest (plan.Digest) is the document's.
//
// recover inspect --verdict --save-plan (apply/fleet/verdictstore.Store.SavePlan) and
// recover apply --print-plan-configmap write with Encode; recover apply
// --in-cluster (apply/incluster.LoadPlan) reads with Assemble. The client I/O
// is theirs: this package reads and writes no cluster.
package planconfigmap
