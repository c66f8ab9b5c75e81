package verdict

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan"
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
// the bytes it is stored as (PlanBytes) and their digest in the verdict.
func Judge(ctx context.Context, s *inspect.Snapshot, o Options) (*Verdict, *plan.Plan, error) {
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

// answer fills v.Remedy from the planner.
func (v *Verdict) answer(ctx context.Context, s *inspect.Snapshot, o Options) (*plan.Plan, error) {
	r := &v.Remedy
	var hard, retarget []string
	for _, n := range plan.TargetNeeded(s) {
		if n.Retarget {
			retarget = append(retarget, n.Reason)
		} else {
			hard = append(hard, n.Reason)
		}
	}
	if len(hard) > 0 {
		r.Answer, r.Reason = AnswerNewRelease, "a new release is needed: "+strings.Join(hard, "; ")+"; plan it with an update graph (recover plan --graph)"
		return nil, nil
	}
	p, err := plan.Make(ctx, plan.Options{Snapshot: s, Accept: o.Accept, Now: o.Now, Generator: o.Generator})
	var refused *plan.RemedyRefusedError
	var input *plan.InputError
	switch {
	case err == nil:
		r.Answer = AnswerPlan
		for _, rem := range p.Remediations {
			r.Remedies = appendOnce(r.Remedies, rem.Remedy)
			if rem.Accepted != "" {
				r.Accepted = appendOnce(r.Accepted, rem.Accepted)
			}
		}
		b, err := PlanBytes(p)
		if err != nil {
			return nil, err
		}
		r.PlanDigest = Digest(b)
		r.Reason = fmt.Sprintf("a remediation plan of %d steps: %s", len(p.Steps), strings.Join(r.Remedies, ", "))
		if !v.Wedged {
			// The planner remedies what inspect ranks as context only (a
			// pending CSR of a node that is not needed yet): worth doing,
			// nothing to wait for.
			r.Reason += " (nothing holds the update)"
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
	case errors.As(err, &input):
		switch {
		case len(retarget) > 0:
			r.Answer, r.Reason = AnswerNewRelease, "a retarget is the remedy: "+strings.Join(retarget, "; ")+"; plan it with an update graph (recover plan --graph)"
		case v.Wedged:
			r.Answer, r.Reason = AnswerAdvice, "recover has no remedy it changes in place for what holds the update; the findings say what the admin does"
		default:
			r.Answer, r.Reason = AnswerNone, "nothing holds the update"
		}
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

// PlanBytes is the plan document as recover plan -o json writes it and apply
// reads it (indented JSON and a newline), the bytes the plan ConfigMap holds.
func PlanBytes(p *plan.Plan) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(p); err != nil {
		return nil, fmt.Errorf("encoding the plan: %w", err)
	}
	return buf.Bytes(), nil
}

// Digest is "sha256:<hex>" of b, the form apply records for a plan.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
