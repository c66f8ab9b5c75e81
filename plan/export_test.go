package plan

import (
	"testing"

	"github.com/openshift-recover/recover/plan/planfile"
)

// IsCompactJSON lets the external tests see which objects ManifestDigest hashes
// without json.Compact.
var IsCompactJSON = planfile.IsCompactJSON

// BenchCached lets the external benchmarks use the caches as the package's
// own do: warm runs do once before the loop, cold calls renew (fresh caches)
// outside the timer before every iteration.
func BenchCached(b *testing.B, warm bool, do, renew func()) {
	mode := cacheCold
	if warm {
		mode = cacheWarm
	}
	benchCached(b, mode, do, renew)
}
