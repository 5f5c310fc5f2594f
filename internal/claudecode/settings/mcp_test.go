package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// isCairnServer is the tests' MCPServer.Ours: "mcp" run by a program
// named cairn.
func isCairnServer(command string, args []string) bool {
	return filepath.Base(command) == "cairn" && slices.Equal(args, []string{"mcp"})
}

// userServer registers /usr/local/bin/cairn, as install does in
// ~/.claude.json, and takes cairn from PATH for current too; projectServer registers cairn from PATH, as in
// .mcp.json, and takes any cairn there for current.
var (
	userServer = Wiring{MCP: &MCPServer{Name: "cairn", Command: "/usr/local/bin/cairn", Args: []string{"mcp"},
		Ours: isCairnServer, FileMode: 0o600,
		Current: func(c string) bool { return c == "/usr/local/bin/cairn" || !filepath.IsAbs(c) }}}
	projectServer = Wiring{MCP: &MCPServer{Name: "cairn", Command: "cairn", Args: []string{"mcp"},
		Ours: isCairnServer, Current: func(string) bool { return true }}}
	approval = Wiring{Hooks: cairnHooks[:1], IsOurs: isCairn, Approve: "cairn"}
)

// roundTrip installs w into in, checks the result against want (in
// itself when want is ""), that a second install changes nothing, and
// that uninstalling with the journal's record of in gives in back byte
// for byte. It returns what install wrote.
func roundTrip(t *testing.T, w Wiring, in, want string) string {
	t.Helper()
	out, changed, err := w.Install([]byte(in))
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	if want == "" {
		want = in
	}
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Fatalf("Install (-want +got):\n%s", diff)
	}
	if changed != (want != in) {
		t.Errorf("Install said changed %v", changed)
	}
	if !json.Valid(out) {
		t.Fatalf("Install wrote invalid JSON:\n%s", out)
	}
	if again, changed, err := w.Install(out); err != nil || changed || !bytes.Equal(again, out) {
		t.Errorf("second Install: changed %v, %v", changed, err)
	}
	before, err := w.Before([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := w.Uninstall(out, w.record(before))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, before) {
		t.Errorf("Uninstall after Install (-before +after):\n%s", cmp.Diff(string(before), string(back)))
	}
	return string(out)
}

