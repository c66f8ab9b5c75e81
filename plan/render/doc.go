// Package render writes a plan for people: Table is the terminal view of
// `recover plan` (target and why, the candidates with the rule that rejected or
// demoted each, the steps with their gates), Markdown the runbook for change
// review (what, why, the steps as a checklist with gates, the commands to run and
// to roll the CVO state back), and Candidates the table shown when no target
// qualifies. Output depends only on the plan document, so it is deterministic.
package render
