//go:build !unix

package state

import "os"

// ReadFile is os.ReadFile (the unix build reads in system calls alone).
func ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }
