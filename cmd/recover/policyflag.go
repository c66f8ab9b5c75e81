package main

import (
	"github.com/spf13/cobra"

	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/policy"
)

// policyFlag is --policy: a TransitionPolicy file that replaces the built-in
// policy when a plan is computed (recover plan, recover tui).
type policyFlag struct {
	path   string
	policy *policy.Policy
	raw    []byte
}

// addPolicyFlag registers --policy on cmd.
func addPolicyFlag(cmd *cobra.Command) *policyFlag {
	f := &policyFlag{}
	cmd.Flags().StringVar(&f.path, "policy", "", "Transition policy file (YAML, kind TransitionPolicy; see docs/policy.md). Default: the built-in policy.")
	_ = cmd.MarkFlagFilename("policy", "yaml", "yml")
	return f
}

// load reads and checks the policy file, if one was given.
func (f *policyFlag) load() error {
	if f.path == "" {
		return nil
	}
	p, raw, err := policy.Load(f.path)
	if err != nil {
		return err
	}
	f.policy, f.raw = p, raw
	return nil
}

// setOn makes in use the loaded policy and record where it came from.
func (f *policyFlag) setOn(in *plan.Options) {
	if f.policy == nil {
		return
	}
	in.Policy, in.PolicySource, in.PolicyDigest = f.policy, f.path, policy.Digest(f.raw)
}
