package kubetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// machineAPICRD is the Machine CRD (machine.openshift.io/v1beta1) in the
// openshift/api module: the cluster machine approver vouches for a new node's CSR
// by its Machine. Kept apart from OpenShiftCRDFiles so the simulator can install it
// on demand (a must-gather that holds Machines) without every environment serving it.
const machineAPICRD = "machine/v1beta1/zz_generated.crd-manifests/0000_10_machine-api_01_machines-Default.crd.yaml"

// InstallMachineCRD creates the Machine CRD (when absent) and waits until it is
// Established.
func InstallMachineCRD(ctx context.Context, cfg *rest.Config) error {
	dir, err := OpenShiftAPIDir()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, machineAPICRD)
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the Machine CRD: %w", err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		return fmt.Errorf("decoding CRD %s: %w", path, err)
	}
	return InstallCRDs(ctx, cfg, []*apiextensionsv1.CustomResourceDefinition{crd})
}
