package resource

import (
	"errors"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"
)

func init() {
	registerTyped(batchv1.SchemeGroupVersion.WithKind("Job"), func(modified *bool, e *batchv1.Job, r batchv1.Job) error {
		ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
		return ensureJobSpec(modified, &e.Spec, r.Spec)
	})
	registerTyped(batchv1.SchemeGroupVersion.WithKind("CronJob"), func(modified *bool, e *batchv1.CronJob, r batchv1.CronJob) error {
		ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
		return ensureCronJobSpec(modified, &e.Spec, r.Spec)
	})
}

// errJobSelector: the CVO refuses a Job manifest with a selector (it panics;
// recover fails the step instead).
var errJobSelector = errors.New("spec.selector is not supported in Job manifests (the CVO refuses it)")

// ensureJobSpec (lib/resourcemerge/batch.go EnsureJob, ensureJobSpec,
// ensureJobSpecDefault): backoffLimit 6, completionMode NonIndexed and suspend
// false defaulted; parallelism, completions, activeDeadlineSeconds,
// backoffLimit, manualSelector, ttlSecondsAfterFinished, suspend, the pod
// template, completionMode and podFailurePolicy are the manifest's. A finished
// Job's template is immutable: the API server refuses such an update, as it
// refuses the CVO's.
func ensureJobSpec(modified *bool, e *batchv1.JobSpec, r batchv1.JobSpec) error {
	if r.Selector != nil {
		return errJobSelector
	}
	if r.BackoffLimit == nil {
		r.BackoffLimit = ptr.To(int32(6))
	}
	if r.CompletionMode == nil {
		r.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
	}
	if r.Suspend == nil {
		r.Suspend = ptr.To(false)
	}
	setPtr(modified, &e.Parallelism, r.Parallelism)
	setPtr(modified, &e.Completions, r.Completions)
	setPtr(modified, &e.ActiveDeadlineSeconds, r.ActiveDeadlineSeconds)
	setPtr(modified, &e.BackoffLimit, r.BackoffLimit)
	setPtr(modified, &e.ManualSelector, r.ManualSelector)
	setPtr(modified, &e.TTLSecondsAfterFinished, r.TTLSecondsAfterFinished)
	setPtr(modified, &e.Suspend, r.Suspend)
	ensurePodTemplate(modified, &e.Template, r.Template)
	setSemantic(modified, &e.CompletionMode, r.CompletionMode)
	setSemantic(modified, &e.PodFailurePolicy, r.PodFailurePolicy)
	return nil
}

// ensureCronJobSpec (lib/resourcemerge/batch.go EnsureCronJob,
// ensureCronJobSpec, ensureCronJobSpecDefault): concurrencyPolicy Allow,
// history limits 1 and 3 and suspend false defaulted; schedule, time zone,
// policy, limits and the job template are the manifest's.
func ensureCronJobSpec(modified *bool, e *batchv1.CronJobSpec, r batchv1.CronJobSpec) error {
	if r.ConcurrencyPolicy == "" {
		r.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if r.FailedJobsHistoryLimit == nil {
		r.FailedJobsHistoryLimit = ptr.To(int32(1))
	}
	if r.SuccessfulJobsHistoryLimit == nil {
		r.SuccessfulJobsHistoryLimit = ptr.To(int32(3))
	}
	if r.Suspend == nil {
		r.Suspend = ptr.To(false)
	}
	setPtr(modified, &e.StartingDeadlineSeconds, r.StartingDeadlineSeconds)
	setPtr(modified, &e.Suspend, r.Suspend)
	setPtr(modified, &e.SuccessfulJobsHistoryLimit, r.SuccessfulJobsHistoryLimit)
	setPtr(modified, &e.FailedJobsHistoryLimit, r.FailedJobsHistoryLimit)
	setValue(modified, &e.Schedule, r.Schedule)
	setSemantic(modified, &e.TimeZone, r.TimeZone)
	setValue(modified, &e.ConcurrencyPolicy, r.ConcurrencyPolicy)
	ensureObjectMeta(modified, &e.JobTemplate.ObjectMeta, r.JobTemplate.ObjectMeta)
	return ensureJobSpec(modified, &e.JobTemplate.Spec, r.JobTemplate.Spec)
}
