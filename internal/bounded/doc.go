// Package bounded reads whole files with a size limit, so that a huge input (or
// an endless one such as /dev/zero) is refused with a one-line error instead of
// being read into memory.
//
// It lives under internal/ because every layer (inspect, plan, apply) uses it and
// none of them may import another for it; nothing outside this module may.
package bounded
