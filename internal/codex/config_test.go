package codex

import (
	"maps"
	"testing"
)

func TestTableStrings(t *testing.T) {
	doc := `model = "gpt-5.5"

[projects."/home/me/proj"]
trust_level = "trusted" # by /trust

[hooks.state."/home/me/proj/.codex/hooks.json:session_start:0:0"]
trusted_hash = "sha256:ab"

[ mcp_servers . 'cairn' ]
command = '/usr/bin/cairn'
args = ["mcp"]
startup_timeout_sec = 10

[[profiles]]
name = "x"
`
	tests := []struct {
		name string
		path []string
		want map[string]string
		ok   bool
	}{
		{"quoted key", []string{"projects", "/home/me/proj"}, map[string]string{"trust_level": "trusted"}, true},
		{"hook trust", []string{"hooks", "state", "/home/me/proj/.codex/hooks.json:session_start:0:0"}, map[string]string{"trusted_hash": "sha256:ab"}, true},
		{"literal key and value, spaces", []string{"mcp_servers", "cairn"}, map[string]string{"command": "/usr/bin/cairn"}, true},
		{"no such table", []string{"projects", "/elsewhere"}, nil, false},
		{"a prefix is not the table", []string{"hooks"}, nil, false},
		{"array of tables", []string{"profiles"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := TableStrings([]byte(doc), tt.path...)
			if ok != tt.ok || !maps.Equal(got, tt.want) {
				t.Errorf("TableStrings(%q) = %v, %v; want %v, %v", tt.path, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzTableStrings(f *testing.F) {
	f.Add([]byte("[a.\"b\"]\nk = \"v\"\n"), "a", "b")
	f.Add([]byte("[ x . 'y' ]\nk = 'v' # c\n[z]\n"), "x", "y")
	f.Fuzz(func(t *testing.T, doc []byte, a, b string) {
		vals, ok := TableStrings(doc, a, b)
		if !ok && vals != nil {
			t.Errorf("no table but values %v", vals)
		}
	})
}

// TestUntrusted: the entries AddTrust wrote are trusted; one whose hook
// changed since (another hash) or that was never trusted is not.
func TestUntrusted(t *testing.T) {
	a := Trust{Key: "/p/.codex/hooks.json:session_start:0:0", Hash: "sha256:aa"}
	b := Trust{Key: "/p/.codex/hooks.json:pre_compact:0:0", Hash: "sha256:bb"}
	doc, _ := AddTrust([]byte("model = \"m\"\n"), []Trust{a})
	if got := Untrusted(doc, []Trust{a, b}); len(got) != 1 || got[0] != b {
		t.Errorf("Untrusted = %v, want [%v]", got, b)
	}
	stale := Trust{Key: a.Key, Hash: "sha256:cc"}
	if got := Untrusted(doc, []Trust{stale}); len(got) != 1 {
		t.Errorf("a changed hook counts as trusted: %v", got)
	}
}
