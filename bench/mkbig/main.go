// Command mkbig writes the benchmarks' 100 MB transcript (the real fixture
// sessions repeated) to the path it is given, for whole-process
// measurements in bench/run.sh.
package main

import (
	"fmt"
	"os"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mkbig PATH")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "cairn-mkbig-")
	if err == nil {
		defer os.RemoveAll(dir)
		_, err = fixtures.Extract(dir)
	}
	if err == nil {
		_, err = fixtures.Big(dir, os.Args[1], 100<<20)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkbig:", err)
		os.Exit(1)
	}
}
