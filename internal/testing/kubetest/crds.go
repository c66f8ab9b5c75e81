package kubetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// OpenShiftCRDFiles lists the CRD manifests recover needs, relative to the
// github.com/openshift/api module directory. Where the API ships one variant per
// feature set, the Default one is used, as a production cluster would.
var OpenShiftCRDFiles = []string{
	ClusterVersionCRDFile("Default"),
	"config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusteroperators.crd.yaml",
	"config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_featuregates.crd.yaml",
	"config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_infrastructures-Default.crd.yaml",
	"operator/v1/zz_generated.crd-manifests/0000_12_etcd_01_etcds-Default.crd.yaml",
	"operator/v1/zz_generated.crd-manifests/0000_20_kube-apiserver_01_kubeapiservers.crd.yaml",
	"operator/v1/zz_generated.crd-manifests/0000_25_kube-controller-manager_01_kubecontrollermanagers.crd.yaml",
	"operator/v1/zz_generated.crd-manifests/0000_25_kube-scheduler_01_kubeschedulers.crd.yaml",
	"machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigpools-Default.crd.yaml",
	"machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigs.crd.yaml",
	// The wedge facts: Machines (the machine approver matches CSRs against
	// them), APIRequestCounts (removed APIs in use), CloudCredential (Manual
	// mode's upgradeable-to promise).
	MachineCRDFile,
	APIRequestCountCRDFile,
	"operator/v1/zz_generated.crd-manifests/0000_40_cloud-credential_00_cloudcredentials.crd.yaml",
}

// The CRDs a cluster may lack: UPI clusters have no Machine API, clusters before
// 4.8 no APIRequestCount. Tests delete them to see inspect record NotFound.
const (
	MachineCRDFile         = "machine/v1beta1/zz_generated.crd-manifests/0000_10_machine-api_01_machines-Default.crd.yaml"
	APIRequestCountCRDFile = "apiserver/v1/zz_generated.crd-manifests/kube-apiserver_apirequestcounts.crd.yaml"
)

var (
	apiDirOnce sync.Once
	apiDir     string
	apiDirErr  error
)

// OpenShiftAPIDir returns the directory of the github.com/openshift/api module that
// recover's go.mod selects, as `go list -m` reports it.
func OpenShiftAPIDir() (string, error) {
	apiDirOnce.Do(func() {
		root, err := RepoRoot()
		if err != nil {
			apiDirErr = err
			return
		}
		cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/openshift/api")
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			apiDirErr = fmt.Errorf("locating the github.com/openshift/api module with go list: %w", err)
			return
		}
		apiDir = strings.TrimSpace(string(out))
		if apiDir == "" {
			apiDirErr = fmt.Errorf("go list found no directory for github.com/openshift/api; run 'go mod download'")
		}
	})
	return apiDir, apiDirErr
}

// ClusterVersionCRDFile is the ClusterVersion CRD of a feature set
// ("Default", "TechPreviewNoUpgrade", "DevPreviewNoUpgrade", "CustomNoUpgrade",
// "OKD"). The 2026 update API's fields are feature-gated and absent from the
// Default variant (openshift/api 2026-04): TechPreviewNoUpgrade serves
// spec.desiredUpdate.acceptRisks and status.conditionalUpdateRisks (gate
// ClusterUpdateAcceptRisks), DevPreviewNoUpgrade and CustomNoUpgrade also
// spec.desiredUpdate.mode (gate ClusterUpdatePreflight). An apiserver serving
// the Default variant prunes them, as a production cluster would.
func ClusterVersionCRDFile(featureSet string) string {
	return "config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusterversions-" + featureSet + ".crd.yaml"
}

// ServeClusterVersionFeatureSet replaces the installed ClusterVersion CRD with
// its featureSet variant (ClusterVersionCRDFile) and waits until it is
// Established, as a cluster switched to that feature set serves it.
func ServeClusterVersionFeatureSet(ctx context.Context, cfg *rest.Config, featureSet string) error {
	crds, err := loadCRDFiles([]string{ClusterVersionCRDFile(featureSet)})
	if err != nil {
		return err
	}
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	cur, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crds[0].Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading CRD %s: %w", crds[0].Name, err)
	}
	cur.Spec = crds[0].Spec
	if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("serving the %s ClusterVersion CRD: %w", featureSet, err)
	}
	return InstallCRDs(ctx, cfg, crds)
}

// LoadOpenShiftCRDs reads and decodes OpenShiftCRDFiles from the openshift/api module.
func LoadOpenShiftCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return loadCRDFiles(OpenShiftCRDFiles)
}

// loadCRDFiles reads and decodes CRD files from the openshift/api module.
func loadCRDFiles(files []string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	dir, err := OpenShiftAPIDir()
	if err != nil {
		return nil, err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, rel := range files {
		path := filepath.Join(dir, rel)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading CRD: %w", err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			// Unknown fields would be a newer schema; fall back to a lenient decode.
			crd = &apiextensionsv1.CustomResourceDefinition{}
			if err := yaml.Unmarshal(data, crd); err != nil {
				return nil, fmt.Errorf("decoding CRD %s: %w", path, err)
			}
		}
		crds = append(crds, crd)
	}
	return crds, nil
}

// InstallOpenShiftCRDs creates the OpenShift CRDs and waits until each is Established.
func InstallOpenShiftCRDs(ctx context.Context, cfg *rest.Config) error {
	crds, err := LoadOpenShiftCRDs()
	if err != nil {
		return err
	}
	return InstallCRDs(ctx, cfg, crds)
}

// InstallCRDs creates the given CRDs (leaving existing ones alone) and waits until
// every one is Established: until ctx's deadline when it has one (a large CRD,
// Argo's Workflow of 2.8 MB, takes longer than 30 s to establish on a loaded
// machine), else 30 s for each.
func InstallCRDs(ctx context.Context, cfg *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition) error {
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating CRD %s: %w", crd.Name, err)
		}
	}
	for _, crd := range crds {
		wctx, cancel := ctx, context.CancelFunc(func() {})
		if _, ok := ctx.Deadline(); !ok {
			wctx, cancel = context.WithTimeout(ctx, 30*time.Second)
		}
		err := wait.PollUntilContextCancel(wctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			for _, c := range got.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		cancel()
		if err != nil {
			return fmt.Errorf("CRD %s never became Established: %w", crd.Name, err)
		}
	}
	return nil
}
