package releasegen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"sigs.k8s.io/yaml"
)

// Release describes one generated release.
type Release struct {
	Version    string
	Kubernetes string
	// Image is the release image pull spec (the real one, from the update graph).
	Image    string
	URL      string
	Previous []string
}

// Releases are the example releases, by version.
var Releases = map[string]Release{
	"4.4.3": {
		Version: "4.4.3", Kubernetes: "1.17.1",
		Image:    "quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc",
		URL:      "https://access.redhat.com/errata/RHBA-2020:0581",
		Previous: []string{"4.3.18", "4.3.19", "4.3.20", "4.3.21", "4.4.0", "4.4.1", "4.4.2"},
	},
	"4.4.4": {
		Version: "4.4.4", Kubernetes: "1.17.1",
		Image:    "quay.io/openshift-release-dev/ocp-release@sha256:baa687f29b0ac155d8f4c6914056d36d68f343feb9c1e82b46eef95819d00be5",
		URL:      "https://access.redhat.com/errata/RHBA-2020:2133",
		Previous: []string{"4.3.12", "4.3.13", "4.3.18", "4.3.19", "4.3.21", "4.4.2", "4.4.3"},
	},
}

// imageNames are the image-references tags, in file order.
var imageNames = []string{
	"cluster-version-operator", "cluster-config-operator", "cluster-etcd-operator", "etcd",
	"cluster-kube-apiserver-operator", "hyperkube", "cluster-kube-controller-manager-operator",
	"cluster-kube-scheduler-operator", "cluster-openshift-apiserver-operator", "openshift-apiserver",
	"cluster-authentication-operator", "oauth-server", "cluster-ingress-operator", "cluster-samples-operator",
	"cluster-capi-operator", "operator-lifecycle-manager", "cli", "cluster-dns-operator", "coredns",
	"cluster-network-operator", "machine-config-operator", "machine-os-content",
}

// ImageOf returns the synthetic by-digest pull spec of a component image in r: the
// same name gets a different digest in every release, as real z-streams rebuild
// every image.
func (r Release) ImageOf(name string) string {
	if name == "cluster-version-operator" {
		return r.Image
	}
	sum := sha256.Sum256([]byte("recover example " + r.Version + " " + name))
	return "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:" + hex.EncodeToString(sum[:])
}

