package main

import (
	"path/filepath"
	"strings"
)

// defaultName is the command name when recover runs as itself.
const defaultName = "recover"

// invokedName is the name help and usage lines show for a binary started as argv0.
// kubectl and oc run a plugin named kubectl-recover / oc-recover (found on PATH, or
// installed by krew) with argv[0] set to the plugin's path, so a binary with such a
// name is being run as "kubectl recover" / "oc recover" and says so; any other name
// (recover, a renamed copy, a test binary) is plain recover.
func invokedName(argv0 string) string {
	base := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	for _, host := range []string{"kubectl", "oc"} {
		if base == host+"-"+defaultName {
			return host + " " + defaultName
		}
	}
	return defaultName
}
