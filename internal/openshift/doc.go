// Package openshift holds the OpenShift facts recover's layers share: the names,
// namespaces, labels and annotations of the objects an update involves, each
// defined once with the source it was read from. inspect reads them, plan writes
// steps about them, apply's gates watch them; none of them spells one again.
//
// It is product code shared inside the module and imports nothing of recover's.
package openshift
