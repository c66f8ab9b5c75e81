// Package bounded reads whole files with a size limit, so that a huge input (or
// an endless one such as /dev/zero) is refused with a one-line error instead of
// being read into memory.
//
// It lives under inspect, the first layer of the data flow, so that plan and
// apply may use it too without importing each other.
package bounded
