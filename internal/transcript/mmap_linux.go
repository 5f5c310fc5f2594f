//go:build linux

package transcript

import (
	"os"
	"syscall"
)

// mapSpan maps the bytes [from, to) of f read-only and returns them with
// the function that unmaps them, or ok false when it cannot (the caller
// then reads them with pread). The pages are populated in the one call:
// the file is in the page cache when it matters (a transcript the client
// has just written), and faulting them in one 64 KiB window at a time cost
// more. A file truncated while it is mapped makes the pages past its new
// end fault (SIGBUS): readers of a mapping turn that into errFault with
// guardFault.
func mapSpan(f *os.File, from, to int64) (b []byte, unmap func(), ok bool) {
	page := int64(os.Getpagesize())
	base := from &^ (page - 1)
	n := to - base
	if n <= 0 || int64(int(n)) != n {
		return nil, nil, false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil, false
	}
	var m []byte
	var merr error
	if err := rc.Control(func(fd uintptr) {
		m, merr = syscall.Mmap(int(fd), base, int(n), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	}); err != nil || merr != nil {
		return nil, nil, false
	}
	return m[from-base:], func() { syscall.Munmap(m) }, true
}
