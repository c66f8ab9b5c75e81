package sim

import (
	"context"
	"fmt"

	"github.com/blang/semver/v4"
	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
)

// The cloud-credential operator's Upgradeable rule in Manual mode (CCO
// pkg/operator/utils/utils.go, docs/wedge-sources.md): Upgradeable=False,
// MissingUpgradeableAnnotation, until cloudcredentials.operator.openshift.io/cluster
// carries cloudcredential.openshift.io/upgradeable-to with a major.minor greater
// than the cluster's (a leading "v" allowed).
const missingUpgradeableMsg = "Upgradeable annotation cloudcredential.openshift.io/upgradeable-to on cloudcredential.operator.openshift.io/cluster object needs updating before upgrade. See Manually Creating IAM documentation for instructions on preparing a cluster for upgrade."

// cloudCredentialGVR is the cloud-credential operator's resource.
var cloudCredentialGVR = schema.GroupVersionResource{Group: inspect.ResCloudCredentials.Group, Version: inspect.ResCloudCredentials.Version, Resource: inspect.ResCloudCredentials.Resource}

// syncCloudCredential plays the cloud-credential operator's Upgradeable check
// whenever its CloudCredential changes. Outside Manual mode the loaded
// ClusterOperator is left as it is.
func (s *Sim) syncCloudCredential(ctx context.Context, _ string) error {
	u, err := s.dyn.Resource(cloudCredentialGVR).Get(ctx, openshift.SingletonName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if mode, _, _ := unstructured.NestedString(u.Object, "spec", "credentialsMode"); mode != string(operatorv1.CloudCredentialsModeManual) {
		return nil
	}
	cv, err := s.config.ConfigV1().ClusterVersions().Get(ctx, openshift.ClusterVersionName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	annotation := u.GetAnnotations()[openshift.AnnotationUpgradeableTo]
	cond := conditionUpdate{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionFalse, Reason: openshift.ReasonMissingUpgradeableAnnotation, Message: missingUpgradeableMsg}
	if minorAbove(annotation, cv.Status.Desired.Version) {
		cond = conditionUpdate{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionTrue}
	}
	changed, err := s.setClusterOperatorCondition(ctx, openshift.CloudCredentialOperator, cond)
	if err != nil {
		return err
	}
	if changed {
		s.rec.record("operator/"+openshift.CloudCredentialOperator, "UpgradeableChanged", "ClusterOperator "+openshift.CloudCredentialOperator,
			fmt.Sprintf("Upgradeable=%s %s (upgradeable-to %q, cluster %s)", cond.Status, cond.Reason, annotation, cv.Status.Desired.Version), nil)
	}
	return nil
}

// minorAbove reports whether the upgradeable-to value ("4.15" or "v4.15") is a
// major.minor greater than version's.
func minorAbove(upgradeableTo, version string) bool {
	to, err := semver.ParseTolerant(upgradeableTo)
	if err != nil || upgradeableTo == "" {
		return false
	}
	v, err := inspect.ParseVersion(version)
	if err != nil {
		return false
	}
	return to.Major > v.Major || to.Major == v.Major && to.Minor > v.Minor
}
