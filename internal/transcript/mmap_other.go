//go:build !linux

package transcript

import "os"

// fileMap is not used elsewhere than on Linux.
type fileMap struct{}

// mapSpan does not map elsewhere than on Linux: the caller reads with
// pread.
func mapSpan(f *os.File, from, to int64) (m *fileMap, ok bool) {
	return nil, false
}

func (m *fileMap) bytes() []byte       { return nil }
func (m *fileMap) populate(lo, hi int) {}
func (m *fileMap) unmap()              {}
