package payload

// BuildOrder computes the CVO's update order of manifests (already filtered to the
// included ones, in payload order), as NewTaskGraph, Split(SplitOnJobs) and
// Parallelize(ByNumberAndComponent) do in the CVO's pkg/payload/task_graph.go:
//
//   - every batch/v1 Job is a stage of its own; the manifests between Jobs are
//     ordered independently;
//   - consecutive manifests of one run-level with more than one component form a
//     stage with one parallel group per component chunk;
//   - a run-level chunk with a single component, and any file whose name does not
//     match the pattern, joins the previous single-component group (so adjacent
//     single-component run-levels merge into one serial group), or starts one;
//   - within a group, manifests keep payload (file name) order.
func BuildOrder(manifests []*Manifest) Order {
	var o Order
	var segment []*Manifest
	flush := func() {
		if len(segment) > 0 {
			for _, bucket := range byNumberAndComponent(segment) {
				o.addStage(bucket, false)
			}
			segment = nil
		}
	}
	for _, m := range manifests {
		if m.IsJob() {
			flush()
			o.addStage([][]*Manifest{{m}}, true)
			continue
		}
		segment = append(segment, m)
	}
	flush()
	return o
}

func (o *Order) addStage(groups [][]*Manifest, barrier bool) {
	s := Stage{Index: len(o.Stages), Barrier: barrier}
	seen := map[string]bool{}
	for gi, ms := range groups {
		g := Group{Index: gi, Component: ms[0].Component, Manifests: ms}
		for _, m := range ms {
			if m.Component != g.Component || m.RunLevel == "" {
				g.Component = ""
			}
			g.Positions = append(g.Positions, m.Position())
			if !seen[m.RunLevel] {
				seen[m.RunLevel] = true
				s.RunLevels = append(s.RunLevels, m.RunLevel)
			}
		}
		s.Groups = append(s.Groups, g)
	}
	o.Stages = append(o.Stages, s)
}

// byNumberAndComponent splits one Job-free segment into buckets of parallel groups.
// A bucket of one group is serial. It mirrors the CVO's ByNumberAndComponent,
// including its merge of single-component chunks into the last such group.
func byNumberAndComponent(tasks []*Manifest) [][][]*Manifest {
	if len(tasks) <= 1 {
		return [][][]*Manifest{{tasks}}
	}
	type match struct {
		level, component string
		ok               bool
	}
	matches := make([]match, len(tasks))
	for i, t := range tasks {
		matches[i].level, matches[i].component, matches[i].ok = ParseFileName(t.File)
	}
	var buckets [][][]*Manifest
	lastNode := -1 // bucket index of the open single-component group, -1 none
	for i := 0; i < len(tasks); {
		base := matches[i]
		j := i + 1
		var groups [][]*Manifest
		for ; j < len(tasks); j++ {
			next := matches[j]
			if !base.ok || !next.ok || base.level != next.level {
				break
			}
			if base.component != next.component {
				groups = append(groups, tasks[i:j])
				i = j
			}
			base = next
		}
		if len(groups) > 0 {
			groups = append(groups, tasks[i:j])
			buckets = append(buckets, groups)
			lastNode = -1
			i = j
			continue
		}
		if lastNode < 0 {
			buckets = append(buckets, [][]*Manifest{append([]*Manifest(nil), tasks[i:j]...)})
			lastNode = len(buckets) - 1
		} else {
			buckets[lastNode][0] = append(buckets[lastNode][0], tasks[i:j]...)
		}
		i = j
	}
	return buckets
}