// Write writes r's payload tree under dir (dir/manifests, dir/release-manifests),
// replacing whatever was there.
func Write(dir string, r Release) error {
	files, err := Files(r)
	if err != nil {
		return err
	}
	for _, sub := range []string{"manifests", "release-manifests"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	for _, name := range sortedKeys(files) {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Files returns r's payload files by path relative to the payload root.
func Files(r Release) (map[string][]byte, error) {
	g := &gen{r: r, files: map[string][]byte{}}
	g.cvo()
	g.configOperator()
	g.etcd()
	g.staticPodOperator("20", "kube-apiserver-operator", "openshift-kube-apiserver", "kubeapiservers", "KubeAPIServer", "cluster-kube-apiserver-operator", "hyperkube", "kube-apiserver")
	g.staticPodOperator("25", "kube-controller-manager-operator", "openshift-kube-controller-manager", "kubecontrollermanagers", "KubeControllerManager", "cluster-kube-controller-manager-operator", "hyperkube", "kube-controller-manager")
	g.staticPodOperator("25", "kube-scheduler-operator", "openshift-kube-scheduler", "kubeschedulers", "KubeScheduler", "cluster-kube-scheduler-operator", "hyperkube", "kube-scheduler")
	g.openshiftAPIServer()
	g.level50()
	g.level70()
	g.machineConfig()
	g.level90()
	if g.err != nil {
		return nil, g.err
	}
	md, err := json.MarshalIndent(map[string]any{
		"kind": "cincinnati-metadata-v0", "version": r.Version, "previous": r.Previous,
		"metadata": map[string]string{"url": r.URL},
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	g.files["release-manifests/release-metadata"] = append(md, '\n')
	var tags []any
	for _, n := range imageNames {
		tags = append(tags, map[string]any{
			"name": n,
			"annotations": map[string]string{
				"io.openshift.build.source-location": "https://github.com/openshift/" + n,
			},
			"from": map[string]any{"kind": "DockerImage", "name": r.ImageOf(n)},
		})
	}
	g.file("release-manifests/image-references", map[string]any{
		"apiVersion": "image.openshift.io/v1", "kind": "ImageStream",
		"metadata": map[string]any{"name": r.Version, "creationTimestamp": nil},
		"spec":     map[string]any{"lookupPolicy": map[string]any{"local": false}, "tags": tags},
	})
	return g.files, g.err
}

// gen accumulates files.
type gen struct {
	r     Release
	files map[string][]byte
	err   error
}

// file writes one file from one or more documents.
func (g *gen) file(path string, docs ...map[string]any) {
	var b bytes.Buffer
	for i, d := range docs {
		if i > 0 {
			b.WriteString("---\n")
		}
		y, err := yaml.Marshal(d)
		if err != nil && g.err == nil {
			g.err = fmt.Errorf("%s: %w", path, err)
		}
		b.Write(y)
	}
	g.files[path] = b.Bytes()
}

// rel writes a release-manifests file.
func (g *gen) rel(name string, docs ...map[string]any) { g.file("release-manifests/"+name, docs...) }

// Annotation sets.
const (
	profileSelfManaged = "include.release.openshift.io/self-managed-high-availability"
	profileSingleNode  = "include.release.openshift.io/single-node-developer"
	excludeHosted      = "exclude.release.openshift.io/internal-openshift-hosted"
)

// ann returns the usual payload annotations plus extra key/value pairs.
func ann(extra ...string) map[string]string {
	a := map[string]string{profileSelfManaged: "true", profileSingleNode: "true"}
	for i := 0; i+1 < len(extra); i += 2 {
		a[extra[i]] = extra[i+1]
	}
	return a
}

func meta(name, namespace string, annotations map[string]string) map[string]any {
	m := map[string]any{"name": name, "annotations": annotations}
	if namespace != "" {
		m["namespace"] = namespace
	}
	return m
}

func namespace(name string, a map[string]string) map[string]any {
	md := meta(name, "", a)
	md["labels"] = map[string]string{"openshift.io/run-level": "0", "openshift.io/cluster-monitoring": "true"}
	return map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": md}
}

// crd is a structural apiextensions.k8s.io/v1 CRD that a current kube-apiserver
// accepts: spec and status keep unknown fields; status is a subresource.
func crd(group, plural, kind, scope string, a map[string]string) map[string]any {
	open := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": meta(plural+"."+group, "", a),
		"spec": map[string]any{
			"group": group, "scope": scope,
			"names": map[string]any{"plural": plural, "singular": singular(kind), "kind": kind, "listKind": kind + "List"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"apiVersion": map[string]any{"type": "string"},
						"kind":       map[string]any{"type": "string"},
						"metadata":   map[string]any{"type": "object"},
						"spec":       open,
						"status":     open,
					},
				}},
			}},
		},
	}
}

func singular(kind string) string {
	b := []byte(kind)
	for i := range b {
		if b[i] >= 'A' && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// clusterOperator declares an operator and the versions the CVO waits for.
func clusterOperator(name string, a map[string]string, versions ...string) map[string]any {
	var vs []any
	for i := 0; i+1 < len(versions); i += 2 {
		vs = append(vs, map[string]string{"name": versions[i], "version": versions[i+1]})
	}
	return map[string]any{
		"apiVersion": "config.openshift.io/v1", "kind": "ClusterOperator",
		"metadata": meta(name, "", a), "spec": map[string]any{},
		"status": map[string]any{"versions": vs},
	}
}

func serviceAccount(name, ns string, a map[string]string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(name, ns, a)}
}

func clusterAdminBinding(name, sa, ns string, a map[string]string) map[string]any {
	return map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": meta(name, "", a),
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
		"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": sa, "namespace": ns}},
	}
}

