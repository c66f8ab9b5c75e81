// Package termtext makes text safe to print on one terminal line. Messages quote
// file names and contents from must-gathers, journals and the API server, and an
// escape sequence in hostile input must not reach the terminal. It imports
// nothing of recover's.
package termtext
