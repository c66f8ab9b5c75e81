// Package realdata locates the real public OpenShift data (../shared/realdata) for
// tests: from $RECOVER_REALDATA, else ../shared/realdata relative to the repository
// root. Tests that need it skip with a clear message when it is absent.
package realdata
