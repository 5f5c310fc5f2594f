package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSessions: a project's chats by projects.json, the stray two-line
// file a resume leaves dropped for the session's real chat, newest first;
// without projects.json, the directory whose .project_root names the
// project.
func TestSessions(t *testing.T) {
	home := t.TempDir()
	root := "/work/my-proj"
	chats := filepath.Join(home, "tmp", "my-proj", "chats")
	os.MkdirAll(chats, 0o755)
	header := func(id string) string {
		return `{"sessionId":"` + id + `","projectHash":"x","startTime":"2026-11-24T08:30:16.306Z","kind":"main"}` + "\n"
	}
	write := func(name, content string, age time.Duration) {
		p := filepath.Join(chats, name)
		os.WriteFile(p, []byte(content), 0o600)
		at := time.Now().Add(-age)
		os.Chtimes(p, at, at)
	}
	write("session-2026-11-24T08-30-aaaaaaaa.jsonl", header("aaaaaaaa-1")+strings.Repeat(`{"$set":{}}`+"\n", 20), 2*time.Hour)
	write("session-2026-11-24T09-30-aaaaaaaa.jsonl", header("aaaaaaaa-1")+`{"$set":{}}`+"\n", time.Hour) // a resume's stray
	write("session-2026-11-24T10-30-bbbbbbbb.jsonl", header("bbbbbbbb-2"), 3*time.Hour)
	write("session-2026-11-24T11-30-cccccccc.jsonl", "not json\n", 0)
	os.WriteFile(filepath.Join(home, "projects.json"), []byte(`{"projects":{"/work/my-proj":"my-proj"}}`), 0o600)

	got, err := Sessions(home, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "aaaaaaaa-1" || !strings.HasSuffix(got[0].Path, "T08-30-aaaaaaaa.jsonl") || got[1].ID != "bbbbbbbb-2" {
		t.Errorf("Sessions = %+v", got)
	}
	if got, err := Projects(home); err != nil || len(got) != 1 || got[0] != root {
		t.Errorf("Projects = %q, %v; want %s", got, err, root)
	}
	if got, _ := Sessions(home, "/work/other"); len(got) != 0 {
		t.Errorf("another project's sessions: %+v", got)
	}
	os.Remove(filepath.Join(home, "projects.json"))
	if got, _ := Sessions(home, root); len(got) != 0 {
		t.Errorf("no projects.json, no .project_root: %+v", got)
	}
	os.WriteFile(filepath.Join(home, "tmp", "my-proj", ".project_root"), []byte(root), 0o600)
	if got, _ := Sessions(home, root); len(got) != 2 {
		t.Errorf("by .project_root: %+v", got)
	}
	if got, err := Projects(home); err != nil || len(got) != 1 || got[0] != root {
		t.Errorf("Projects by .project_root = %q, %v; want %s", got, err, root)
	}
	for _, parent := range []string{"/work", "/"} {
		if got, _ := Sessions(home, parent); len(got) != 2 {
			t.Errorf("the projects inside %s: %+v", parent, got)
		}
	}
	if got, _ := Sessions(home, "/work/my"); len(got) != 0 {
		t.Errorf("a directory whose name the project's starts with: %+v", got)
	}
	if got, err := Sessions(filepath.Join(home, "none"), root); err != nil || len(got) != 0 {
		t.Errorf("no home: %+v, %v", got, err)
	}
}
