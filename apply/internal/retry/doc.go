// Package retry decides which API failures are transient and retries the calls
// that are safe to repeat, for the engine and its gates alike.
package retry
