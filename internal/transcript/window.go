package transcript

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"
)

// NewWindow is a session of the transcript at path that starts at the
// first line beginning at or after from: Update then reads only the lines
// from there. It is for a first look at a large transcript with no saved
// state, when the whole of it costs more than the caller may spend (a
// compaction's hook): what came before the window (earlier prompts,
// compactions, files, the ledger) is missing from it, and such a session
// must never be saved as the transcript's state. From is where it starts,
// 0 when the window is the whole file.
func NewWindow(path string, from int64) (*Session, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	s := NewFor(path, sniffFile(f))
	if from <= 0 || from >= fi.Size() {
		return s, nil
	}
	// The line that holds from-1 ends at the first newline at or after it.
	start, err := nextLine(f, from-1, fi.Size())
	if err != nil || start >= fi.Size() {
		return s, err
	}
	s.Offset = start
	s.rememberTail(f, nil)
	if h, err := headHash(f, s.Offset); err == nil {
		s.Head = h
	}
	return s, nil
}

// nextLine is the offset just past the first newline at or after at,
// size when there is none.
func nextLine(f io.ReaderAt, at, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for at < size {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-at)], at)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return at + int64(i) + 1, nil
		}
		at += int64(n)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if n == 0 {
			break
		}
	}
	return size, nil
}

// FirstPrompts is the prompts among the complete lines of the transcript's
// first limit bytes, read as the light session reads them: the session's
// first prompt, which a window (NewWindow) of a long session lacks.
func FirstPrompts(path string, limit int64) ([]Prompt, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	buf := make([]byte, limit)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	s := New(path)
	p := Parser{Light: true, NoTexts: true}
	b, off := buf[:n], int64(0)
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		s.Lines++
		p.Feed(s, b[:i], s.Lines, off)
		b, off = b[i+1:], off+int64(i)+1
	}
	s.cleanTexts()
	return s.Prompts, nil
}
