//go:build linux

package transcript

import (
	"os"
	"syscall"
)

// fileMap is a read-only mapping of a span of a transcript.
type fileMap struct {
	all  []byte // the mapping, from a page boundary
	skip int    // the bytes of all before the span
	page int
}

// mapSpan maps the bytes [from, to) of f read-only, or says it cannot
// (ok false: the caller reads them with pread). The pages fault in as
// they are read, or populate maps a part ahead. A file truncated while it
// is mapped makes the pages past its new end fault (SIGBUS): readers of a
// mapping turn that into errFault with guardFault.
func mapSpan(f *os.File, from, to int64) (m *fileMap, ok bool) {
	page := int64(os.Getpagesize())
	base := from &^ (page - 1)
	n := to - base
	if n <= 0 || int64(int(n)) != n {
		return nil, false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, false
	}
	var all []byte
	var merr error
	if err := rc.Control(func(fd uintptr) {
		all, merr = syscall.Mmap(int(fd), base, int(n), syscall.PROT_READ, syscall.MAP_SHARED)
	}); err != nil || merr != nil {
		return nil, false
	}
	return &fileMap{all: all, skip: int(from - base), page: int(page)}, true
}

// bytes is the span.
func (m *fileMap) bytes() []byte { return m.all[m.skip:] }

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14), which syscall
// does not name.
const madvPopulateRead = 22

// populate maps the pages of the span's bytes [lo, hi) in one call, as a
// worker starts on its chunk: in parallel, where MAP_POPULATE would map
// them all on one thread before any worker starts. On an older kernel it
// does nothing, and the pages fault in as they are read.
func (m *fileMap) populate(lo, hi int) {
	start := (m.skip + lo) &^ (m.page - 1)
	syscall.Madvise(m.all[start:m.skip+hi], madvPopulateRead)
}

func (m *fileMap) unmap() { syscall.Munmap(m.all) }
