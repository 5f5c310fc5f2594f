// Package bench holds cairn's speed benchmarks: a cold parse and an
// incremental update of a 100 MB transcript against a raw line scan of the
// same file, and whole-process runs of `cairn status` against a Go
// hello-world process, each baseline measured in the same run. run.sh runs
// them and prints the ratios; docs/benchmarks.md records the figures.
// hookcmp compares the hot hooks of several cairn binaries (a before and
// an after) beside hello-world, taking turns within one run, or with
// -start their processes alone (`cairn version`).
package bench
