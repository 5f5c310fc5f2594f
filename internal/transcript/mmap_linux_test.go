package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A mapped transcript that shrinks while it is read (the client rewrote
// it) ends the read with errFault, the error Update reads the file again
// on, rather than crashing the process: in a worker's chunk, populated
// ahead or not.
func TestMappedReadOfShrunkFile(t *testing.T) {
	line := []byte(`{"parentUuid":"a","type":"progress","data":"` + string(bytes.Repeat([]byte("x"), 200)) + `"}` + "\n")
	data := bytes.Repeat(line, (4<<20)/len(line))
	for _, how := range []string{"populated", "faulting in"} {
		t.Run(how, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fm, ok := mapSpan(f, 0, int64(len(data)))
			if !ok {
				t.Fatal("could not map the transcript")
			}
			defer fm.unmap()
			m := fm.bytes()
			if how == "populated" {
				fm.populate(0, len(m)) // as a worker does first
			}
			if err := os.Truncate(path, 4096); err != nil {
				t.Fatal(err)
			}
			var p claudeDecoder
			c := &chunk{start: 0, end: int64(len(m)), data: m}
			done := make(chan struct{})
			go func() {
				defer close(done)
				defer debugPanicOnFault()()
				err = c.scanGuarded(f, &p, false)
			}()
			<-done
			if !errors.Is(err, errFault) {
				t.Errorf("read of a shrunk mapping: %v, want errFault", err)
			}
		})
	}
}

// A transcript mapped from past its start (a saved state's offset that is
// not on a page) gives the bytes from that offset.
func TestMapSpanFromOffset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	data := bytes.Repeat([]byte("0123456789abcdef"), 1024)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, from := range []int64{0, 1, 4095, 4096, 5000} {
		for _, populate := range []bool{false, true} {
			fm, ok := mapSpan(f, from, int64(len(data))-3)
			if !ok {
				t.Fatalf("could not map from %d", from)
			}
			m := fm.bytes()
			if populate {
				fm.populate(1, len(m)-1)
			}
			if !bytes.Equal(m, data[from:len(data)-3]) {
				t.Errorf("mapped from %d: %d bytes, not the file's", from, len(m))
			}
			fm.unmap()
		}
	}
}
