// Package golden compares test output with golden files under testdata/ and
// rewrites them when the test binary runs with -update. It owns the module's one
// -update flag: a test package uses Assert (or Update) instead of declaring its own,
// and a mismatch prints a diff and the command that refreshes the file. Only tests
// import it. A test package that imports teatest (tui/e2e) gets the -update flag of
// charmbracelet's golden package with it and must not import this one: the two
// flags would collide when the test binary starts.
package golden
