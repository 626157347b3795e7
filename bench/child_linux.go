package bench

import "syscall"

// childAttr makes a child the suite starts die with it, even if the suite itself
// is killed without the chance to stop it.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
