package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

// The parallel cold read derives exactly what the line-by-line read does,
// including a half-written last line left unread and bad lines numbered.
func TestParallelEqualsSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 MB transcript")
	}
	dir := filepath.Dir(fixturePath(t, fixtures.Small[0]))
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if _, err := fixtures.Big(dir, path, parallelMin+8<<20); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{not json\n\n" + `{"type":"user","message":{"role":"user","content":"after the garbage"}}` + "\n")
	const half = `{"type":"assistant","message":{"id":"half`
	f.WriteString(half)
	f.Close()

	ser := New(path)
	file, _ := os.Open(path)
	defer file.Close()
	var p Parser
	if _, err := ser.read(file, &p); err != nil {
		t.Fatal(err)
	}
	// With workers the chunks are walked in parallel; with one, the
	// plain read reads the file (readParallel declines); 0 is as the
	// machine decides.
	for _, workers := range []int{0, 3, 2, 1} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			compareCold(t, path, ser, half, workers)
		})
	}
}

func compareCold(t *testing.T, path string, ser *Session, half string, workers int) {
	par := New(path)
	var p Parser
	p.claude.workers = workers
	r, err := par.Update(&p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Read != par.Offset {
		t.Errorf("update says it read %d bytes, offset is %d", r.Read, par.Offset)
	}
	if par.BadCount != 1 || par.Prompts[len(par.Prompts)-1].Text != "after the garbage" {
		t.Errorf("bad=%d last prompt=%q", par.BadCount, par.Prompts[len(par.Prompts)-1].Text)
	}
	a, _ := json.Marshal(ser)
	b, _ := json.Marshal(par)
	if string(a) != string(b) {
		t.Errorf("parallel read differs from serial read (%d vs %d bytes of state); lines %d/%d offset %d/%d",
			len(b), len(a), par.Lines, ser.Lines, par.Offset, ser.Offset)
	}
	if fi, _ := os.Stat(path); par.Offset != fi.Size()-int64(len(half)) {
		t.Errorf("offset %d, want %d: the half-written line must stay unread", par.Offset, fi.Size()-int64(len(half)))
	}
}
