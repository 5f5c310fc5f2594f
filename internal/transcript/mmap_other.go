//go:build !linux

package transcript

import "os"

// mapSpan does not map elsewhere than on Linux: the caller reads with
// pread.
func mapSpan(f *os.File, from, to int64) (b []byte, unmap func(), ok bool) {
	return nil, nil, false
}
