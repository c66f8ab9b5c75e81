// Package tuitest holds what the tests of the tui packages share: key presses as
// bubbletea delivers them, a screen's intents for a row of presses, the check
// of what a view shows, and the Common a screen renders with in a pure test.
// Only tests import it (TestOnlyTestsImportIt checks): product code never
// depends on test machinery.
package tuitest
