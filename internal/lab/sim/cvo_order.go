package sim

import (
	"math/rand/v2"

	"github.com/openshift-recover/recover/plan/payload"
)

// flattenedOrder is the Initializing and Reconciling graph
// (FlattenByNumberAndComponent): the groups of plan/payload's update order without
// the run-level stages between them, so that no order holds between components.
// Jobs stay barriers (SplitOnJobs comes first in the CVO too): each Job-free
// segment is one bucket. In Reconciling mode every bucket is shuffled by a
// generator seeded with the scenario seed and the pass's epoch (eight passes share
// one permutation) and rotated by the pass within the epoch, like the CVO's
// ShiftOrder(PermuteOrder(graph, rand(attempt/8)), attempt%8, 8); the same seed and
// pass always give the same order.
func flattenedOrder(o payload.Order, shuffle bool, seed uint64, pass int) []payload.Group {
	var out, bucket []payload.Group
	epoch := uint64(max(pass-1, 0) / 8)
	r := rand.New(rand.NewPCG(seed, epoch))
	flush := func() {
		if n := len(bucket); shuffle && n > 0 {
			r.Shuffle(n, func(i, j int) { bucket[i], bucket[j] = bucket[j], bucket[i] })
			// ShiftOrder: rotate by step when the bucket is shorter than the
			// stride, else by step*len/stride.
			step, stride := max(pass-1, 0)%8, 8
			shift := step % n
			if n >= stride {
				shift = step * n / stride % n
			}
			bucket = append(bucket[shift:], bucket[:shift]...)
		}
		out = append(out, bucket...)
		bucket = nil
	}
	for _, st := range o.Stages {
		if st.Barrier {
			flush()
			out = append(out, st.Groups...)
			continue
		}
		bucket = append(bucket, st.Groups...)
	}
	flush()
	return out
}