// TestServerInstall registers the server in files as people and the
// client write them, and takes it out again.
func TestServerInstall(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
		w              Wiring
	}{
		{"no file", "", "{\n  \"mcpServers\": {\n    \"cairn\": {\n      \"command\": \"cairn\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n", projectServer},
		{"white space", " \n", "{\n  \"mcpServers\": {\n    \"cairn\": {\n      \"command\": \"cairn\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n", projectServer},
		{"empty object, spaced", "{ }\n", "{\n  \"mcpServers\": {\n    \"cairn\": {\n      \"command\": \"cairn\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n", projectServer},
		{"one line, other servers",
			`{"mcpServers":{"github":{"command":"npx","args":["-y","@mcp/github"],"env":{"TOKEN":"t0k"}}}}`,
			`{"mcpServers":{"github":{"command":"npx","args":["-y","@mcp/github"],"env":{"TOKEN":"t0k"}},"cairn":{"command":"cairn","args":["mcp"]}}}`, projectServer},
		{"tabs, CRLF, no final newline",
			"{\r\n\t\"mcpServers\": {\r\n\t\t\"db\": {\r\n\t\t\t\"type\": \"stdio\",\r\n\t\t\t\"command\": \"/opt/db-mcp\"\r\n\t\t}\r\n\t}\r\n}",
			"{\r\n\t\"mcpServers\": {\r\n\t\t\"db\": {\r\n\t\t\t\"type\": \"stdio\",\r\n\t\t\t\"command\": \"/opt/db-mcp\"\r\n\t\t},\r\n\t\t\"cairn\": {\r\n\t\t\t\"command\": \"cairn\",\r\n\t\t\t\"args\": [\r\n\t\t\t\t\"mcp\"\r\n\t\t\t]\r\n\t\t}\r\n\t}\r\n}", projectServer},
		{"empty servers, spaced", "{\n  \"mcpServers\": {\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"cairn\": {\n      \"command\": \"cairn\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n", projectServer},
		// ~/.claude.json as the client writes it: the server goes at the
		// top level, after the rest; the projects' own servers (local
		// scope) and everything else are left as they are.
		{"the client's state",
			"{\n  \"numStartups\": 3,\n  \"projects\": {\n    \"/w/p\": {\n      \"mcpServers\": {},\n      \"hasTrustDialogAccepted\": true\n    }\n  },\n  \"userID\": \"abc\"\n}",
			"{\n  \"numStartups\": 3,\n  \"projects\": {\n    \"/w/p\": {\n      \"mcpServers\": {},\n      \"hasTrustDialogAccepted\": true\n    }\n  },\n  \"userID\": \"abc\",\n  \"mcpServers\": {\n    \"cairn\": {\n      \"command\": \"/usr/local/bin/cairn\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}", userServer},
		{"the client's own entry for cairn's server, current", `{"mcpServers":{"cairn":{"type":"stdio","command":"/usr/local/bin/cairn","args":["mcp"],"env":{}}}}`, "", userServer},
		{"cairn from PATH is the user's choice", `{"mcpServers":{"cairn":{"command":"cairn","args":["mcp"]}}}`, "", userServer},
		{"any cairn in .mcp.json", `{"mcpServers":{"cairn":{"command":"/opt/cairn","args":["mcp"]}}}`, "", projectServer},
		// Someone else's server under the name stays.
		{"another server named cairn", `{"mcpServers":{"cairn":{"command":"npx","args":["cairn-mcp"]}}}`, "", projectServer},
		{"cairn with other arguments", `{"mcpServers":{"cairn":{"command":"cairn","args":["mcp","--x"]}}}`, "", projectServer},
		{"cairn over http", `{"mcpServers":{"cairn":{"type":"http","url":"http://localhost:1","command":"cairn","args":["mcp"]}}}`, "", projectServer},
		{"cairn, not an object", `{"mcpServers":{"cairn":"cairn mcp"}}`, "", projectServer},
		{"hooks are not its business", `{"hooks":7}`, "{\"hooks\":7,\"mcpServers\":{\"cairn\":{\"command\":\"cairn\",\"args\":[\"mcp\"]}}}", projectServer},
	} {
		t.Run(tt.name, func(t *testing.T) {
			roundTrip(t, tt.w, tt.in, tt.want)
		})
	}
}

