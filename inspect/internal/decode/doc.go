// Package decode reads Kubernetes and OpenShift objects from YAML or JSON files
// (single objects, Lists, multi-document YAML) into the real API types and feeds
// them to an inspect.Builder. Errors name the file and, when known, the line or
// field, as *inspect.InputError.
package decode
