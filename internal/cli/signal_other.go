//go:build !unix

package cli

import "os"

func ignoreBrokenPipe() {}

// resizeSignals: none here; the view keeps the size it started with.
var resizeSignals []os.Signal