// operatorDeployment is an operator's Deployment on the control plane.
func (g *gen) operatorDeployment(name, ns, image string, a map[string]string, env ...string) map[string]any {
	envs := []any{map[string]any{"name": "RELEASE_VERSION", "value": g.r.Version}}
	for i := 0; i+1 < len(env); i += 2 {
		envs = append(envs, map[string]any{"name": env[i], "value": env[i+1]})
	}
	labels := map[string]string{"app": name}
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": func() map[string]any { m := meta(name, ns, a); m["labels"] = labels; return m }(),
		"spec": map[string]any{
			"replicas": 1,
			"selector": map[string]any{"matchLabels": labels},
			"strategy": map[string]any{"type": "Recreate"},
			"template": map[string]any{
				"metadata": map[string]any{"name": name, "labels": labels},
				"spec": map[string]any{
					"serviceAccountName": name,
					"priorityClassName":  "system-cluster-critical",
					"nodeSelector":       map[string]string{"node-role.kubernetes.io/master": ""},
					"tolerations": []any{
						map[string]any{"key": "node-role.kubernetes.io/master", "operator": "Exists", "effect": "NoSchedule"},
						map[string]any{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 120},
						map[string]any{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 120},
					},
					"containers": []any{map[string]any{
						"name": "operator", "image": g.r.ImageOf(image), "imagePullPolicy": "IfNotPresent",
						"command":                  []string{name},
						"args":                     []string{"operator", "--config=/var/run/configmaps/config/config.yaml"},
						"env":                      envs,
						"resources":                map[string]any{"requests": map[string]string{"cpu": "10m", "memory": "50Mi"}},
						"terminationMessagePolicy": "FallbackToLogsOnError",
					}},
				},
			},
		},
	}
}

// cvo writes the CVO's own manifests/: Go templates the CVO renders.
func (g *gen) cvo() {
	const ns = "openshift-cluster-version"
	g.file("manifests/0000_00_cluster-version-operator_00_namespace.yaml", namespace(ns, ann()))
	g.file("manifests/0000_00_cluster-version-operator_01_clusteroperator.crd.yaml", crd("config.openshift.io", "clusteroperators", "ClusterOperator", "Cluster", ann()))
	g.file("manifests/0000_00_cluster-version-operator_01_clusterversion.crd.yaml", crd("config.openshift.io", "clusterversions", "ClusterVersion", "Cluster", ann()))
	g.file("manifests/0000_00_cluster-version-operator_02_roles.yaml", clusterAdminBinding("cluster-version-operator", "default", ns, ann()))
	labels := map[string]string{"k8s-app": "cluster-version-operator"}
	md := meta("cluster-version-operator", ns, ann(excludeHosted, "true"))
	g.file("manifests/0000_00_cluster-version-operator_03_deployment.yaml", map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md,
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": labels},
			"strategy": map[string]any{"type": "Recreate"},
			"template": map[string]any{
				"metadata": map[string]any{"name": "cluster-version-operator", "labels": labels},
				"spec": map[string]any{
					"hostNetwork":       true,
					"priorityClassName": "system-cluster-critical",
					"nodeSelector":      map[string]string{"node-role.kubernetes.io/master": ""},
					"tolerations": []any{
						map[string]any{"key": "node-role.kubernetes.io/master", "operator": "Exists", "effect": "NoSchedule"},
					},
					"containers": []any{map[string]any{
						"name": "cluster-version-operator", "image": "{{.ReleaseImage}}", "imagePullPolicy": "IfNotPresent",
						"args": []string{"start", "--release-image={{.ReleaseImage}}", "--enable-auto-update=false", "--v=2"},
						"env": []any{
							map[string]any{"name": "KUBERNETES_SERVICE_PORT", "value": "6443"},
							map[string]any{"name": "KUBERNETES_SERVICE_HOST", "value": "127.0.0.1"},
							map[string]any{"name": "CLUSTER_PROFILE", "value": "{{.ClusterProfile}}"},
							map[string]any{"name": "NODE_NAME", "valueFrom": map[string]any{"fieldRef": map[string]string{"fieldPath": "spec.nodeName"}}},
						},
						"resources":                map[string]any{"requests": map[string]string{"cpu": "20m", "memory": "50Mi"}},
						"terminationMessagePolicy": "FallbackToLogsOnError",
					}},
				},
			},
		},
	})
	g.file("manifests/0000_90_cluster-version-operator_01_prometheusrole.yaml", prometheusRBAC(ns)...)
	// The real payload really names this file 0001_00_: it matches no run-level and
	// keeps its place.
	g.file("manifests/0001_00_cluster-version-operator_03_service.yaml", map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": meta("cluster-version-operator", ns, ann(excludeHosted, "true")),
		"spec": map[string]any{
			"type":     "ClusterIP",
			"selector": labels,
			"ports":    []any{map[string]any{"name": "metrics", "port": 9099, "targetPort": 9099}},
		},
	})
}

