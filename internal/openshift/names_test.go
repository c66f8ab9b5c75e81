package openshift

import "testing"

func TestManifestAnnotationPredicates(t *testing.T) {
	for _, tc := range []struct {
		ann                 map[string]string
		createOnly, deleted bool
	}{
		{nil, false, false},
		{map[string]string{AnnotationCreateOnly: "true"}, true, false},
		// The CVO reads create-only case-insensitively (issue 24).
		{map[string]string{AnnotationCreateOnly: "True"}, true, false},
		{map[string]string{AnnotationCreateOnly: "yes"}, false, false},
		{map[string]string{AnnotationDelete: "true"}, false, true},
		{map[string]string{AnnotationDelete: "false"}, false, false},
		{map[string]string{AnnotationDelete: ""}, false, false},
	} {
		if got := CreateOnly(tc.ann); got != tc.createOnly {
			t.Errorf("CreateOnly(%v) = %v", tc.ann, got)
		}
		if got := DeleteAnnotated(tc.ann); got != tc.deleted {
			t.Errorf("DeleteAnnotated(%v) = %v", tc.ann, got)
		}
	}
}
