package faults

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// bindReadOnly mounts dir read-only on itself (root with CAP_SYS_ADMIN).
func bindReadOnly(dir string) (func() error, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("needs root")
	}
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		return nil, fmt.Errorf("bind mount: %w", err)
	}
	if err := syscall.Mount("", dir, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		syscall.Unmount(dir, syscall.MNT_DETACH)
		return nil, fmt.Errorf("remount read-only: %w", err)
	}
	return func() error { return syscall.Unmount(dir, syscall.MNT_DETACH) }, nil
}

// mountSmall mounts a tmpfs of size bytes on dir (root with
// CAP_SYS_ADMIN).
func mountSmall(dir string, size int) (func() error, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("mounting a tmpfs needs root")
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		return nil, fmt.Errorf("mount -t tmpfs: %w", err)
	}
	return func() error { return syscall.Unmount(dir, syscall.MNT_DETACH) }, nil
}
