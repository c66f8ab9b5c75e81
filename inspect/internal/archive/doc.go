// Package archive opens an offline source, a directory or a .tar/.tar.gz of one, as
// an fs.FS. An archive is read once, front to back: the files a caller keeps are
// held in memory up to Limits.MaxMemoryBytes and the rest of them in a private
// temporary directory (0700, removed by Close), so memory stays bounded whatever
// the archive holds; the files a caller streams (logs) are handed to it as they
// come and never stored. Archives are refused when an entry escapes the archive
// root (absolute or ".." paths, links pointing outside) or when sizes pass the
// limits (one kept file, all kept files, the whole archive, the entry count).
package archive
