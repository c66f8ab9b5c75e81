// Command recover gets a wedged OpenShift cluster back onto a safe, ordered update.
// See the README for the workflow and the exit codes.
package main
