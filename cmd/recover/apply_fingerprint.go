package main

import (
	"context"

	"k8s.io/client-go/rest"
)

// liveFingerprint returns the function apply's staleness check calls to
// fingerprint the live cluster (inspect's live source, Snapshot.Fingerprint), or
// nil while none is available, in which case apply refuses a plan unless
// --allow-stale.
func liveFingerprint(cfg *rest.Config) func(context.Context) (string, error) {
	return nil
}
