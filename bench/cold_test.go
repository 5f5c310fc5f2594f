package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkProcessStatusColdVsCat runs `cat` of the 100 MB transcript, a
// Go hello-world process and a cold `cairn status --json` of it (the state
// removed first) in turn, and reports the medians of each one's wall time,
// cairn's speed, its share of cat's, its CPU time and minor page faults
// (from the child's rusage). With GOMAXPROCS=1 in the environment cairn
// reads serially.
func BenchmarkProcessStatusColdVsCat(b *testing.B) {
	buildBinaries(b)
	dir := filepath.Join(work.dir, "cold-vs-cat")
	env := append(os.Environ(), "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "data"), "CLAUDE_CONFIG_DIR="+filepath.Join(work.dir, "claude"))
	var cat, hello, cairn, cpu []time.Duration
	var faults []time.Duration // counts, kept as durations to share median
	for b.Loop() {
		b.StopTimer()
		os.RemoveAll(dir)
		t := time.Now()
		c := exec.Command("cat", work.bigPath)
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
		cat = append(cat, time.Since(t))
		t = time.Now()
		if err := exec.Command(work.hello).Run(); err != nil {
			b.Fatal(err)
		}
		hello = append(hello, time.Since(t))
		cmd := exec.Command(work.cairn, "status", "--json", "--transcript", work.bigPath)
		cmd.Env = env
		b.StartTimer()
		t = time.Now()
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatalf("cairn status: %v", err)
		}
		cairn = append(cairn, time.Since(t))
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu = append(cpu, time.Duration(syscall.TimevalToNsec(ru.Utime)+syscall.TimevalToNsec(ru.Stime)))
		faults = append(faults, time.Duration(ru.Minflt))
	}
	c, k := median(cat), median(cairn)
	b.ReportMetric(float64(work.big)/k.Seconds()/1e9, "GB/s")
	b.ReportMetric(100*float64(c)/float64(k), "%cat")
	b.ReportMetric(float64(c.Microseconds()), "cat-µs")
	b.ReportMetric(float64(median(hello).Microseconds()), "hello-µs")
	b.ReportMetric(float64(median(cpu).Microseconds()), "cpu-µs")
	b.ReportMetric(float64(median(faults)), "minflt")
}
