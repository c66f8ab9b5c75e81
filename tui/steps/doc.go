// Package steps is the Plan screen: the plan's steps with their run level,
// component (or remedy), action and gate, each marked with its status in the
// session's run, and for the selected step a scrollable pane with its reason,
// its gate, its diff against the live object (d: a server-side dry run through
// the engine) and its manifest.
//
// A remediation step shows its remedy and the finding it answers, its object
// and UID, exactly the fields its Change sets (before -> patch), a CSR
// approval's requestor, CN, node and who vouches for it; a temporary change is
// marked with the step that restores it (→007) and the revert with the step it
// undoes (←005), and p jumps between the two.
package steps
