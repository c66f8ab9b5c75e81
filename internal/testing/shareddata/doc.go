// Package shareddata locates, for tests, the data kept beside the repository in
// ../shared: the real public OpenShift data (realdata: graphs, payloads, oc's
// cluster examples, Insights archives, the fleet engines' CRDs) and the CVO
// referee's verdicts. An environment variable names another place. Tests that
// need the data skip with a message saying what is missing and how to provide
// it; nothing is ever copied into the repository.
package shareddata
