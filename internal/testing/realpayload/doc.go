// Package realpayload prepares the real OpenShift 4.3 and 4.4 release payloads
// (../shared/realdata) and the CVO referee's live objects (../shared/referee)
// for a kube-apiserver of today, for the end-to-end test that applies the real
// 4.4 payload with the engine:
//
//   - Served copies a payload, restating the manifests of API versions today's
//     API server no longer serves (apiextensions.k8s.io/v1beta1 CRDs,
//     rbac.authorization.k8s.io/v1beta1, policy/v1beta1) in the version it
//     serves; the CRDs accept any content (x-kubernetes-preserve-unknown-fields),
//     keeping their names, scope, versions and subresources. It says which
//     objects it restated: those are not compared with the CVO's results.
//   - PermissiveCRD serves a kind that OpenShift serves without a CRD
//     (openshift-apiserver's SecurityContextConstraints, ImageStream, Route,
//     OAuthClient) or that another operator installs (monitoring.coreos.com).
//
// It is test machinery: only tests import it.
package realpayload
