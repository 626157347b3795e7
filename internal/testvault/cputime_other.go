//go:build !unix

package testvault

import "time"

func ProcessCPU() (time.Duration, bool) { return 0, false }
