package inspect

import (
	"fmt"
	"strings"

	"github.com/blang/semver/v4"
)

// ParseVersion parses an OpenShift or Kubernetes version ("4.4.3", "v1.17.1+c5ff3a6",
// "4.16.0-0.nightly-2024-08-01-082745"), tolerating a leading "v".
func ParseVersion(v string) (semver.Version, error) {
	return semver.Parse(strings.TrimPrefix(strings.TrimSpace(v), "v"))
}

// CompareVersions compares two versions by semver precedence; unparsable versions
// compare as strings after every parsable one.
func CompareVersions(a, b string) int {
	va, errA := ParseVersion(a)
	vb, errB := ParseVersion(b)
	switch {
	case errA == nil && errB == nil:
		return va.Compare(vb)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	default:
		return strings.Compare(a, b)
	}
}

// kubeMinorOffset is the fixed distance between an OpenShift 4 minor and its
// Kubernetes minor (4.3 = 1.16, 4.4 = 1.17, 4.14 = 1.27, 4.18 = 1.31). The kube-apiserver
// operator assumes the same one-to-one stepping (cluster-kube-apiserver-operator
// kubelet_version_skew_controller.go: "an OpenShift minor version upgrade also bumps
// to the next kube minor version").
const kubeMinorOffset = 13

// OpenShiftMinorForKube returns the OpenShift 4 minor that ships Kubernetes 1.<kubeMinor>.
func OpenShiftMinorForKube(kubeMinor uint64) uint64 {
	if kubeMinor < kubeMinorOffset {
		return 0
	}
	return kubeMinor - kubeMinorOffset
}

// KubeMinorForOpenShift returns the Kubernetes minor that OpenShift 4.<minor> ships.
func KubeMinorForOpenShift(minor uint64) uint64 { return minor + kubeMinorOffset }

// SkewVerdict is the result of checking one kubelet against the oldest kube-apiserver.
type SkewVerdict struct {
	// Skew is kubelet minor minus API server minor (negative: kubelet behind).
	Skew int
	// Newer is true when the kubelet is a newer minor than the API server.
	Newer bool
	// TooOldOpenShift / TooOldUpstream are true when the kubelet is further behind
	// than OpenShift's (even minors 2, odd minors 1) or upstream's (3; 2 for
	// kubelets older than 1.25) policy allows.
	TooOldOpenShift bool
	TooOldUpstream  bool
	// OpenShiftAllowed and UpstreamAllowed are the allowed lags that were applied.
	OpenShiftAllowed int
	UpstreamAllowed  int
}

// CheckKubeletSkew measures a kubelet version against the oldest running
// kube-apiserver version. openShiftMinor is the OpenShift minor of that API server
// (its operator's release); pass 0 to derive it from the Kubernetes minor.
//
// Rules: upstream (kubernetes.io version-skew policy) forbids a kubelet newer than
// the API server and allows it 3 minors behind (2 for kubelets older than 1.25);
// OpenShift's kube-apiserver operator (kubelet_version_skew_controller.go) allows
// 0-2 minors behind on even OpenShift minors and 0-1 on odd ones.
func CheckKubeletSkew(kubelet, apiServer string, openShiftMinor uint64) (SkewVerdict, error) {
	kv, err := ParseVersion(kubelet)
	if err != nil {
		return SkewVerdict{}, fmt.Errorf("kubelet version %q: %w", kubelet, err)
	}
	av, err := ParseVersion(apiServer)
	if err != nil {
		return SkewVerdict{}, fmt.Errorf("kube-apiserver version %q: %w", apiServer, err)
	}
	if openShiftMinor == 0 {
		openShiftMinor = OpenShiftMinorForKube(av.Minor)
	}
	v := SkewVerdict{Skew: int(kv.Minor) - int(av.Minor)}
	if kv.Major != av.Major {
		v.Skew = 1000 * (int(kv.Major) - int(av.Major))
	}
	v.OpenShiftAllowed = KubeletLagAllowed(4, openShiftMinor)
	v.UpstreamAllowed = 3
	if kv.Major == 1 && kv.Minor < 25 {
		v.UpstreamAllowed = 2
	}
	v.Newer = v.Skew > 0
	v.TooOldOpenShift = -v.Skew > v.OpenShiftAllowed
	v.TooOldUpstream = -v.Skew > v.UpstreamAllowed
	return v, nil
}

// minorOf returns "major.minor" of a version, or the input when it does not parse.
func minorOf(v string) string {
	pv, err := ParseVersion(v)
	if err != nil {
		return v
	}
	return fmt.Sprintf("%d.%d", pv.Major, pv.Minor)
}
