package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/fixtures"
)

// mcpWorld is a project with one real compacted session, and the MCP
// server: `cairn mcp`, built as the README builds cairn.
type mcpWorld struct {
	bin, project string
	env          []string
}

func newMCPWorld(b *testing.B) *mcpWorld {
	b.Helper()
	buildBinaries(b)
	dir := b.TempDir()
	w := &mcpWorld{bin: work.cairn, project: filepath.Join(dir, "project")}
	config := filepath.Join(dir, "claude")
	folder := filepath.Join(config, "projects", claudecode.ProjectKey(w.project))
	os.MkdirAll(folder, 0o755)
	os.MkdirAll(w.project, 0o755)
	id := fixtures.Compactions[0].Session
	data, err := os.ReadFile(filepath.Join(work.dir, "fixtures", id+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(folder, id+".jsonl"), data, 0o600)
	w.env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+config, "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "CLAUDE_CODE_SESSION_ID="+id)
	return w
}

// session is one whole server process as a client sees it: spawn,
// initialize, tools/list, one tools/call (none when tool is ""), stdin
// closed, exit.
func (w *mcpWorld) session(b *testing.B, tool string) {
	cmd := exec.Command(w.bin, "mcp")
	cmd.Dir, cmd.Env = w.project, w.env
	var errs bytes.Buffer
	cmd.Stderr = &errs
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	out := bufio.NewReader(outPipe)
	ask := func(msg string) []byte {
		io.WriteString(in, msg+"\n")
		line, err := out.ReadBytes('\n')
		if err != nil {
			b.Fatalf("%s: %v (stderr %s)", msg, err, errs.String())
		}
		return line
	}
	ask(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if list := ask(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); !bytes.Contains(list, []byte(`"restore_compacted_context"`)) {
		b.Fatalf("tools/list: %s", list)
	}
	if tool != "" {
		res := ask(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, tool))
		if bytes.Contains(res, []byte(`"isError":true`)) || !bytes.Contains(res, []byte(`"id":2`)) {
			b.Fatalf("%s: %s", tool, res)
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatalf("exit: %v (stderr %s)", err, errs.String())
	}
}

// BenchmarkProcessMCP is a whole MCP server process, as Claude Code uses
// one briefly (spawn, initialize, tools/list, one call, stdin closed),
// beside a hello-world process in the same iterations. The session's
// state is saved, as it is in a session whose hooks ran. "list" makes no
// call: what the protocol costs without cairn's work.
func BenchmarkProcessMCP(b *testing.B) {
	for _, tool := range []string{"", "check_compaction_status", "restore_compacted_context"} {
		name := tool
		if name == "" {
			name = "list"
		}
		b.Run(name, func(b *testing.B) {
			w := newMCPWorld(b)
			w.session(b, tool) // the state saved, the database made
			interleaved(b, "", nil, func() { w.session(b, tool) })
		})
	}
}
