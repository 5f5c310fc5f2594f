package supervisor

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Watched are the files Claude Code reads only when it starts, relative to
// the project: a change to one is what a restart picks up. A directory
// stands for everything under it.
var Watched = []string{
	"CLAUDE.md",
	".claude/CLAUDE.md",
	".claude/settings.json",
	".claude/settings.local.json",
	".claude/agents",
	".claude/skills",
}

// Fingerprint sums up the names, sizes and times of the files under dir
// that paths name: it changes when one of them is written, created or
// removed.
func Fingerprint(dir string, paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		root := filepath.Join(dir, filepath.FromSlash(p))
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // absent: nothing to add
			}
			fi, err := d.Info()
			if err != nil || fi.IsDir() {
				return nil
			}
			fmt.Fprintf(&b, "%s\x00%d\x00%d\n", path, fi.Size(), fi.ModTime().UnixNano())
			return nil
		})
	}
	return b.String()
}
