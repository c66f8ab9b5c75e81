// Package stagedplan is the hand-built staged plan (formatVersion 1.4) the
// tests of the stage view (tui/stages) and of the staged fleet wave
// (apply/fleet/export) share: the shape plan.MakeStaged writes, without a
// cluster or a graph to plan it from.
package stagedplan
