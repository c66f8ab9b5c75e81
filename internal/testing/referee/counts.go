package referee

import (
	"fmt"
	"sort"
	"strings"
)

// Counts tallies a comparison's outcomes by class (agrees, differs and why).
type Counts map[string]int

// String lists the classes in order, one "count class" line each.
func (c Counts) String() string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "%6d %s\n", c[k], k)
	}
	return sb.String()
}
