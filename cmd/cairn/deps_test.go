package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNoHeavyPackages keeps out of the binary the packages whose
// initialisation cost every process: Go runs every linked package's init
// in every process, the hooks' included. With the official MCP SDK linked
// (it brought the others), package init took 2.21 ms a process instead of
// 0.63 ms (GODEBUG=inittrace=1, mean of 40 runs); the SDK now checks the
// server in its tests only. cairn web serves its pages over its own
// HTTP/1.1 rather than net/http (0.24 ms a process, median of 30 runs;
// the hot hooks went from about 1.9x to 2.1x a hello-world process), on
// Linux over sockets made with system calls rather than package net (its
// init and its DNS parser's, and a page fault each), and writes its HTML
// without html/template (0.12 ms a process) or html; learn and handoff
// match their few patterns by hand rather than with regexp, whose
// parser's Unicode tables cost 0.05 ms a process. docs/benchmarks.md has
// the figures. The packages are read as the README builds the binary, on
// Linux, with go list -deps, which compiles nothing.
func TestNoHeavyPackages(t *testing.T) {
	heavy := []string{
		"github.com/modelcontextprotocol/go-sdk",
		"github.com/google/jsonschema-go",
		"encoding/gob",
		"net/http",
		"html", // and html/template
		"crypto/tls",
		"regexp",
	}
	// These alone, not the packages under them: net/url and net/netip
	// come with the SQLite driver.
	heavyAlone := []string{"net"}
	goTool, err := exec.LookPath("go") // go test puts its own first on PATH
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	importers := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if _, ok := importers[f[0]]; !ok {
			importers[f[0]] = nil
		}
		for _, imp := range f[1:] {
			importers[imp] = append(importers[imp], f[0])
		}
	}
	for _, pkg := range []string{"github.com/cairn-agent/cairn/internal/mcpserver", "github.com/cairn-agent/cairn/internal/web"} {
		if _, ok := importers[pkg]; !ok {
			t.Fatalf("go list did not name %s among the binary's packages:\n%s", pkg, out)
		}
	}
	var linked []string
	for pkg, by := range importers {
		for _, h := range heavy {
			if pkg == h || strings.HasPrefix(pkg, h+"/") {
				linked = append(linked, pkg+" (imported by "+strings.Join(by, ", ")+")")
			}
		}
		if slices.Contains(heavyAlone, pkg) {
			linked = append(linked, pkg+" (imported by "+strings.Join(by, ", ")+")")
		}
	}
	slices.Sort(linked)
	for _, l := range linked {
		t.Errorf("cairn links %s: its initialisation costs every process", l)
	}
}
