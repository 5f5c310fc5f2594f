//go:build !unix

package cli

func ignoreBrokenPipe() {}
