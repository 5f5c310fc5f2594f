package transcript

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// tailKeep is how many bytes before Offset are remembered to recognise the
// file on the next read.
const tailKeep = 64

// headKeep is how many of the file's first bytes Head hashes.
const headKeep = 4096

// readChunk is the read size; lines longer than it grow the buffer.
const readChunk = 1 << 20

// Result says what one Update did.
type Result struct {
	Read    int64 // bytes consumed by this update
	Rebuilt bool  // the saved state did not match the file and was discarded
}

// Update reads whatever complete lines were appended to the transcript since
// s.Offset. A last line without its newline is left for the next Update.
// When the file no longer matches what was read before (truncated,
// replaced), the session is rebuilt from the start.
func (s *Session) Update(p *Parser) (Result, error) {
	defer s.cleanTexts()
	// Stat first: opening a FIFO for reading would wait for a writer.
	if fi, err := os.Stat(s.Path); err != nil {
		return Result{}, err
	} else if !fi.Mode().IsRegular() {
		return Result{}, fmt.Errorf("%s is not a regular file", s.Path)
	}
	f, err := os.OpenFile(s.Path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Result{}, err
	}
	if fi.IsDir() {
		return Result{}, fmt.Errorf("%s is a directory, not a transcript", s.Path)
	}
	var res Result
	if !s.matches(f, fi.Size()) {
		// The client stays: a file is never replaced by another client's.
		*s = *NewFor(s.Path, s.Client)
		res.Rebuilt = true
	}
	if fi.Size() == s.Offset {
		return res, nil
	}
	if s.Client == "" {
		// From the file's first line, even when the session resumes past
		// it: a state that lost its client must not guess from a line in
		// the middle.
		s.Client = sniffFile(f)
	}
	start := s.Offset
	if cr, ok := p.decoder(s).(coldReader); ok && s.Client != "" {
		done, err := cr.readParallel(s, f, fi.Size())
		if errors.Is(err, errFault) {
			// The file shrank under the mapping: it is not the file that
			// was being read. Read it again from the start, with pread.
			sub := s.IsSubagent
			*s = *NewFor(s.Path, s.Client)
			s.IsSubagent = sub
			res.Rebuilt, start, done, err = true, 0, false, nil
		}
		if done || err != nil {
			res.Read = s.Offset - start
			if err != nil {
				return res, err
			}
		}
	}
	n, err := s.read(f, p)
	res.Read += n
	return res, err
}

// sniffFile tells the client from the file's first line that is not
// blank, "" when there is no complete one yet.
func sniffFile(f *os.File) string {
	// Each client's first line tells in its first bytes (a Codex
	// session_meta line, with the instructions, runs to tens of KB).
	buf := make([]byte, 4<<10)
	n, _ := f.ReadAt(buf, 0)
	b := buf[:n]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if n == len(buf) {
				// A first line longer than the window: its start says.
				return Sniff(b)
			}
			return ""
		}
		if line := b[:i]; len(bytes.TrimSpace(line)) > 0 {
			return Sniff(line)
		}
		b = b[i+1:]
	}
	return ""
}

// matches reports whether the file still holds, just before Offset, the
// bytes this session last read there.
func (s *Session) matches(f *os.File, size int64) bool {
	if s.Version != StateVersion {
		return false
	}
	if s.Offset == 0 {
		return true
	}
	if size < s.Offset || !s.TailMatches(f) {
		return false
	}
	h, err := headHash(f, s.Offset)
	return err == nil && bytes.Equal(h, s.Head)
}

// TailMatches reports whether f holds, just before Offset, the bytes this
// session last read there: the cheap half of the check that the file is
// still the one that was read.
func (s *Session) TailMatches(f io.ReaderAt) bool {
	if s.TailLen <= 0 || s.TailLen > tailKeep || int64(s.TailLen) > s.Offset {
		return false
	}
	var buf [tailKeep]byte
	if _, err := f.ReadAt(buf[:s.TailLen], s.Offset-int64(s.TailLen)); err != nil {
		return false
	}
	return bytes.Equal(tailSum(buf[:s.TailLen]), s.TailSum)
}

// headHash hashes the first bytes of the file, at most headKeep and never
// past limit.
func headHash(f *os.File, limit int64) ([]byte, error) {
	buf := make([]byte, min(headKeep, limit))
	if _, err := f.ReadAt(buf, 0); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(buf)
	return sum[:8], nil
}

