package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestProductBinaryHasNoDocGenerator holds gendocs.go's promise: the man-page
// generator (cobra/doc and its markdown renderer) is linked only with -tags gendocs.
func TestProductBinaryHasNoDocGenerator(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	deps := func(tags string) string {
		args := []string{"list", "-deps"}
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	generator := []string{"github.com/spf13/cobra/doc", "github.com/cpuguy83/go-md2man/v2/md2man"}
	product := deps("")
	for _, p := range generator {
		if strings.Contains(product, p+"\n") {
			t.Errorf("the product binary links %s; keep it behind -tags gendocs", p)
		}
	}
	// The check above would pass vacuously if the package names were wrong.
	tagged := deps("gendocs")
	for _, p := range generator {
		if !strings.Contains(tagged, p+"\n") {
			t.Errorf("-tags gendocs does not link %s", p)
		}
	}
}
