package codex

import (
	"strings"
	"testing"
)

// TestHashObserved: the hashes Codex 0.169.0's /hooks screen wrote into
// config.toml for the two hooks of shared/codex/configs/project-.codex-hooks.json.
func TestHashObserved(t *testing.T) {
	doc := []byte(`{"hooks": {"SessionStart": [{"matcher": "startup|resume", "hooks": [{"type": "command", "command": "echo PROJECT-HOOK-SS-MARK"}]}], "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo UPS-PLAIN-MARK"}]}]}}`)
	got, err := Entries(doc, "/home/user/proj/.codex/hooks.json", func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	want := []Trust{
		{"/home/user/proj/.codex/hooks.json:session_start:0:0", "sha256:b52331dcf8d894d02e19e5ea4cc76f5c11a635f121b3fd2829c0e326c0af8d57"},
		{"/home/user/proj/.codex/hooks.json:user_prompt_submit:0:0", "sha256:1141a919238180aa781dd66fc6edae294ce5ad29f7ad38127f59ccbc5c907fd4"},
	}
	if len(got) != len(want) {
		t.Fatalf("Entries = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "PreCompact": "pre_compact", "Stop": "stop"} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTrustRoundTrip: RemoveTrust after AddTrust gives back the very
// bytes, whatever the file's end; a second AddTrust changes nothing.
func TestTrustRoundTrip(t *testing.T) {
	path := "/p/.codex/hooks.json"
	entries := []Trust{{Key: path + ":session_start:1:0", Hash: "sha256:aa"}, {Key: path + ":pre_compact:0:0", Hash: "sha256:bb"}}
	hashes := map[string]bool{"sha256:aa": true, "sha256:bb": true}
	docs := map[string]string{
		"empty":              "",
		"final newline":      "model = \"x\"\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n",
		"no final newline":   "model = \"x\"",
		"crlf":               "model = \"x\"\r\n",
		"users trust":        "[hooks.state.\"/p/.codex/hooks.json:session_start:0:0\"]\ntrusted_hash = \"sha256:cc\"\n",
		"other path ours":    "[hooks.state.\"/q/.codex/hooks.json:session_start:1:0\"]\ntrusted_hash = \"sha256:aa\"\n",
		"just a newline":     "\n",
		"blank lines at end": "a = 1\n\n\n",
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			added, changed := AddTrust([]byte(doc), entries)
			if !changed {
				t.Fatal("AddTrust changed nothing")
			}
			for _, e := range entries {
				if !strings.Contains(string(added), `[hooks.state."`+e.Key+`"]`+"\ntrusted_hash = \""+e.Hash+"\"") {
					t.Errorf("no entry for %s in\n%s", e.Key, added)
				}
			}
			if again, changed := AddTrust(added, entries); changed || string(again) != string(added) {
				t.Errorf("AddTrust again changed the file:\n%s", again)
			}
			back, changed := RemoveTrust(added, path, hashes)
			if !changed || string(back) != doc {
				t.Errorf("RemoveTrust = %q (changed %v), want %q", back, changed, doc)
			}
		})
	}
}

func TestAddTrustReplacesStaleHash(t *testing.T) {
	doc := "[hooks.state.\"/p/h.json:session_start:0:0\"]\ntrusted_hash = \"sha256:old\"\n"
	got, changed := AddTrust([]byte(doc), []Trust{{Key: "/p/h.json:session_start:0:0", Hash: "sha256:new"}})
	if !changed || string(got) != "[hooks.state.\"/p/h.json:session_start:0:0\"]\ntrusted_hash = \"sha256:new\"\n" {
		t.Errorf("AddTrust = %q, %v", got, changed)
	}
}

func FuzzTrustRoundTrip(f *testing.F) {
	f.Add("model = 1\n")
	f.Add("[hooks.state.\"/p/h.json:stop:0:0\"]\ntrusted_hash = \"sha256:aa\"")
	f.Fuzz(func(t *testing.T, doc string) {
		if strings.Contains(doc, "[hooks.state.") {
			return // a document with entries of its own may hold ours
		}
		entries := []Trust{{Key: "/p/h.json:session_start:0:0", Hash: "sha256:aa"}}
		added, _ := AddTrust([]byte(doc), entries)
		back, _ := RemoveTrust(added, "/p/h.json", map[string]bool{"sha256:aa": true})
		if string(back) != doc {
			t.Errorf("round trip of %q gave %q", doc, back)
		}
	})
}

// TestHashMatcher: hashes of cairn's own hooks, as install writes them
// ("matcher": ""), that the real client 0.169.0 accepted (checked by
// hand: each ran in `codex exec` without the bypass flag).
func TestHashMatcher(t *testing.T) {
	empty := ""
	tests := []struct {
		event, command string
		timeout        int
		want           string
	}{
		{"UserPromptSubmit", "/tmp/cx/cairn hook --agent codex UserPromptSubmit", 10, "sha256:ca4b5e118be9a607f81a3d4aa733a1fd705d221d823fb75410cd415b0239a3ed"},
	}
	for _, tt := range tests {
		t.Run(tt.event, func(t *testing.T) {
			if got := Hash(tt.event, &empty, tt.command, tt.timeout); got != tt.want {
				t.Errorf("Hash = %s, want %s", got, tt.want)
			}
		})
	}
	if Hash("SessionStart", &empty, "c", 1) == Hash("SessionStart", nil, "c", 1) {
		t.Error("SessionStart's empty matcher is not hashed")
	}
}
