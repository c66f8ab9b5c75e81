package main

import (
	"context"
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/inspect/live"
)

// liveFingerprint returns the function apply's staleness check calls: it collects
// a live snapshot with inspect's live source and returns its Fingerprint, the same
// digest the planner recorded in the plan.
func liveFingerprint(cfg *rest.Config) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		src, err := live.New(cfg, live.Options{})
		if err != nil {
			return "", err
		}
		snap, err := src.Collect(ctx)
		if err != nil {
			return "", fmt.Errorf("collecting a live snapshot: %w", err)
		}
		return snap.Fingerprint(), nil
	}
}
