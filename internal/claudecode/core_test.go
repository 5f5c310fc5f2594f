package claudecode

import (
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// clientSide are the packages that may know a client: the adapters (this
// one, Codex CLI's) and what wires them to the core (the command line,
// the hook runner, install, the status line, the MCP server, which finds
// the session's transcript, and the web viewer, which lists projects). Every other package under internal/ is the
// core, which is given sessions and text and hands text back.
var clientSide = []string{"claudecode", "codex", "cli", "hook", "install", "mcpserver", "statusline", "web"}

// adapters are the client adapters: none imports another.
var adapters = []string{"claudecode", "codex"}

// TestCoreKnowsNoClient: no core package imports this one, directly or
// through another package.
func TestCoreKnowsNoClient(t *testing.T) {
	const module = "github.com/cairn-agent/cairn/internal/"
	imports := map[string][]string{} // package (relative to internal/) → the internal packages it imports
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(filepath.Clean(p)))
		pkg = strings.TrimPrefix(pkg, "../")
		for _, imp := range f.Imports {
			if dep, ok := strings.CutPrefix(strings.Trim(imp.Path.Value, `"`), module); ok {
				imports[pkg] = append(imports[pkg], dep)
			}
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, core := range []string{"continuity", "pressure", "checkpoint", "ledger", "transcript", "state"} {
		if _, ok := imports[core]; !ok {
			t.Fatalf("core package %s not found: the walk is wrong", core)
		}
	}
	for pkg := range imports {
		if slices.Contains(clientSide, strings.Split(pkg, "/")[0]) {
			continue
		}
		for _, a := range adapters {
			if via := reaches(imports, pkg, a, nil); via != nil {
				t.Errorf("core package %s reaches the %s adapter: %s", pkg, a, strings.Join(via, " → "))
			}
		}
	}
	if _, ok := imports["codex"]; !ok {
		t.Fatal("the codex adapter not found: the walk is wrong")
	}
	if via := reaches(imports, "codex", "claudecode", nil); via != nil {
		t.Errorf("the Codex adapter reaches Claude Code's: %s", strings.Join(via, " → "))
	}
}

// reaches returns the import path from pkg to target (or below it), nil
// when there is none.
func reaches(imports map[string][]string, pkg, target string, seen map[string]bool) []string {
	if pkg == target || strings.HasPrefix(pkg, target+"/") {
		return []string{pkg}
	}
	if seen == nil {
		seen = map[string]bool{}
	}
	if seen[pkg] {
		return nil
	}
	seen[pkg] = true
	for _, dep := range imports[pkg] {
		if via := reaches(imports, dep, target, seen); via != nil {
			return append([]string{path.Clean(pkg)}, via...)
		}
	}
	return nil
}
