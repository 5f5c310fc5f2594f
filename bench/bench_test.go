package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

const bigSize = 100 << 20 // as bench/mkbig writes it

var work struct {
	dir      string
	big      int64
	bigPath  string
	small    int64
	smallPth string
	cairn    string
	hello    string
	turn     []byte // one more turn to append
}

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "cairn-bench-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		work.dir = dir
		if err := setup(dir); err != nil {
			fmt.Fprintln(os.Stderr, "bench setup:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

func setup(dir string) error {
	fx, err := fixtures.Extract(filepath.Join(dir, "fixtures"))
	if err != nil {
		return err
	}
	work.bigPath = filepath.Join(dir, "big.jsonl")
	if work.big, err = fixtures.Big(fx, work.bigPath, bigSize); err != nil {
		return err
	}
	work.smallPth = filepath.Join(dir, "small.jsonl")
	if work.small, err = fixtures.Big(fx, work.smallPth, 10<<20); err != nil {
		return err
	}
	// One real turn: the last assistant reply of a fixture and the tool
	// result that follows it, about as much as one agent step appends.
	src, err := os.ReadFile(filepath.Join(fx, "tool_heavy.jsonl"))
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	for _, l := range lines[len(lines)-12:] {
		work.turn = append(work.turn, l...)
	}
	return nil
}

// buildBinaries builds cairn and a hello-world program, once; with
// CAIRN_BENCH_CAIRN set, that binary is measured instead of a build of this
// tree (another commit's, beside the same hello-world).
//
// Each binary is then copied, and the copy is what runs: a binary the
// linker has just written sits in the page cache in small pieces (it writes
// its output through a memory mapping), and each page fault of a process
// started from it maps fewer pages at once. The same cairn measured 1.77x
// and 1.56x a hello-world process as linked and as copied, and two links of
// one commit differed by as much (docs/benchmarks.md, issue 15). A copy is
// laid out as a binary read back from disk is, and the same every time.
func buildBinaries(b *testing.B) {
	b.Helper()
	if work.cairn != "" {
		return
	}
	cairn := filepath.Join(work.dir, "cairn-linked")
	if prebuilt := os.Getenv("CAIRN_BENCH_CAIRN"); prebuilt != "" {
		cairn = prebuilt
	} else {
		// Built as the README installs it: static, without cgo.
		build := exec.Command("go", "build", "-o", cairn, "github.com/cairn-agent/cairn/cmd/cairn")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		if err != nil {
			b.Fatalf("build cairn: %v\n%s", err, out)
		}
	}
	hdir := filepath.Join(work.dir, "hello")
	os.MkdirAll(hdir, 0o755)
	os.WriteFile(filepath.Join(hdir, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(hdir, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"), 0o644)
	hello := filepath.Join(work.dir, "hello-linked")
	cmd := exec.Command("go", "build", "-o", hello, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Dir = hdir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build hello: %v\n%s", err, out)
	}
	work.cairn, work.hello = filepath.Join(work.dir, "cairn"), filepath.Join(work.dir, "hello-bin")
	for _, c := range [][2]string{{cairn, work.cairn}, {hello, work.hello}} {
		data, err := os.ReadFile(c[0])
		if err == nil {
			err = os.WriteFile(c[1], data, 0o755)
		}
		if err != nil {
			work.cairn = ""
			b.Fatalf("copy %s: %v", c[0], err)
		}
	}
}

func BenchmarkLineScan(b *testing.B) {
	buf := make([]byte, 1<<20)
	b.SetBytes(work.big)
	for b.Loop() {
		f, err := os.Open(work.bigPath)
		if err != nil {
			b.Fatal(err)
		}
		lines := 0
		for off := int64(0); ; {
			n, err := f.ReadAt(buf, off)
			off += int64(n)
			for p := buf[:n]; ; {
				i := bytes.IndexByte(p, '\n')
				if i < 0 {
					break
				}
				lines++
				p = p[i+1:]
			}
			if err == io.EOF || n == 0 {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		f.Close()
		if lines == 0 {
			b.Fatal("no lines")
		}
	}
}

// BenchmarkColdParse reads the whole transcript into a session.
func BenchmarkColdParse(b *testing.B) {
	b.SetBytes(work.big)
	for b.Loop() {
		s := transcript.New(work.bigPath)
		var p transcript.Parser
		if _, err := s.Update(&p); err != nil {
			b.Fatal(err)
		}
		if s.NumTurns() == 0 {
			b.Fatal("no turns")
		}
	}
}

// BenchmarkColdParseSerial is the same on one goroutine.
func BenchmarkColdParseSerial(b *testing.B) {
	b.SetBytes(work.big)
	for b.Loop() {
		s := transcript.New(work.bigPath)
		var p transcript.Parser
		if err := s.ReadSerial(&p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkColdParseHead reads the whole transcript for the state's head
// only, as a light load without saved state does (internal/state).
func BenchmarkColdParseHead(b *testing.B) {
	b.SetBytes(work.big)
	for b.Loop() {
		s := transcript.New(work.bigPath)
		p := transcript.Parser{Head: true}
		if _, err := s.Update(&p); err != nil {
			b.Fatal(err)
		}
		if s.NumTurns() == 0 {
			b.Fatal("no turns")
		}
	}
}

// BenchmarkColdParseLight reads the whole transcript as the hot hooks
// read what was appended (Parser.Light), for comparison.
func BenchmarkColdParseLight(b *testing.B) {
	b.SetBytes(work.big)
	for b.Loop() {
		s := transcript.New(work.bigPath)
		p := transcript.Parser{Light: true}
		if _, err := s.Update(&p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIncremental appends one turn to a transcript already read and
// reads it: the cost follows the appended bytes, not the file's size.
func BenchmarkIncremental(b *testing.B) {
	for _, tc := range []struct {
		name string
		path string
	}{{"10MB", work.smallPth}, {"100MB", work.bigPath}} {
		b.Run(tc.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "t.jsonl")
			data, err := os.ReadFile(tc.path)
			if err != nil {
				b.Fatal(err)
			}
			os.WriteFile(path, data, 0o600)
			s := transcript.New(path)
			var p transcript.Parser
			if _, err := s.Update(&p); err != nil {
				b.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			b.SetBytes(int64(len(work.turn)))
			for b.Loop() {
				b.StopTimer()
				f.Write(work.turn)
				b.StartTimer()
				r, err := s.Update(&p)
				if err != nil || r.Read != int64(len(work.turn)) {
					b.Fatalf("read %d, err %v", r.Read, err)
				}
			}
			b.ReportMetric(float64(len(data)), "file-bytes")
		})
	}
}

// BenchmarkProcessHello is the whole-process baseline.
func BenchmarkProcessHello(b *testing.B) {
	buildBinaries(b)
	for b.Loop() {
		if err := exec.Command(work.hello).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func statusCmd(b *testing.B, stateDir string) func() {
	env := append(os.Environ(), "XDG_STATE_HOME="+stateDir, "CLAUDE_CONFIG_DIR="+filepath.Join(work.dir, "claude"))
	return func() {
		cmd := exec.Command(work.cairn, "status", "--json", "--transcript", work.bigPath)
		cmd.Env = env
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatalf("cairn status: %v", err)
		}
	}
}

// BenchmarkProcessStatusCold runs `cairn status --json` on the 100 MB
// transcript with no saved state: a whole cold parse, and the state saved.
func BenchmarkProcessStatusCold(b *testing.B) {
	buildBinaries(b)
	dir := filepath.Join(work.dir, "cold-state")
	run := statusCmd(b, dir)
	for b.Loop() {
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
		run()
	}
}

// BenchmarkProcessStatus runs `cairn status --json` on the 100 MB
// transcript whose state is already saved.
func BenchmarkProcessStatus(b *testing.B) {
	buildBinaries(b)
	run := statusCmd(b, filepath.Join(work.dir, "state"))
	run() // saves the state
	st := state.Store{Dir: filepath.Join(work.dir, "state", "cairn")}
	if h := st.LoadHeader(work.bigPath); h == nil || !h.UpToDate() {
		b.Fatal("no saved state after the first run")
	}
	for b.Loop() {
		run()
	}
}
