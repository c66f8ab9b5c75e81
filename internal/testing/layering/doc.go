// Package layering holds only a test: it keeps the one-way data flow of the design
// visible in the imports (Source -> Snapshot -> Planner -> Plan -> Engine -> TUI).
package layering
