package main

import "syscall"

// dieWithParent asks the kernel to send SIGTERM when the parent (go run, make, the
// shell) goes away, so that the lab still stops its control plane and removes its
// files when its parent is killed without relaying a signal.
func dieWithParent() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0)
}
