// Package dirdigest identifies a directory by one digest of its regular files,
// the digest a plan records for a payload directory and a graph-data directory
// (Inputs.Payload, Inputs.GraphData), and reads the files a loader needs in the
// same pass: a loader that records the digest of what it read reads each file
// once, and the digest is of the very bytes it parsed.
//
// It lives under internal/ because plan/payload and plan/graph both use it and
// neither may import the other for it.
package dirdigest
