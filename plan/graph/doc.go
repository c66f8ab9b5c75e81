// Package graph reads OpenShift update graphs exactly as the update service serves
// them, and answers the planner's questions about them.
//
// Two inputs are supported:
//
//   - an update-service (Cincinnati) graph response, from a file or from a URL
//     (the `channel` and `arch` query parameters are sent, `Accept: application/json`,
//     with timeouts and retries on 5xx, 429 and connection errors): Load with
//     Options.Graph;
//   - a raw graph-builder graph plus a cincinnati-graph-data directory, processed the
//     way a disconnected OpenShift Update Service processes them: Load with
//     Options.Graph and Options.GraphData.
//
// In the graph-data case the pipeline follows cincinnati's plugins in order:
// raw/metadata.json is merged into node metadata, blocked-edges/*.yaml remove edges
// (or, with matchingRules, turn them into conditional edges that carry a risk),
// channels/*.yaml decide channel membership, edge-add-remove applies the
// previous/next add and remove metadata, the arch filter keeps the requested
// architecture and strips it from the versions, and the channel filter keeps the
// requested channel. Unlike the service, the Graph keeps every edge that a
// blocked-edge entry removed, with the entry that removed it, so `recover graph` and
// the planner can say why an edge is not offered.
//
// Queries: Versions (in a channel), EdgesFrom and EdgesTo (each edge with its state,
// risks and blocked-edge entries), Edge, and ShortestPath (BFS over an adjacency
// index, supported edges plus conditional edges whose risks were accepted).
//
// Every error about the input itself implements BadInput() bool and names the file
// or URL and, where known, the field, line or offset.
package graph
