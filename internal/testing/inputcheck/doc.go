// Package inputcheck holds the checks recover's fuzz and bad-input tests apply to
// every error a reader returns for malformed input: one line, not empty, and
// classified as bad input (the CLI then exits 4). Only tests import it.
package inputcheck
