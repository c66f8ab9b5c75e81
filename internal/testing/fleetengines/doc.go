// Package fleetengines restates, for recover's tests, the two rules of the fleet
// engines that decide whether a hub sees a cluster's verdict and moves on:
//
//   - how the ACM/OCM work agent turns a feedbackRules JSONPath into a
//     statusFeedback value (open-cluster-management-io/ocm at 00f84c3,
//     pkg/work/spoke/statusfeedback/reader.go, getValueByJsonPath: client-go's
//     jsonpath over the live object with missing keys allowed, the first result
//     only, and only an int64, string or bool becomes a value unless the
//     RawFeedbackJsonString feature gate is on);
//   - when TALM counts a cluster's ManifestWork step complete
//     (openshift-kni/cluster-group-upgrades-operator at dacf199,
//     controllers/utils/manifestwork.go, IsManifestWorkCompleted and
//     getFieldValue: every openshift-cluster-group-upgrades/expectedValues entry's
//     named feedback value of the manifest with that ordinal, rendered as a
//     string, equals the expected value, and that manifest is applied, available
//     and its feedback synced).
//
// Their modules cannot be imported here, so the rules are written out from the
// sources named; nothing of the product imports this package.
package fleetengines
