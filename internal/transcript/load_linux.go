//go:build linux

package transcript

import (
	"bytes"
	"os"
	"strconv"
)

// busy reports whether more threads are running or ready to run on the
// machine right now than there are CPUs for this process (the fourth
// field of /proc/loadavg, "running/total", counts this one). Then a
// parallel read gets no second CPU: it only adds the cost of sharing the
// work out (docs/benchmarks.md, issue 15).
func busy(cpus int) bool {
	b, err := os.ReadFile("/proc/loadavg")
	return err == nil && runningMore(b, cpus)
}

// runningMore reports whether loadavg, /proc/loadavg's content, counts
// more threads running than cpus.
func runningMore(loadavg []byte, cpus int) bool {
	f := bytes.Fields(loadavg)
	if len(f) < 4 {
		return false
	}
	running, _, ok := bytes.Cut(f[3], []byte("/"))
	n, err := strconv.Atoi(string(running))
	return ok && err == nil && n > cpus
}
