//go:build !unix

package claudecode

import "os"

// createMark creates the file mark, or leaves it as it is; exists is false
// when its folder does not exist.
func createMark(mark string) (exists bool, err error) {
	f, err := os.OpenFile(mark, os.O_CREATE|os.O_WRONLY, 0o600)
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	return true, f.Close()
}

// lockDir does not lock here: two listings at once may leave a correction
// out of the copy until the transcript's next hook or the next rescan.
func lockDir(string) (unlock func(), err error) { return func() {}, nil }