func (g *gen) configOperator() {
	g.rel("0000_03_config-operator_01_featuregate.crd.yaml", crd("config.openshift.io", "featuregates", "FeatureGate", "Cluster", ann()))
	g.rel("0000_03_config-operator_01_infrastructure.crd.yaml", crd("config.openshift.io", "infrastructures", "Infrastructure", "Cluster", ann()))
	g.rel("0000_05_config-operator_02_featuregate.cr.yaml", map[string]any{
		"apiVersion": "config.openshift.io/v1", "kind": "FeatureGate",
		"metadata": meta("cluster", "", ann("release.openshift.io/create-only", "true")), "spec": map[string]any{},
	})
	g.rel("0000_10_config-operator_01_openshift-config-ns.yaml", namespace("openshift-config", ann()), namespace("openshift-config-managed", ann()))
	g.rel("0000_10_config-operator_02_config.clusterrole.yaml", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
		"metadata": meta("system:openshift:cluster-config-operator:cluster-reader", "", ann()),
		"rules":    []any{map[string]any{"apiGroups": []string{"config.openshift.io"}, "resources": []string{"*"}, "verbs": []string{"get", "list", "watch"}}},
	})
}

func (g *gen) etcd() {
	const ns = "openshift-etcd-operator"
	p := "0000_12_etcd-operator_"
	g.rel(p+"00_namespace.yaml", namespace(ns, ann()), namespace("openshift-etcd", ann()))
	g.rel(p+"01_config.crd.yaml", crd("operator.openshift.io", "etcds", "Etcd", "Cluster", ann()))
	g.rel(p+"02_config.cr.yaml", map[string]any{
		"apiVersion": "operator.openshift.io/v1", "kind": "Etcd",
		"metadata": meta("cluster", "", ann("release.openshift.io/create-only", "true")),
		"spec":     map[string]any{"managementState": "Managed"},
	})
	g.rel(p+"03_rbac.yaml", serviceAccount("etcd-operator", ns, ann()), clusterAdminBinding("system:openshift:operator:etcd-operator", "etcd-operator", ns, ann()))
	g.rel(p+"06_deployment.yaml", g.operatorDeployment("etcd-operator", ns, "cluster-etcd-operator", ann(excludeHosted, "true"),
		"IMAGE", g.r.ImageOf("etcd"), "OPERATOR_IMAGE", g.r.ImageOf("cluster-etcd-operator"),
		"OPERATOR_IMAGE_VERSION", g.r.Version, "OPERAND_IMAGE_VERSION", g.r.Version))
	g.rel(p+"07_clusteroperator.yaml", clusterOperator("etcd", ann(excludeHosted, "true"), "operator", g.r.Version, "raw-internal", g.r.Version))
}

// staticPodOperator writes a static-pod operator at level: its namespaces, CRD and
// singleton CR, RBAC, Deployment (env IMAGE = the operand image) and ClusterOperator
// (versions operator and the Kubernetes component).
func (g *gen) staticPodOperator(level, component, operandNS, plural, kind, operatorImage, operandImage, operand string) {
	ns := operandNS + "-operator"
	p := "0000_" + level + "_" + component + "_"
	g.rel(p+"00_namespace.yaml", namespace(ns, ann()), namespace(operandNS, ann()))
	g.rel(p+"01_config.crd.yaml", crd("operator.openshift.io", plural, kind, "Cluster", ann()))
	g.rel(p+"02_config.cr.yaml", map[string]any{
		"apiVersion": "operator.openshift.io/v1", "kind": kind,
		"metadata": meta("cluster", "", ann("release.openshift.io/create-only", "true")),
		"spec":     map[string]any{"managementState": "Managed"},
	})
	g.rel(p+"03_rbac.yaml", serviceAccount(component, ns, ann()), clusterAdminBinding("system:openshift:operator:"+component, component, ns, ann()))
	g.rel(p+"06_deployment.yaml", g.operatorDeployment(component, ns, operatorImage, ann(excludeHosted, "true"),
		"IMAGE", g.r.ImageOf(operandImage), "OPERATOR_IMAGE", g.r.ImageOf(operatorImage),
		"OPERATOR_IMAGE_VERSION", g.r.Version, "OPERAND_IMAGE_VERSION", g.r.Kubernetes))
	g.rel(p+"07_clusteroperator.yaml", clusterOperator(operand, ann(excludeHosted, "true"),
		"operator", g.r.Version, "raw-internal", g.r.Version, operand, g.r.Kubernetes))
}

