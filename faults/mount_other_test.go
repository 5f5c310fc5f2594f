//go:build !linux

package faults

import "errors"

func bindReadOnly(dir string) (func() error, error) {
	return nil, errors.New("bind mounts are Linux only here")
}

func mountSmall(dir string, size int) (func() error, error) {
	return nil, errors.New("tmpfs mounts are Linux only here")
}
