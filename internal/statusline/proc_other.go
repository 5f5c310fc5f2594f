//go:build !unix

package statusline

import "os/exec"

// setProcessGroup leaves exec's default, killing the shell alone, where
// there are no Unix process groups.
func setProcessGroup(*exec.Cmd) {}
