// Package recoverbin builds the recover binary once per test binary, for the
// tests that run it as an admin would (a process killed with SIGKILL, the
// simulator's end-to-end commands), and removes it when the package's TestMain
// (kubetest.Main) returns. Only tests import it.
package recoverbin
