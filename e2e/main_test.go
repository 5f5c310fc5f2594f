package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	// The tests run the binary built from cmd/cairn, which go test cannot
	// see: linking its code in makes a cached result change with it.
	_ "github.com/cairn-agent/cairn/internal/cli"
)

// cairnBuild is the cairn binary built once for the whole package. err is
// kept rather than aborting TestMain so that the raw-transcript checks of
// every test still run when cmd/cairn does not build.
type cairnBuild struct {
	bin string
	err error
}

// built is set by TestMain before any test runs and only read afterwards.
var built cairnBuild

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cairn-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(2)
	}
	built = buildCairn(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func buildCairn(dir string) cairnBuild {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return cairnBuild{err: fmt.Errorf("go tool not found: %w", err)}
	}
	bin := filepath.Join(dir, "cairn")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", bin, "github.com/cairn-agent/cairn/cmd/cairn")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README installs it
	if out, err := cmd.CombinedOutput(); err != nil {
		return cairnBuild{err: fmt.Errorf("go build cmd/cairn: %w\n%s", err, out)}
	}
	return cairnBuild{bin: bin}
}
