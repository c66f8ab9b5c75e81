package verdict

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Options tune Judge.
type Options struct {
	// Accept are the --accept names the remedies may use (plan.ValidateAccept).
	Accept []string
	// Wave names the fleet run (Verdict.Wave).
	Wave string
	// Now is the clock of the plan (default time.Now); Generator names the
	// program that makes it.
	Now       func() time.Time
	Generator string
}

// Judge answers for one snapshot: its blocking wedges and what the planner
// would do about them without an update graph (plan.Make in remediation-only
// mode, plan.TargetNeeded first). It returns the plan when there is one, with
// the digest of its document (plan.Encode, plan.Digest) in the verdict.
func Judge(ctx context.Context, s *inspect.Snapshot, o Options) (*Verdict, *planfile.Plan, error) {
	if s == nil {
		return nil, nil, errors.New("verdict: no snapshot")
	}
	if err := plan.ValidateAccept(o.Accept); err != nil {
		return nil, nil, err
	}
	v := &Verdict{FormatVersion: FormatVersion, Wave: o.Wave, Source: sourceOf(s), InspectedAt: s.Source.CollectedAt.UTC()}
	for _, w := range s.Wedges {
		if w.Class != inspect.ClassBlocks {
			continue
		}
		subject := ""
		if len(w.Subjects) > 0 {
			subject = w.Subjects[0]
		}
		v.Causes = append(v.Causes, Cause{Rank: len(v.Causes) + 1, Code: w.Code, Subject: subject, Summary: w.Summary})
	}
	v.Wedged = len(v.Causes) > 0
	p, err := v.answer(ctx, s, o)
	if err != nil {
		return nil, nil, err
	}
	v.Settled = !v.Wedged
	v.Signature = Signature(v)
	return v, p, nil
}

// answer fills v.Remedy from the one decision (plan.Decide) and, when it
// makes a plan without a release, the planner's plan for it.
func (v *Verdict) answer(ctx context.Context, s *inspect.Snapshot, o Options) (*planfile.Plan, error) {
	r := &v.Remedy
	d := plan.Decide(s, plan.DecideInput{Accept: o.Accept})
	r.Outcome, r.Rule, r.Reason = d.Outcome.Kind, d.Outcome.Rule, d.Outcome.Why
	switch d.Outcome.Kind {
	case planfile.OutcomeNothing:
		r.Answer = AnswerNone
		return nil, nil
	case planfile.OutcomeAdvice:
		r.Answer = AnswerAdvice
		return nil, nil
	case planfile.OutcomeDriveCVO, planfile.OutcomeReplaceCVO:
		r.Answer, r.Reason = AnswerNewRelease, d.Outcome.Why+" Plan it with an update graph (recover plan --graph)."
		return nil, nil
	}
	p, err := plan.Make(ctx, plan.Options{Snapshot: s, Accept: o.Accept, Now: o.Now, Generator: o.Generator, Decision: d})
	var refused *planfile.RemedyRefusedError
	switch {
	case err == nil:
		r.Answer = AnswerPlan
		for _, rem := range p.Remediations {
			r.Remedies = appendOnce(r.Remedies, rem.Remedy)
			if rem.Accepted != "" {
				r.Accepted = appendOnce(r.Accepted, rem.Accepted)
			}
		}
		var doc bytes.Buffer
		if err := planfile.Encode(&doc, p); err != nil {
			return nil, fmt.Errorf("encoding the plan: %w", err)
		}
		r.PlanDigest = planfile.Digest(doc.Bytes())
		if !v.Wedged {
			// The planner remedies what inspect ranks as context only (a
			// pending CSR of a node that is not needed yet): worth doing,
			// nothing to wait for.
			r.Reason += " (Nothing holds the update.)"
		}
		return p, nil
	case errors.As(err, &refused):
		r.Answer = AnswerNeedsAccept
		if refused.Unsafe() {
			r.Answer = AnswerRefused
		}
		for _, rf := range refused.Refused {
			r.Remedies = appendOnce(r.Remedies, rf.Remedy)
		}
		r.Accept = refused.Accept()
		r.Reason = refused.Error()
		return nil, nil
	}
	return nil, fmt.Errorf("planning the remedies: %w", err)
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// sourceOf names the snapshot's source as "<kind>:<location>".
func sourceOf(s *inspect.Snapshot) string {
	if s.Source.Location == "" {
		return string(s.Source.Kind)
	}
	return string(s.Source.Kind) + ":" + s.Source.Location
}
