// Package bounded reads whole files with a size limit, so that a huge input (or
// an endless one such as /dev/zero) is refused with a one-line error instead of
// being read into memory. It also writes and reads back sealed files (WriteSealed,
// ReadSealed): cache entries that a reader takes only whole, checksummed and made
// for the key it asks for.
//
// It lives under internal/ because every layer (inspect, plan, apply) uses it and
// none of them may import another for it; nothing outside this module may.
package bounded
