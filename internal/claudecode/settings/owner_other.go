//go:build !unix

package settings

import (
	"io/fs"
	"os"
)

// keepOwner has nothing to do where files have no Unix owner.
func keepOwner(*os.File, fs.FileInfo) {}
