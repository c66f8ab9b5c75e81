package plan

// IsCompactJSON lets the external tests see which objects ManifestDigest hashes
// without json.Compact.
var IsCompactJSON = isCompactJSON