func (g *gen) openshiftAPIServer() {
	const ns = "openshift-apiserver-operator"
	p := "0000_30_openshift-apiserver-operator_"
	g.rel(p+"00_namespace.yaml", namespace(ns, ann()), namespace("openshift-apiserver", ann()))
	g.rel(p+"01_config.crd.yaml", crd("operator.openshift.io", "openshiftapiservers", "OpenShiftAPIServer", "Cluster", ann()))
	g.rel(p+"02_rbac.yaml", serviceAccount("openshift-apiserver-operator", ns, ann()), clusterAdminBinding("system:openshift:operator:openshift-apiserver-operator", "openshift-apiserver-operator", ns, ann()))
	g.rel(p+"03_deployment.yaml", g.operatorDeployment("openshift-apiserver-operator", ns, "cluster-openshift-apiserver-operator", ann(),
		"IMAGE", g.r.ImageOf("openshift-apiserver"), "OPERATOR_IMAGE_VERSION", g.r.Version, "OPERAND_IMAGE_VERSION", g.r.Version))
	g.rel(p+"04_clusteroperator.yaml", clusterOperator("openshift-apiserver", ann(), "operator", g.r.Version, "openshift-apiserver", g.r.Version))
}

// simpleOperator writes namespace, RBAC, Deployment and ClusterOperator for an
// operator at level with the given file prefix separator ("_" or "-").
func (g *gen) simpleOperator(level, component, sep, ns, name, image, co string, a map[string]string, env ...string) {
	p := "0000_" + level + "_" + component + "_"
	g.rel(p+"00"+sep+"namespace.yaml", namespace(ns, a))
	g.rel(p+"01"+sep+"rbac.yaml", serviceAccount(name, ns, a), clusterAdminBinding("system:openshift:operator:"+name, name, ns, a))
	g.rel(p+"02"+sep+"deployment.yaml", g.operatorDeployment(name, ns, image, a, env...))
	g.rel(p+"03"+sep+"cluster-operator.yaml", clusterOperator(co, a, "operator", g.r.Version))
}

func (g *gen) level50() {
	g.simpleOperator("50", "cluster-authentication-operator", "_", "openshift-authentication-operator", "authentication-operator",
		"cluster-authentication-operator", "authentication", ann(), "IMAGE", g.r.ImageOf("oauth-server"))
	// The operand namespace, where the legacy ConfigMap below lives.
	g.rel("0000_50_cluster-authentication-operator_00_namespace.yaml", namespace("openshift-authentication-operator", ann()), namespace("openshift-authentication", ann()))
	// A leftover of an older release that the CVO deletes.
	g.rel("0000_50_cluster-authentication-operator_99_legacy-config.yaml", map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": meta("v4-0-config-system-legacy", "openshift-authentication", ann("release.openshift.io/delete", "true")),
	})
	// TechPreviewNoUpgrade only: the cluster-API operator's namespace.
	g.rel("0000_50_cluster-capi-operator_00_namespace.yaml", namespace("openshift-cluster-api", ann("release.openshift.io/feature-set", "TechPreviewNoUpgrade")))
	g.simpleOperator("50", "cluster-ingress-operator", "-", "openshift-ingress-operator", "ingress-operator",
		"cluster-ingress-operator", "ingress", ann())
	// Capability-gated: the samples operator exists only where openshift-samples is enabled.
	g.simpleOperator("50", "cluster-samples-operator", "_", "openshift-cluster-samples-operator", "cluster-samples-operator",
		"cluster-samples-operator", "openshift-samples", ann("capability.openshift.io/name", "openshift-samples"))
	// A Job: the CVO runs it alone, with nothing reordered around it.
	const olmNS = "openshift-operator-lifecycle-manager"
	g.rel("0000_50_olm_00-namespace.yaml", namespace(olmNS, ann()))
	g.rel("0000_50_olm_09-migrate-catalogs.job.yaml", map[string]any{
		"apiVersion": "batch/v1", "kind": "Job",
		"metadata": meta("olm-migrate-catalogs-"+dashed(g.r.Version), olmNS, ann()),
		"spec": map[string]any{
			"backoffLimit": 3,
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]string{"app": "olm-migrate-catalogs"}},
				"spec": map[string]any{
					"restartPolicy": "OnFailure",
					"nodeSelector":  map[string]string{"node-role.kubernetes.io/master": ""},
					"tolerations":   []any{map[string]any{"key": "node-role.kubernetes.io/master", "operator": "Exists", "effect": "NoSchedule"}},
					"containers": []any{map[string]any{
						"name": "migrate", "image": g.r.ImageOf("cli"),
						"command": []string{"/bin/sh", "-c", "oc get catalogsources -A -o name || true"},
						"env":     []any{map[string]any{"name": "RELEASE_VERSION", "value": g.r.Version}},
					}},
				},
			},
		},
	})
}

