package resource

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift-recover/recover/internal/testing/applytest"
)

// ownerV43 is the owner reference the 4.3 CVO left on what it created
// (metav1.NewControllerRef: blockOwnerDeletion and controller).
const ownerV43 = `ownerReferences: [{apiVersion: config.openshift.io/v1, kind: ClusterVersion, name: version, uid: cv-uid, controller: true, blockOwnerDeletion: true}]`

func nested(t *testing.T, u *unstructured.Unstructured, path ...string) any {
	t.Helper()
	if u == nil {
		t.Fatalf("no object at %v", path)
	}
	v, _, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
	return v
}

// Each rule below is one the CVO's lib/resourcemerge has and the issue found
// recover without; the referee test (merge_referee_test.go) holds every kind to
// the CVO's own results on the real payload.
func TestMergeFollowsTheCVOPerKind(t *testing.T) {
	facts := Facts{Owner: Owner("cv-uid"), APIServerInternalURL: "https://api-int.example.com:6443"}
	for _, tc := range []struct {
		name, required, live string
		wantOp               Operation
		wantErr              string
		check                func(t *testing.T, res *MergeResult)
	}{{
		name:     "a ConfigMap keeps the CA bundle the cluster injected (data keys are merged)",
		required: `{apiVersion: v1, kind: ConfigMap, metadata: {name: service-ca-bundle, namespace: ns, annotations: {service.beta.openshift.io/inject-cabundle: "true"}}, data: {}}`,
		live:     `{apiVersion: v1, kind: ConfigMap, metadata: {name: service-ca-bundle, namespace: ns, annotations: {service.beta.openshift.io/inject-cabundle: "true"}, ` + ownerV43 + `}, data: {service-ca.crt: PEM}}`,
		wantOp:   OpUpdate,
		check: func(t *testing.T, res *MergeResult) {
			if nested(t, res.Object, "data", "service-ca.crt") != "PEM" {
				t.Errorf("the injected service-ca.crt must stay: %v", res.Object.Object["data"])
			}
		},
	}, {
		name:     "the owner reference is the CVO's: controller, no blockOwnerDeletion, so a 4.3 object is written once",
		required: `{apiVersion: v1, kind: Namespace, metadata: {name: ns}}`,
		live:     `{apiVersion: v1, kind: Namespace, metadata: {name: ns, ` + ownerV43 + `}}`,
		wantOp:   OpUpdate,
		check: func(t *testing.T, res *MergeResult) {
			refs := res.Object.GetOwnerReferences()
			if len(refs) != 1 || refs[0].BlockOwnerDeletion != nil || refs[0].Controller == nil || !*refs[0].Controller {
				t.Errorf("want one controller reference without blockOwnerDeletion, got %+v", refs)
			}
		},
	}, {
		name:     "an object already as the CVO writes it is not written",
		required: `{apiVersion: v1, kind: Namespace, metadata: {name: ns, labels: {a: b}}}`,
		live:     `{apiVersion: v1, kind: Namespace, metadata: {name: ns, labels: {a: b, admin: kept}, ownerReferences: [{apiVersion: config.openshift.io/v1, kind: ClusterVersion, name: version, uid: cv-uid, controller: true}]}, spec: {finalizers: [kubernetes]}}`,
		wantOp:   OpUnchanged,
	}, {
		name:     "a Deployment keeps its pod template's restartedAt and the live container defaults",
		required: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: op, namespace: ns}, spec: {selector: {matchLabels: {app: op}}, template: {metadata: {labels: {app: op}}, spec: {containers: [{name: op, image: v44}]}}}}`,
		live:     `{apiVersion: apps/v1, kind: Deployment, metadata: {name: op, namespace: ns, ` + ownerV43 + `}, spec: {replicas: 1, selector: {matchLabels: {app: op}}, template: {metadata: {labels: {app: op}, annotations: {kubectl.kubernetes.io/restartedAt: "2020-05-20T10:00:00Z"}}, spec: {containers: [{name: op, image: v43, imagePullPolicy: IfNotPresent}]}}}}`,
		wantOp:   OpUpdate,
		check: func(t *testing.T, res *MergeResult) {
			if a, _, _ := unstructured.NestedString(res.Object.Object, "spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"); a == "" {
				t.Errorf("the admin's restartedAt must stay (the CVO merges template metadata)")
			}
			c := nested(t, res.Object, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
			if c["image"] != "v44" || c["imagePullPolicy"] != "IfNotPresent" {
				t.Errorf("the image is the manifest's, the defaulted pull policy the live one's: %v", c)
			}
			if r, _, _ := unstructured.NestedInt64(res.Object.Object, "spec", "replicas"); r != 1 {
				t.Errorf("replicas default to 1, got %d", r)
			}
		},
	}, {
		name:     "a Service's allocated clusterIP is sent back, whatever the server's version",
		required: `{apiVersion: v1, kind: Service, metadata: {name: s, namespace: ns}, spec: {selector: {app: op}, ports: [{name: https, port: 443, targetPort: 8443}]}}`,
		live:     `{apiVersion: v1, kind: Service, metadata: {name: s, namespace: ns}, spec: {clusterIP: 172.30.0.10, clusterIPs: [172.30.0.10], ipFamilies: [IPv4], type: ClusterIP, selector: {app: old}, ports: [{name: https, port: 443, targetPort: 8443, protocol: TCP}]}}`,
		wantOp:   OpUpdate,
		check: func(t *testing.T, res *MergeResult) {
			if nested(t, res.Object, "spec", "clusterIP") != "172.30.0.10" || nested(t, res.Object, "spec", "ipFamilies") == nil {
				t.Errorf("clusterIP, clusterIPs and ipFamilies must be carried over: %v", res.Object.Object["spec"])
			}
		},
	}, {
		name:     "a v1 CRD keeps the conversion webhook's injected caBundle",
		required: `{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: ws.x.io, annotations: {service.beta.openshift.io/inject-cabundle: "true"}}, spec: {group: x.io, scope: Namespaced, names: {kind: W, plural: ws}, conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {service: {name: w, namespace: ns}}}}, versions: [{name: v1, served: true, storage: true}]}}`,
		live:     `{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: ws.x.io, annotations: {service.beta.openshift.io/inject-cabundle: "true"}}, spec: {group: x.io, scope: Namespaced, names: {kind: W, plural: ws, singular: w, listKind: WList}, conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {caBundle: Q0E=, service: {name: w, namespace: ns}}}}, versions: [{name: v1, served: true, storage: true}]}}`,
		wantOp:   OpUpdate, // the owner reference
		check: func(t *testing.T, res *MergeResult) {
			if nested(t, res.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle") != "Q0E=" {
				t.Errorf("the injected caBundle must stay: %v", nested(t, res.Object, "spec", "conversion"))
			}
		},
	}, {
		name:     "a ValidatingWebhookConfiguration keeps the injected caBundle on every webhook",
		required: `{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration, metadata: {name: v, annotations: {service.beta.openshift.io/inject-cabundle: "true"}}, webhooks: [{name: a.x.io, admissionReviewVersions: [v1], sideEffects: None, clientConfig: {service: {name: w, namespace: ns}}}, {name: b.x.io, admissionReviewVersions: [v1], sideEffects: None, clientConfig: {service: {name: w, namespace: ns}}}]}`,
		live:     `{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration, metadata: {name: v, annotations: {service.beta.openshift.io/inject-cabundle: "true"}}, webhooks: [{name: a.x.io, admissionReviewVersions: [v1], sideEffects: None, clientConfig: {caBundle: Q0E=, service: {name: w, namespace: ns}}}]}`,
		wantOp:   OpUpdate,
		check: func(t *testing.T, res *MergeResult) {
			for _, w := range nested(t, res.Object, "webhooks").([]any) {
				if w.(map[string]any)["clientConfig"].(map[string]any)["caBundle"] != "Q0E=" {
					t.Errorf("every webhook carries the injected caBundle: %v", w)
				}
			}
		},
	}, {
		name:     "a v1beta1 CRD takes the generic rule: its spec is the manifest's",
		required: `{apiVersion: apiextensions.k8s.io/v1beta1, kind: CustomResourceDefinition, metadata: {name: ws.x.io}, spec: {group: x.io, version: v1}}`,
		live:     `{apiVersion: apiextensions.k8s.io/v1beta1, kind: CustomResourceDefinition, metadata: {name: ws.x.io, labels: {admin: label}}, spec: {group: x.io, version: v1, preserveUnknownFields: true}}`,
		wantOp:   OpUpdate,
		check: func(t *testing.T, res *MergeResult) {
			if res.Path != PathGeneric || nested(t, res.Object, "spec", "preserveUnknownFields") != nil || res.Object.GetLabels() != nil {
				t.Errorf("generic: the manifest's spec and labels replace the live ones, got %s %v", res.Path, res.Object.Object)
			}
		},
	}, {
		name:     "the generic rule leaves an object whose spec is the manifest's, metadata aside",
		required: `{apiVersion: monitoring.coreos.com/v1, kind: PrometheusRule, metadata: {name: r, namespace: ns}, spec: {groups: [{name: g, rules: [{alert: A, annotations: {message: "{{ $labels.name }} is down"}}]}]}}`,
		live:     `{apiVersion: monitoring.coreos.com/v1, kind: PrometheusRule, metadata: {name: r, namespace: ns, labels: {admin: label}, ` + ownerV43 + `}, spec: {groups: [{name: g, rules: [{alert: A, annotations: {message: "{{ $labels.name }} is down"}}]}]}}`,
		wantOp:   OpUnchanged,
	}, {
		name:     "a ClusterOperator is pre-created with its relatedObjects, never its versions",
		required: `{apiVersion: config.openshift.io/v1, kind: ClusterOperator, metadata: {name: etcd}, spec: {}, status: {versions: [{name: operator, version: 4.4.3}], relatedObjects: [{group: "", resource: namespaces, name: openshift-etcd}]}}`,
		wantOp:   OpCreate,
		check: func(t *testing.T, res *MergeResult) {
			rel, _ := res.StatusAfterCreate["relatedObjects"].([]any)
			if len(rel) != 1 || res.StatusAfterCreate["versions"] != nil {
				t.Errorf("the status written after the create holds relatedObjects only: %v", res.StatusAfterCreate)
			}
		},
	}, {
		name:     "an existing ClusterOperator is not written in updating mode",
		required: `{apiVersion: config.openshift.io/v1, kind: ClusterOperator, metadata: {name: etcd, labels: {new: label}}, spec: {}}`,
		live:     `{apiVersion: config.openshift.io/v1, kind: ClusterOperator, metadata: {name: etcd}, spec: {}}`,
		wantOp:   OpUnchanged,
	}, {
		name:     `create-only spelled "True" is create-only`,
		required: `{apiVersion: v1, kind: ConfigMap, metadata: {name: seed, namespace: ns, annotations: {release.openshift.io/create-only: "True"}}, data: {key: default}}`,
		live:     `{apiVersion: v1, kind: ConfigMap, metadata: {name: seed, namespace: ns, annotations: {release.openshift.io/create-only: "True"}}, data: {key: edited-by-admin}}`,
		wantOp:   OpExists,
	}, {
		name:     `create-only spelled "True" is created with a controller reference (the CVO's modifier tests "true" exactly)`,
		required: `{apiVersion: v1, kind: ConfigMap, metadata: {name: seed, namespace: ns, annotations: {release.openshift.io/create-only: "True"}}}`,
		wantOp:   OpCreate,
		check: func(t *testing.T, res *MergeResult) {
			if r := res.Object.GetOwnerReferences(); len(r) != 1 || r[0].Controller == nil {
				t.Errorf("want a controller reference, got %+v", r)
			}
		},
	}, {
		name:     `create-only "true" is created with a reference that is not a controller`,
		required: `{apiVersion: v1, kind: ConfigMap, metadata: {name: seed, namespace: ns, annotations: {release.openshift.io/create-only: "true"}}}`,
		wantOp:   OpCreate,
		check: func(t *testing.T, res *MergeResult) {
			if r := res.Object.GetOwnerReferences(); len(r) != 1 || r[0].Controller != nil {
				t.Errorf("want a reference without controller, got %+v", r)
			}
		},
	}, {
		name:     "a manifest owned by something else keeps that owner only",
		required: `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns, ownerReferences: [{apiVersion: v1, kind: Namespace, name: x, uid: other}]}}`,
		wantOp:   OpCreate,
		check: func(t *testing.T, res *MergeResult) {
			if r := res.Object.GetOwnerReferences(); len(r) != 1 || r[0].UID != "other" {
				t.Errorf("want the manifest's own owner only, got %+v", r)
			}
		},
	}, {
		name:     "a delete manifest deletes a live object",
		required: `{apiVersion: v1, kind: ConfigMap, metadata: {name: old, namespace: ns, annotations: {release.openshift.io/delete: "true"}}}`,
		live:     `{apiVersion: v1, kind: ConfigMap, metadata: {name: old, namespace: ns}}`,
		wantOp:   OpDelete,
	}, {
		name:     "a delete manifest whose object is gone does nothing",
		required: `{apiVersion: v1, kind: ConfigMap, metadata: {name: old, namespace: ns, annotations: {release.openshift.io/delete: "true"}}}`,
		wantOp:   OpAbsent,
	}, {
		name:     "a delete annotation other than \"true\" is an error, as for the CVO",
		required: `{apiVersion: v1, kind: ConfigMap, metadata: {name: old, namespace: ns, annotations: {release.openshift.io/delete: "yes"}}}`,
		wantErr:  `the only valid value is "true"`,
	}, {
		name:     "a Job manifest with a selector is refused, as the CVO refuses it",
		required: `{apiVersion: batch/v1, kind: Job, metadata: {name: j, namespace: ns}, spec: {selector: {matchLabels: {a: b}}, template: {spec: {containers: [{name: c}]}}}}`,
		live:     `{apiVersion: batch/v1, kind: Job, metadata: {name: j, namespace: ns}, spec: {template: {spec: {containers: [{name: c}]}}}}`,
		wantErr:  "spec.selector is not supported",
	}, {
		name:     "a ConfigMap asking for the TLS profile is refused (the CVO rewrites it; recover cannot yet)",
		required: `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns, annotations: {config.openshift.io/inject-tls: "true"}}, data: {config.yaml: "kind: GenericOperatorConfig"}}`,
		wantErr:  "TLS profile",
	}, {
		name:     "an SCC's users are the manifest's: the admin's user is removed, as the CVO removes it",
		required: `{apiVersion: security.openshift.io/v1, kind: SecurityContextConstraints, metadata: {name: s}, users: [], volumes: [secret], runAsUser: {type: MustRunAsRange}}`,
		live:     `{apiVersion: security.openshift.io/v1, kind: SecurityContextConstraints, metadata: {name: s}, users: ["system:serviceaccount:app:sa"], volumes: [secret], runAsUser: {type: MustRunAsRange}, allowPrivilegeEscalation: true}`,
		wantOp:   OpUpdate,
		check: func(t *testing.T, res *MergeResult) {
			if u, _ := res.Object.Object["users"].([]any); len(u) != 0 {
				t.Errorf("users must be the manifest's, got %v", u)
			}
		},
	}, {
		name:     "the CVO's own Deployment points at the internal API load balancer",
		required: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: cluster-version-operator, namespace: openshift-cluster-version}, spec: {template: {spec: {containers: [{name: cluster-version-operator, env: [{name: KUBERNETES_SERVICE_HOST, value: 127.0.0.1}]}]}}}}`,
		wantOp:   OpCreate,
		check: func(t *testing.T, res *MergeResult) {
			env := nested(t, res.Object, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)["env"].([]any)
			if len(env) != 2 || env[0].(map[string]any)["value"] != "api-int.example.com" || env[1].(map[string]any)["value"] != "6443" {
				t.Errorf("KUBERNETES_SERVICE_HOST and _PORT from Infrastructure status.apiServerInternalURI, got %v", env)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var live *unstructured.Unstructured
			if tc.live != "" {
				live = applytest.Object(tc.live)
			}
			res, err := Merge(applytest.Object(tc.required), live, facts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want an error containing %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Operation != tc.wantOp {
				t.Fatalf("operation %s, want %s", res.Operation, tc.wantOp)
			}
			if tc.check != nil {
				tc.check(t, res)
			}
		})
	}
}
