package sim

import (
	"math/rand/v2"
	"regexp"
	"strconv"
)

// runLevelPattern parses a payload file name's run level and component, as the
// CVO's task graph does (pkg/payload/task_graph.go).
var runLevelPattern = regexp.MustCompile(`^0000_(\d+)_([a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*?)_`)

// parseRunLevel returns the run level and component of a payload file name, or -1
// and "" when the name does not follow 0000_<level>_<component>_.
func parseRunLevel(file string) (int, string) {
	m := runLevelPattern.FindStringSubmatch(file)
	if m == nil {
		return -1, ""
	}
	level, err := strconv.Atoi(m[1])
	if err != nil {
		return -1, ""
	}
	return level, m[2]
}

// chunk is a run of manifests the CVO applies serially: one component's manifests
// within one run level.
type chunk struct {
	RunLevel  int
	Component string
	Manifests []Manifest
}

// byNumberAndComponent groups the payload (in payload order) into run levels, each
// a list of per-component chunks the CVO may apply in parallel; a level starts only
// when the previous one finished (Updating mode). Files without a run level are
// chunks of their own, in place.
func byNumberAndComponent(ms []Manifest) [][]chunk {
	var levels [][]chunk
	for i := 0; i < len(ms); {
		level := ms[i].RunLevel
		j := i
		for j < len(ms) && ms[j].RunLevel == level && level >= 0 {
			j++
		}
		if j == i { // a file without a run level: its own level
			levels = append(levels, []chunk{{RunLevel: -1, Manifests: ms[i : i+1]}})
			i++
			continue
		}
		var chunks []chunk
		index := map[string]int{}
		for _, m := range ms[i:j] {
			k, ok := index[m.Component]
			if !ok {
				k = len(chunks)
				index[m.Component] = k
				chunks = append(chunks, chunk{RunLevel: level, Component: m.Component})
			}
			chunks[k].Manifests = append(chunks[k].Manifests, m)
		}
		levels = append(levels, chunks)
		i = j
	}
	return levels
}

// flattenByNumberAndComponent is the Initializing and Reconciling graph: the same
// chunks, all in one bucket, so no order holds between them.
func flattenByNumberAndComponent(ms []Manifest) []chunk {
	var out []chunk
	for _, level := range byNumberAndComponent(ms) {
		out = append(out, level...)
	}
	return out
}

// permuteChunks is the Reconciling order of one pass: the flattened chunks
// shuffled by a generator seeded with the scenario seed and the pass's epoch (eight
// passes share one permutation), then rotated by the pass within the epoch, like
// the CVO's ShiftOrder(PermuteOrder(graph, rand(attempt/8)), attempt%8, 8). The
// same seed and pass give the same order.
func permuteChunks(chunks []chunk, seed uint64, pass int) []chunk {
	out := append([]chunk(nil), chunks...)
	epoch := uint64(max(pass-1, 0) / 8)
	r := rand.New(rand.NewPCG(seed, epoch))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	if n := len(out); n > 0 {
		shift := (max(pass-1, 0) % 8) * n / 8
		out = append(out[shift:], out[:shift]...)
	}
	return out
}