func dashed(v string) string {
	b := []byte(v)
	for i := range b {
		if b[i] == '.' {
			b[i] = '-'
		}
	}
	return string(b)
}

func (g *gen) level70() {
	g.simpleOperator("70", "cluster-network-operator", "_", "openshift-network-operator", "network-operator",
		"cluster-network-operator", "network", ann())
	g.simpleOperator("70", "dns-operator", "-", "openshift-dns-operator", "dns-operator",
		"cluster-dns-operator", "dns", ann(), "IMAGE", g.r.ImageOf("coredns"))
}

func (g *gen) machineConfig() {
	const ns = "openshift-machine-config-operator"
	p := "0000_80_machine-config-operator_"
	g.rel(p+"00_namespace.yaml", namespace(ns, ann()))
	g.rel(p+"01_machineconfigpool.crd.yaml", crd("machineconfiguration.openshift.io", "machineconfigpools", "MachineConfigPool", "Cluster", ann()))
	g.rel(p+"02_images.configmap.yaml", map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("machine-config-operator-images", ns, ann()),
		"data": map[string]string{"images.json": fmt.Sprintf("{\n  \"machineConfigOperator\": %q,\n  \"machineOSContent\": %q\n}\n",
			g.r.ImageOf("machine-config-operator"), g.r.ImageOf("machine-os-content"))},
	})
	g.rel(p+"03_rbac.yaml", serviceAccount("machine-config-operator", ns, ann()), clusterAdminBinding("system:openshift:operator:machine-config-operator", "machine-config-operator", ns, ann()))
	g.rel(p+"04_deployment.yaml", g.operatorDeployment("machine-config-operator", ns, "machine-config-operator", ann(excludeHosted, "true"),
		"IMAGE", g.r.ImageOf("machine-os-content"), "KUBERNETES_VERSION", g.r.Kubernetes))
	g.rel(p+"06_clusteroperator.yaml", clusterOperator("machine-config", ann(excludeHosted, "true"), "operator", g.r.Version))
}

func (g *gen) level90() {
	g.rel("0000_90_kube-apiserver-operator_01_prometheusrole.yaml", prometheusRBAC("openshift-kube-apiserver-operator")...)
}

// prometheusRBAC lets the in-cluster Prometheus scrape a namespace.
func prometheusRBAC(ns string) []map[string]any {
	role := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta("prometheus-k8s", ns, ann()),
		"rules": []any{map[string]any{"apiGroups": []string{""}, "resources": []string{"services", "endpoints", "pods"}, "verbs": []string{"get", "list", "watch"}}},
	}
	binding := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": meta("prometheus-k8s", ns, ann()),
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "prometheus-k8s"},
		"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "prometheus-k8s", "namespace": "openshift-monitoring"}},
	}
	return []map[string]any{role, binding}
}
