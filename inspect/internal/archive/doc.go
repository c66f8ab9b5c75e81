// Package archive opens an offline source, a directory or a .tar/.tar.gz of one, as
// an fs.FS. Archives are read into memory, keeping only the files a caller asks for,
// and are refused when an entry escapes the archive root (absolute or ".." paths,
// links pointing outside) or when sizes are absurd. Nothing is written to disk.
package archive
