// Package layering holds only tests: they keep docs/architecture.md's import
// table true to the code (every package of the module in its most specific row,
// each row's imports exactly what its packages import, the rows without a
// cycle, product code never importing test machinery, the pure rows reaching
// no client-go even through what they import) and a doc.go in every
// package. The table is the one statement of the layering: the one-way data
// flow of the design (Source -> Snapshot -> Planner -> Plan -> Engine -> TUI).
package layering
