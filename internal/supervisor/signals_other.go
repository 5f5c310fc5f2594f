//go:build !unix

package supervisor

import "os"

// resizeSignal: none here; the size is read once at the start.
var resizeSignal os.Signal

// ReloadSignal: none here.
var ReloadSignal os.Signal
