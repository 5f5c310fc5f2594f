// Command mkmem writes a database of synthetic observations (bench/memgen)
// for the memory benchmarks:
//
//	go run ./bench/mkmem -n 1000000 -o /tmp/mem-1m.db
//	CAIRN_MEMBENCH_DB=/tmp/mem-1m.db go test -run '^$' -bench . ./bench/memory
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/cairn-agent/cairn/bench/memgen"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/memory"
	"github.com/cairn-agent/cairn/internal/sqlite"
)

func main() {
	n := flag.Int("n", 100000, "how many observations")
	out := flag.String("o", "", "the database to write (must not exist)")
	seed := flag.Uint64("seed", 1, "the generator's seed")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: mkmem -n N -o PATH [-seed S]")
		os.Exit(2)
	}
	if err := run(*n, *out, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "mkmem:", err)
		os.Exit(1)
	}
}

func run(n int, out string, seed uint64) error {
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists", out)
	}
	dir, err := os.MkdirTemp("", "cairn-mkmem-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if _, err := fixtures.Extract(dir); err != nil {
		return err
	}
	vocab, err := memgen.Vocabulary(dir, 50000)
	if err != nil {
		return err
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, out)
	if err != nil {
		return err
	}
	start := time.Now()
	g := memgen.New(vocab, seed)
	err = g.Fill(ctx, memory.New(db), n, func(done int) {
		if done%100000 == 0 || done == n {
			fmt.Fprintf(os.Stderr, "%d observations, %s\n", done, time.Since(start).Round(time.Second))
		}
	})
	if cerr := db.Close(); err == nil {
		err = cerr // the last connection folds the log into the file
	}
	if err != nil {
		return err
	}
	fi, err := os.Stat(out)
	if err == nil {
		fmt.Printf("%d observations in %s, %d bytes (%.0f bytes per observation), vocabulary %d words\n",
			n, time.Since(start).Round(time.Second), fi.Size(), float64(fi.Size())/float64(n), len(vocab))
	}
	return err
}
