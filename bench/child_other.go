//go:build !linux

package bench

import "syscall"

// childAttr: only Linux can tie a child's life to its parent's; elsewhere the
// suite's own stop is all there is.
func childAttr() *syscall.SysProcAttr { return nil }