func (s *Session) read(f *os.File, p *Parser) (int64, error) {
	start := s.Offset
	// Size the buffer to what is new: an update after one more turn should
	// not allocate (and later collect) a megabyte.
	size := int64(readChunk)
	if fi, err := f.Stat(); err == nil {
		size = max(4096, min(size, fi.Size()-s.Offset+1))
	}
	buf := make([]byte, size)
	fill := 0 // bytes in buf not yet consumed
	pos := s.Offset
	for {
		if fill == len(buf) {
			// One line longer than the buffer: grow it.
			nb := make([]byte, 2*len(buf))
			copy(nb, buf[:fill])
			buf = nb
		}
		n, err := f.ReadAt(buf[fill:], pos+int64(fill))
		fill += n
		// Consume complete lines.
		b := buf[:fill]
		used := 0
		for {
			i := bytes.IndexByte(b[used:], '\n')
			if i < 0 {
				break
			}
			s.Lines++
			p.Feed(s, b[used:used+i], s.Lines, pos+int64(used))
			used += i + 1
		}
		if used > 0 {
			s.Offset = pos + int64(used)
			s.rememberTail(f, b[:used])
			if pos < headKeep {
				if h, err := headHash(f, s.Offset); err == nil {
					s.Head = h
				}
			}
		}
		pos += int64(used)
		copy(buf, b[used:])
		fill -= used
		if err == io.EOF || (err == nil && n == 0) {
			return s.Offset - start, nil
		}
		if err != nil {
			return s.Offset - start, err
		}
	}
}

// rememberTail notes the bytes just before Offset, the end of consumed;
// after a short read they are read back from f.
func (s *Session) rememberTail(f io.ReaderAt, consumed []byte) {
	if len(consumed) < tailKeep && int64(len(consumed)) < s.Offset && f != nil {
		var buf [tailKeep]byte
		n := int(min(int64(tailKeep), s.Offset))
		if _, err := f.ReadAt(buf[:n], s.Offset-int64(n)); err == nil {
			consumed = buf[:n]
		}
	}
	t := consumed[max(0, len(consumed)-tailKeep):]
	s.TailSum, s.TailLen = tailSum(t), len(t)
}

func tailSum(b []byte) []byte {
	sum := sha256.Sum256(b)
	return sum[:8]
}

// SubagentDir is where Claude Code keeps the subagent transcripts of the
// session whose transcript is at path.
func SubagentDir(path string) string {
	return filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
}

// UpdateSubagents finds the subagent transcripts beside the session and
// updates each of them.
func (s *Session) UpdateSubagents(p *Parser) error {
	dir := SubagentDir(s.Path)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	known := map[string]int{}
	for i, a := range s.Subagents {
		known[a.Path] = i
	}
	var errs []error
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		path := filepath.Join(dir, name)
		i, ok := known[path]
		if !ok {
			id := strings.TrimSuffix(strings.TrimPrefix(name, "agent-"), ".jsonl")
			sub := New(path)
			sub.IsSubagent = true
			s.Subagents = append(s.Subagents, Subagent{
				ID: id, Path: path, Compact: strings.HasPrefix(id, "acompact"), Session: sub,
			})
			i = len(s.Subagents) - 1
		}
		a := &s.Subagents[i]
		if a.Session == nil {
			a.Session = New(path)
			a.Session.IsSubagent = true
		}
		if _, err := a.Session.Update(p); err != nil {
			errs = append(errs, fmt.Errorf("subagent %s: %w", a.ID, err))
		}
	}
	sort.SliceStable(s.Subagents, func(i, j int) bool {
		return s.Subagents[i].Session.FirstTime.Before(s.Subagents[j].Session.FirstTime)
	})
	return errors.Join(errs...)
}

// UpToDate reports whether the transcript holds nothing s has not read and
// is still the file s read.
func (s *Session) UpToDate() bool {
	f, err := os.Open(s.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() != s.Offset {
		return false
	}
	return s.matches(f, fi.Size())
}

// ReadSerial reads what is new on one goroutine, for comparison with the
// parallel cold read in benchmarks.
func (s *Session) ReadSerial(p *Parser) error {
	f, err := os.Open(s.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = s.read(f, p)
	return err
}
