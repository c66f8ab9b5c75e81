package graph

// applyGraphData (the tests' shorthand for what Load does with parsed graph-data) runs cincinnati's secondary-metadata and edge plugins, then the
// arch and channel filters, and returns the served graph with blocked edges kept.
func applyGraphData(source string, data []byte, gd *GraphData, arch, channel string) (*Graph, error) {
	p, err := newPipeline(source, data)
	if err != nil {
		return nil, err
	}
	return p.apply(gd, arch, channel)
}
