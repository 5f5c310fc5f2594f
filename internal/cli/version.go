package cli

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"
	"strings"
)

// Version is cairn's version, set at build time for a release
// (-ldflags "-X github.com/cairn-agent/cairn/internal/cli.Version=v1.2.3").
var Version = "dev"

// versionCmd is `cairn version`, which `cairn --version` runs too.
func versionCmd() command {
	return command{
		summary: "print cairn's version, and for a build from a checkout the commit it was built from",
		setup: func(*flag.FlagSet) runFunc {
			return func(_ context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				var info *debug.BuildInfo
				if a.BuildInfo != nil {
					info, _ = a.BuildInfo()
				}
				fmt.Fprintf(a.Stdout, "cairn %s\n", version(Version, info))
				return nil
			}
		},
	}
}

// version is what `cairn version` prints after "cairn ". A build that was
// not given a version says where it came from: the commit, its time and
// whether the work tree had changes, as the go command records them from
// git in a checkout; else the module version `go install …@v1.2.3`
// records.
func version(v string, info *debug.BuildInfo) string {
	if v != "dev" || info == nil {
		return v
	}
	var rev, at string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		if mv := info.Main.Version; mv != "" && mv != "(devel)" {
			return mv
		}
		return v + " (built without version control information)"
	}
	parts := []string{"commit " + rev}
	if at != "" {
		parts = append(parts, at)
	}
	if modified {
		parts = append(parts, "with uncommitted changes")
	}
	return v + " (" + strings.Join(parts, ", ") + ")"
}