// TestServerRetarget: an entry of cairn's that runs another binary, an
// older install's, is pointed at this one, the rest of it kept, and
// uninstall takes it out whole.
func TestServerRetarget(t *testing.T) {
	in := "{\n  \"mcpServers\": {\n    \"cairn\": {\n      \"type\": \"stdio\",\n      \"command\": \"/old/bin/cairn\",\n      \"args\": [\"mcp\"],\n      \"env\": {\"X\": \"1\"}\n    }\n  }\n}\n"
	out, changed, err := userServer.Install([]byte(in))
	if err != nil || !changed {
		t.Fatalf("Install: %v, changed %v", err, changed)
	}
	if want := strings.Replace(in, "/old/bin/cairn", "/usr/local/bin/cairn", 1); string(out) != want {
		t.Errorf("Install:\n%s\nwant\n%s", out, want)
	}
	before, err := userServer.Before([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	// Without a record, what cairn's server emptied goes.
	if want := "{}\n"; string(before) != want {
		t.Errorf("Before:\n%s\nwant\n%s", before, want)
	}
	back, _, err := userServer.Uninstall(out, before)
	if err != nil || !bytes.Equal(back, before) {
		t.Errorf("Uninstall: %v\n%s", err, back)
	}
}

// TestServerState: what Server tells install and doctor.
func TestServerState(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want ServerState
		cmd  string
	}{
		{``, NoServer, ""},
		{`{"mcpServers":{}}`, NoServer, ""},
		{`{"mcpServers":{"github":{"command":"cairn","args":["mcp"]}}}`, NoServer, ""},
		{`{"mcpServers":{"cairn":{"command":"/x/cairn","args":["mcp"]}}}`, OurServer, "/x/cairn"},
		{`{"mcpServers":{"cairn":{"type":"stdio","command":"cairn","args":["mcp"]}}}`, OurServer, "cairn"},
		{`{"mcpServers":{"cairn":{"command":"cairn"}}}`, OtherServer, ""},
		{`{"mcpServers":{"cairn":{"command":"cairn","args":"mcp"}}}`, OtherServer, ""},
		{`{"mcpServers":{"cairn":{"command":"cairn","args":["mcp",1]}}}`, OtherServer, ""},
		{`{"mcpServers":{"cairn":{"type":"sse","command":"cairn","args":["mcp"]}}}`, OtherServer, ""},
		{`{"mcpServers":{"cairn":null}}`, OtherServer, ""},
	} {
		st, cmd, err := projectServer.Server([]byte(tt.in))
		if err != nil || st != tt.want || cmd != tt.cmd {
			t.Errorf("Server(%s) = %v %q %v, want %v %q", tt.in, st, cmd, err, tt.want, tt.cmd)
		}
	}
}

// TestServerUninstall: uninstall takes out cairn's server alone, and what
// it finds empty goes or stays as it was before.
func TestServerUninstall(t *testing.T) {
	for _, tt := range []struct {
		name, in, before, want string
	}{
		{"without a record, the container it empties goes", `{"a":1,"mcpServers":{"cairn":{"command":"cairn","args":["mcp"]}}}`, "-", `{"a":1}`},
		{"with a record that had it, it stays as it was", "{\"a\":1,\"mcpServers\":{\"cairn\":{\"command\":\"cairn\",\"args\":[\"mcp\"]}}}", "{\"mcpServers\":{\n}}", "{\"a\":1,\"mcpServers\":{\n}}"},
		{"other servers stay", `{"mcpServers":{"a":{"command":"x"},"cairn":{"command":"cairn","args":["mcp"]},"b":{"command":"y"}}}`, "-", `{"mcpServers":{"a":{"command":"x"},"b":{"command":"y"}}}`},
		{"someone else's stays", `{"mcpServers":{"cairn":{"command":"npx","args":["cairn"]}}}`, "-", `{"mcpServers":{"cairn":{"command":"npx","args":["cairn"]}}}`},
		{"the user's other edits stay", "{\n  \"mcpServers\": {\n    \"cairn\": {\"command\": \"cairn\", \"args\": [\"mcp\"]},\n    \"new\": {\"command\": \"n\"}\n  },\n  \"added\": true\n}", "{}",
			"{\n  \"mcpServers\": {\n    \"new\": {\"command\": \"n\"}\n  },\n  \"added\": true\n}"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var before []byte
			if tt.before != "-" {
				before = []byte(tt.before)
			}
			got, _, err := projectServer.Uninstall([]byte(tt.in), before)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Uninstall:\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestApproval: install approves the server in settings.local.json,
// beside the user's approvals, and uninstall takes out only its own.
func TestApproval(t *testing.T) {
	hook := `"hooks": {"SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": "cairn hook session-start", "timeout": 10}]}]}`
	for _, tt := range []struct{ name, in, want string }{
		{"none", `{}`, "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"matcher\": \"\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"cairn hook session-start\",\n            \"timeout\": 10\n          }\n        ]\n      }\n    ]\n  },\n  \"enabledMcpjsonServers\": [\n    \"cairn\"\n  ]\n}"},
		{"beside the user's", "{" + hook + ", \"enabledMcpjsonServers\": [\"github\"]}", "{" + hook + ", \"enabledMcpjsonServers\": [\"github\", \"cairn\"]}"},
		{"tabs", "{" + hook + ",\n\t\"enabledMcpjsonServers\": [\n\t\t\"github\"\n\t]\n}", "{" + hook + ",\n\t\"enabledMcpjsonServers\": [\n\t\t\"github\",\n\t\t\"cairn\"\n\t]\n}"},
		{"empty, spaced", "{" + hook + ", \"enabledMcpjsonServers\": [ ]}", "{" + hook + ", \"enabledMcpjsonServers\": [\"cairn\"]}"},
		// The user approved it already: install adds nothing, and
		// uninstall leaves it.
		{"approved already", "{" + hook + ", \"enabledMcpjsonServers\": [\"cairn\"]}", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			roundTrip(t, approval, tt.in, tt.want)
		})
	}
	// Without a record it goes, and the array with it when it empties it.
	for in, want := range map[string]string{
		`{"enabledMcpjsonServers":["cairn"]}`:             `{}`,
		`{"enabledMcpjsonServers":["cairn","x"]}`:         `{"enabledMcpjsonServers":["x"]}`,
		`{"enabledMcpjsonServers":["x","cairn","cairn"]}`: `{"enabledMcpjsonServers":["x"]}`,
	} {
		got, _, err := approval.Uninstall([]byte(in), nil)
		if err != nil || string(got) != want {
			t.Errorf("Uninstall(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	// Before keeps an approval the file had: it may be the user's own,
	// given before any install.
	in := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/old/cairn hook stop"}]}]},"enabledMcpjsonServers":["cairn"]}`
	if got, err := approval.Before([]byte(in)); err != nil || string(got) != `{"enabledMcpjsonServers":["cairn"]}` {
		t.Errorf("Before = %s, %v", got, err)
	}
}

// TestMCPApproval: what doctor reads of the settings files.
func TestMCPApproval(t *testing.T) {
	for _, tt := range []struct {
		in                 string
		approved, rejected bool
	}{
		{`{}`, false, false},
		{`{"enabledMcpjsonServers":["cairn"]}`, true, false},
		{`{"enabledMcpjsonServers":["cairnx"]}`, false, false},
		{`{"enableAllProjectMcpServers":true}`, true, false},
		{`{"enableAllProjectMcpServers":false}`, false, false},
		{`{"enabledMcpjsonServers":["cairn"],"disabledMcpjsonServers":["cairn"]}`, true, true},
	} {
		a, r, err := MCPApproval([]byte(tt.in), "cairn")
		if err != nil || a != tt.approved || r != tt.rejected {
			t.Errorf("MCPApproval(%s) = %v %v %v", tt.in, a, r, err)
		}
	}
}

func TestPluginEnabled(t *testing.T) {
	for _, tt := range []struct {
		in                string
		enabled, mentions bool
	}{
		{`{}`, false, false},
		{`{"enabledPlugins":{"cairn@cairn":true}}`, true, true},
		{`{"enabledPlugins":{"cairn@other-market":true}}`, true, true},
		{`{"enabledPlugins":{"cairn@cairn":false}}`, false, true},
		{`{"enabledPlugins":{"cairn@cairn":["0.2.0"]}}`, false, true},
		{`{"enabledPlugins":{"cairnx@cairn":true,"formatter@cairn":true}}`, false, false},
	} {
		e, m, err := PluginEnabled([]byte(tt.in), "cairn")
		if err != nil || e != tt.enabled || m != tt.mentions {
			t.Errorf("PluginEnabled(%s) = %v %v %v", tt.in, e, m, err)
		}
	}
}

// TestMCPErrors: files cairn will not edit, with where and why.
func TestMCPErrors(t *testing.T) {
	for _, tt := range []struct {
		w        Wiring
		in, want string
	}{
		{projectServer, `{"mcpServers": []}`, `line 1, column 16: "mcpServers" is an array, want an object whose keys are server names`},
		{projectServer, "{\n\t\"mcpServers\": {\n\t\t\"a\": {},\r\n\t\t\"a\": {}\n\t}\n}", `line 4, column 3: duplicate key "a" (also at line 3, column 3): Claude Code reads only the last one and ignores the other, so cairn will not edit this file; merge the two into one`},
		{userServer, "{\"numStartups\": 1,\n \"projects\": {\"/p\": {\"x\": 1, \"x\": 2}}}", `line 2, column 30: duplicate key "x" (also at line 2, column 22): Claude Code reads only the last one and ignores the other, so cairn will not edit this file; merge the two into one`},
		{userServer, `{"mcpServers": {}, "oauthAccount": {"a": }}`, `line 1, column 42: unexpected '}', want a value`},
		{approval, `{"enabledMcpjsonServers": "cairn"}`, `line 1, column 27: "enabledMcpjsonServers" is a string, want an array of server names`},
		{approval, `{"enabledMcpjsonServers": ["a", 2]}`, `line 1, column 33: enabledMcpjsonServers[1] is a number, want a server name`},
	} {
		t.Run(tt.want, func(t *testing.T) {
			for _, f := range []func() error{
				func() error { _, _, err := tt.w.Install([]byte(tt.in)); return err },
				func() error { _, _, err := tt.w.Uninstall([]byte(tt.in), nil); return err },
				func() error { _, err := tt.w.Before([]byte(tt.in)); return err },
			} {
				err := f()
				var se *Error
				if !errors.As(err, &se) || err.Error() != tt.want {
					t.Errorf("err = %v\nwant  %s", err, tt.want)
				}
			}
		})
	}
}

// TestServerRecord: the journal keeps of ~/.claude.json only what
// uninstall reads, never the client's state or another server's secrets,
// and the round trip through the files still gives back the very bytes,
// with the file's mode.
func TestServerRecord(t *testing.T) {
	dir := t.TempDir()
	j := Journal{Dir: filepath.Join(dir, "journal")}
	path := filepath.Join(dir, ".claude.json")
	orig := "{\n  \"numStartups\": 12,\n  \"oauthAccount\": {\n    \"emailAddress\": \"me@example.com\"\n  },\n  \"mcpServers\": {\n    \"github\": {\n      \"type\": \"stdio\",\n      \"command\": \"npx\",\n      \"args\": [],\n      \"env\": {\n        \"GITHUB_TOKEN\": \"ghp_secret\"\n      }\n    }\n  }\n}"
	os.WriteFile(path, []byte(orig), 0o600)
	os.Chmod(path, 0o600)
	if res, err := userServer.InstallFile(path, j); err != nil || !res.Changed {
		t.Fatalf("install: %+v, %v", res, err)
	}
	recs := names(t, j.Dir)
	if len(recs) != 1 {
		t.Fatalf("journal holds %v", recs)
	}
	rec := readFile(t, filepath.Join(j.Dir, recs[0]))
	for _, secret := range []string{"me@example.com", "ghp_secret", "numStartups"} {
		if strings.Contains(rec, secret) || strings.Contains(rec, b64(secret)) {
			t.Errorf("the journal keeps %q of ~/.claude.json: %s", secret, rec)
		}
	}
	// The client writes its state in between: it stays.
	now := strings.Replace(readFile(t, path), `"numStartups": 12`, `"numStartups": 13`, 1)
	os.WriteFile(path, []byte(now), 0o600)
	if res, err := userServer.UninstallFile(path, j); err != nil || !res.Changed || res.Removed {
		t.Fatalf("uninstall: %+v, %v", res, err)
	}
	if got, want := readFile(t, path), strings.Replace(orig, `"numStartups": 12`, `"numStartups": 13`, 1); got != want {
		t.Errorf("after uninstall:\n%s\nwant\n%s", got, want)
	}
	if m := stat(t, path).Mode().Perm(); runtime.GOOS != "windows" && m != 0o600 {
		t.Errorf("mode %v, want 0600", m)
	}

	// A file install creates is the client's mode, 0600, and goes again.
	fresh := filepath.Join(dir, "cfg", ".claude.json")
	if res, err := userServer.InstallFile(fresh, j); err != nil || !res.Created {
		t.Fatalf("install: %+v, %v", res, err)
	}
	if m := stat(t, fresh).Mode().Perm(); runtime.GOOS != "windows" && m != 0o600 {
		t.Errorf("new file: mode %v, want 0600", m)
	}
	if res, err := userServer.UninstallFile(fresh, j); err != nil || !res.Removed {
		t.Fatalf("uninstall: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Dir(fresh)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directory install made stays: %v", err)
	}
}

// b64 is s as the journal's JSON would hold it inside Before.
func b64(s string) string {
	b, _ := json.Marshal([]byte(s))
	return strings.Trim(string(b), `"`)
}

// TestRandomServers: on random documents with servers and approvals,
// laid out in random ways, install then uninstall with the record gives
// back the very bytes.
func TestRandomServers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		data := randomServers(r)
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkServerEdits(t, data) })
	}
}

func FuzzRandomServers(f *testing.F) {
	for i := range uint64(20) {
		f.Add(i, i*7919)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		checkServerEdits(t, randomServers(rand.New(rand.NewPCG(s1, s2))))
	})
}

// FuzzServerEdit runs the edits on arbitrary bytes: they never panic,
// refuse a document all alike, and otherwise keep checkServerEdits'
// promises.
func FuzzServerEdit(f *testing.F) {
	addFiles(f)
	for _, s := range []string{`{"mcpServers":{"cairn":{"command":"cairn","args":["mcp"]}}}`, `{"enabledMcpjsonServers":["cairn",1]}`, `{"mcpServers":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, w := range []Wiring{projectServer, approval} {
			_, _, err := w.Install(data)
			if err == nil {
				continue
			}
			for _, e := range []error{
				func() error { _, _, err := w.Uninstall(data, nil); return err }(),
				func() error { _, err := w.Before(data); return err }(),
			} {
				if e == nil || e.Error() != err.Error() {
					t.Fatalf("got %v, want %v", e, err)
				}
			}
			return
		}
		checkServerEdits(t, data)
	})
}

// checkServerEdits holds the server's and the approval's edits to their
// promises on a document they accept: a second Install changes nothing,
// and Uninstall with the journal's record of the document before gives
// that back byte for byte, cairn's server gone.
func checkServerEdits(t *testing.T, data []byte) {
	t.Helper()
	for _, w := range []Wiring{projectServer, userServer, approval} {
		installed, _, err := w.Install(data)
		if err != nil {
			t.Fatalf("Install: %v on\n%s", err, data)
		}
		if !json.Valid(installed) {
			t.Fatalf("Install wrote invalid JSON:\n%s", installed)
		}
		if again, changed, err := w.Install(installed); err != nil || changed || !bytes.Equal(again, installed) {
			t.Fatalf("second Install: changed %v, %v, on\n%s", changed, err, installed)
		}
		before, err := w.Before(data)
		if err != nil {
			t.Fatal(err)
		}
		back, _, err := w.Uninstall(installed, w.record(before))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back, before) {
			t.Fatalf("round trip changed the bytes:\n%s\ninstalled:\n%s", cmp.Diff(string(before), string(back)), installed)
		}
		if st, _, _ := w.Server(back); w.MCP != nil && st == OurServer {
			t.Fatalf("cairn's server left in\n%s", back)
		}
	}
}

// randomServers writes a document with "mcpServers" and
// "enabledMcpjsonServers" as the client and users write them, cairn's
// server among them or not, someone else's under its name or not.
func randomServers(r *rand.Rand) []byte {
	g := &generator{r: r}
	root := objectNode()
	for range r.IntN(6) {
		switch k := pick(r, "mcpServers", "mcpServers", "enabledMcpjsonServers", "numStartups", "projects", "x"); k {
		case "mcpServers":
			all := objectNode()
			for range r.IntN(4) {
				g.add(all, pick(r, "cairn", "github", "db", "cairn2"), g.server())
			}
			g.add(root, k, all)
		case "enabledMcpjsonServers":
			arr := arrayNode()
			for range r.IntN(4) {
				arr.elems = append(arr.elems, stringNode(pick(r, "cairn", "github", "x")))
			}
			g.add(root, k, arr)
		default:
			g.add(root, k, g.value(3))
		}
	}
	return g.layout(root)
}

func (g *generator) server() *node {
	cmd := pick(g.r, "cairn", "/old/bin/cairn", "/usr/local/bin/cairn", "npx", "cairnx")
	args := arrayNode()
	for _, a := range pick(g.r, []string{"mcp"}, []string{"mcp"}, []string{"-y", "x"}, []string{}) {
		args.elems = append(args.elems, stringNode(a))
	}
	e := g.obj("command", stringNode(cmd), "args", args)
	if g.r.IntN(3) == 0 {
		g.add(e, "type", stringNode(pick(g.r, "stdio", "http")))
	}
	if g.r.IntN(3) == 0 {
		g.add(e, "env", g.obj("TOKEN", stringNode("t")))
	}
	return e
}

// TestLock: cairn takes the client's lock on ~/.claude.json, waits for a
// holder, takes over one left stale, and gives up on one held too long.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude.json")
	unlock, err := Lock(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatalf("no lock directory: %v", err)
	}
	if _, err := Lock(path, 50*time.Millisecond); err == nil || !strings.Contains(err.Error(), "locked by Claude Code") {
		t.Errorf("a held lock: %v", err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		unlock()
	}()
	unlock2, err := Lock(path, 5*time.Second)
	if err != nil {
		t.Fatalf("waiting for the holder: %v", err)
	}
	unlock2()
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock stays after unlock: %v", err)
	}

	// A holder that died 11 seconds ago.
	os.Mkdir(path+".lock", 0o755)
	old := time.Now().Add(-lockStale - time.Second)
	os.Chtimes(path+".lock", old, old)
	unlock3, err := Lock(path, 50*time.Millisecond)
	if err != nil {
		t.Fatalf("a stale lock: %v", err)
	}
	unlock3()

	// No directory for the file: nothing to lock, nothing made.
	missing := filepath.Join(dir, "none", ".claude.json")
	unlock4, err := Lock(missing, 50*time.Millisecond)
	if err != nil {
		t.Fatalf("a file in a missing directory: %v", err)
	}
	unlock4()
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lock made the directory: %v", err)
	}
}
