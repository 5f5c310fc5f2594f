//go:build !linux

package dirwatch

func open(string) watcher { return nil }
