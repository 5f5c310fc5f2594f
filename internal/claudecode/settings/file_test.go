package settings

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func stat(t *testing.T, path string) fs.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// names lists dir, to catch temporary files and backups left behind.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// tree lists every file and directory under root with its content, to
// compare a project before and after.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			m[rel+"/"] = ""
		} else {
			m[rel] = readFile(t, p)
		}
		return nil
	})
	return m
}

// TestFileRoundTripNoDirectory: in a project without .claude, install
// creates the file and the directory, and uninstall removes both, and
// forgets its record: the project and the journal are as before.
func TestFileRoundTripNoDirectory(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "proj")
	os.MkdirAll(project, 0o755)
	os.WriteFile(filepath.Join(project, "README.md"), []byte("hi\n"), 0o644)
	j := Journal{Dir: filepath.Join(root, "journal")}
	path := filepath.Join(project, ".claude", "settings.local.json")
	want := tree(t, project)

	res, err := full.InstallFile(path, j)
	if err != nil || !res.Changed || !res.Created {
		t.Fatalf("install: %+v, %v", res, err)
	}
	if !slices.Equal(res.Dirs, []string{filepath.Join(project, ".claude")}) {
		t.Errorf("created %v", res.Dirs)
	}
	if m := stat(t, path).Mode().Perm(); runtime.GOOS != "windows" && m != 0o644 {
		t.Errorf("mode %v, want 0644", m)
	}
	if got := names(t, filepath.Dir(path)); !slices.Equal(got, []string{"settings.local.json"}) {
		t.Errorf(".claude holds %v, want the file alone (no backup)", got)
	}
	for _, f := range names(t, j.Dir) {
		if m := stat(t, filepath.Join(j.Dir, f)).Mode().Perm(); runtime.GOOS != "windows" && m != 0o600 {
			t.Errorf("journal file %s: mode %v, want 0600", f, m)
		}
	}
	if m := stat(t, j.Dir).Mode().Perm(); runtime.GOOS != "windows" && m != 0o700 {
		t.Errorf("journal: mode %v, want 0700", m)
	}

	before := stat(t, path)
	if res, err := full.InstallFile(path, j); err != nil || res.Changed {
		t.Fatalf("second install: %+v, %v", res, err)
	}
	if !os.SameFile(before, stat(t, path)) {
		t.Error("an install that changed nothing replaced the file")
	}

	res, err = full.UninstallFile(path, j)
	if err != nil || !res.Changed || !res.Removed {
		t.Fatalf("uninstall: %+v, %v", res, err)
	}
	if got := tree(t, project); !mapsEqual(got, want) {
		t.Errorf("project after the round trip: %v, want %v", got, want)
	}
	if got := names(t, j.Dir); len(got) != 0 {
		t.Errorf("journal keeps %v after uninstall", got)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestFileRoundTripKeepsBytesAndMode: a hand-written file comes back byte
// for byte, with its mode, and no backup is left beside it.
func TestFileRoundTripKeepsBytesAndMode(t *testing.T) {
	dir := t.TempDir()
	j := Journal{Dir: filepath.Join(dir, "journal")}
	path := filepath.Join(dir, "settings.json")
	orig := readFile(t, filepath.Join("testdata", "in", "tabs.json"))
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o600) // in case the umask took bits away

	if res, err := full.InstallFile(path, j); err != nil || !res.Changed || res.Created {
		t.Fatalf("install: %+v, %v", res, err)
	}
	if installed := readFile(t, path); !strings.Contains(installed, "\n\t\"hooks\": {\n\t\t\"SessionStart\": [") {
		t.Errorf("not in the file's layout:\n%s", installed)
	}
	if m := stat(t, path).Mode().Perm(); runtime.GOOS != "windows" && m != 0o600 {
		t.Errorf("mode %v, want 0600", m)
	}
	// The user edits the file in between, elsewhere: the edit stays.
	edited := strings.Replace(readFile(t, path), `"model": "opus"`, `"model": "sonnet"`, 1)
	os.WriteFile(path, []byte(edited), 0o600)
	if res, err := full.UninstallFile(path, j); err != nil || !res.Changed || res.Removed {
		t.Fatalf("uninstall: %+v, %v", res, err)
	}
	if got, want := readFile(t, path), strings.Replace(orig, `"model": "opus"`, `"model": "sonnet"`, 1); got != want {
		t.Errorf("after uninstall:\n%q\nwant\n%q", got, want)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"journal", "settings.json"}) {
		t.Errorf("directory holds %v", got)
	}
}

// TestFileRecordKept: a second install, and an install by another cairn,
// keep the record of the file before the first; an install into a file
// whose wiring went by hand records it anew.
func TestFileRecordKept(t *testing.T) {
	dir := t.TempDir()
	j := Journal{Dir: filepath.Join(dir, "journal")}
	path := filepath.Join(dir, "settings.json")
	orig := "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"~/sl.sh\"}\n}\n"
	os.WriteFile(path, []byte(orig), 0o644)
	if _, err := full.InstallFile(path, j); err != nil {
		t.Fatal(err)
	}
	moved := full
	moved.Hooks = slices.Clone(cairnHooks)
	for i := range moved.Hooks {
		moved.Hooks[i].Command = "/new/" + moved.Hooks[i].Command
	}
	moved.StatusLine = "/new/cairn statusline"
	if res, err := moved.InstallFile(path, j); err != nil || !res.Changed {
		t.Fatalf("install by another cairn: %+v, %v", res, err)
	}
	if _, err := moved.UninstallFile(path, j); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != orig {
		t.Errorf("after uninstall:\n%s", got)
	}

	// A stale record: the file changed by hand after an install's wiring went.
	if _, err := full.InstallFile(path, j); err != nil {
		t.Fatal(err)
	}
	mine := "{\"model\": \"opus\"}\n"
	os.WriteFile(path, []byte(mine), 0o644)
	if _, err := full.InstallFile(path, j); err != nil {
		t.Fatal(err)
	}
	if _, err := full.UninstallFile(path, j); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != mine {
		t.Errorf("after uninstall:\n%s\nwant\n%s", got, mine)
	}
}

// TestFileOlderInstall: a file an older cairn wired, with no record, gets
// its wiring taken out; with the backup that cairn kept, the file gets
// the backup's bytes back and the backup goes; a file that cairn created
// goes.
func TestFileOlderInstall(t *testing.T) {
	dir := t.TempDir()
	j := Journal{Dir: filepath.Join(dir, "journal")}
	path := filepath.Join(dir, "settings.json")
	old := Wiring{Hooks: cairnHooks, IsOurs: isCairn, StatusLine: "/old/cairn statusline", StatusOurs: isCairnStatus}

	// The older cairn rewrote a tab-indented file in two spaces.
	orig := readFile(t, filepath.Join("testdata", "in", "tabs.json"))
	rewritten, _, err := old.Install([]byte(doc(t, orig)))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, rewritten, 0o644)
	os.WriteFile(path+BackupSuffix, []byte(orig), 0o644)
	res, err := full.UninstallFile(path, j)
	if err != nil || !res.Changed || res.FromBackup != path+BackupSuffix {
		t.Fatalf("uninstall: %+v, %v", res, err)
	}
	if got := readFile(t, path); got != orig {
		t.Errorf("not the backup's bytes:\n%s", got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"settings.json"}) {
		t.Errorf("directory holds %v, want the backup gone", got)
	}

	// A backup that is not the file without cairn stays, and so does the file's layout.
	os.WriteFile(path, rewritten, 0o644)
	os.WriteFile(path+BackupSuffix, []byte(`{"model": "other"}`), 0o644)
	if res, err := full.UninstallFile(path, j); err != nil || res.FromBackup != "" || res.Removed {
		t.Fatalf("uninstall: %+v, %v", res, err)
	}
	if got := readFile(t, path); got != doc(t, orig) {
		t.Errorf("after uninstall:\n%s", got)
	}
	os.Remove(path + BackupSuffix)

	// No backup and nothing but {} left: the older cairn made the file.
	made, _, _ := old.Install(nil)
	os.WriteFile(path, made, 0o644)
	if res, err := full.UninstallFile(path, j); err != nil || !res.Removed {
		t.Fatalf("uninstall: %+v, %v", res, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file cairn made is still there: %v", err)
	}
}

func TestFileRefusesInvalid(t *testing.T) {
	for _, in := range []string{"comments", "duplicate-keys"} {
		dir := t.TempDir()
		j := Journal{Dir: filepath.Join(dir, "journal")}
		path := filepath.Join(dir, "settings.json")
		orig := readFile(t, filepath.Join("testdata", "in", in+".json"))
		os.WriteFile(path, []byte(orig), 0o644)
		for name, f := range map[string]func() (FileResult, error){
			"install":   func() (FileResult, error) { return full.InstallFile(path, j) },
			"uninstall": func() (FileResult, error) { return full.UninstallFile(path, j) },
		} {
			t.Run(in+"/"+name, func(t *testing.T) {
				res, err := f()
				if res.Changed {
					t.Error("changed")
				}
				var se *Error
				if !errors.As(err, &se) || se.Path != path || !strings.HasPrefix(err.Error(), path+":") {
					t.Errorf("err = %v, want an *Error naming the file", err)
				}
				if got := readFile(t, path); got != orig {
					t.Error("file was changed")
				}
				if got := names(t, dir); !slices.Equal(got, []string{"settings.json"}) {
					t.Errorf("directory holds %v, want the file alone", got)
				}
			})
		}
	}
}

func TestUninstallFileMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	res, err := full.UninstallFile(filepath.Join(dir, "settings.json"), Journal{})
	if err != nil || res.Changed {
		t.Fatalf("%+v, %v", res, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("uninstalling from a missing file made its directory: %v", err)
	}
}

// TestJournalDirs: the directories made for a path go only when empty,
// innermost first, and only those made.
func TestJournalDirs(t *testing.T) {
	root := t.TempDir()
	j := Journal{Dir: filepath.Join(root, "journal")}
	dir := filepath.Join(root, "proj", ".claude", "commands")
	os.MkdirAll(filepath.Join(root, "proj"), 0o755)
	made, err := j.MkdirAll(dir)
	if err != nil || !slices.Equal(made, []string{filepath.Join(root, "proj", ".claude"), dir}) {
		t.Fatalf("made %v, %v", made, err)
	}
	if again, err := j.MkdirAll(dir); err != nil || len(again) != 0 {
		t.Errorf("second MkdirAll made %v, %v", again, err)
	}
	os.WriteFile(filepath.Join(root, "proj", ".claude", "mine"), nil, 0o644)
	removed, err := j.RemoveDirs(dir)
	if err != nil || !slices.Equal(removed, []string{dir}) {
		t.Errorf("removed %v, %v", removed, err)
	}
	if _, err := os.Stat(filepath.Join(root, "proj", ".claude", "mine")); err != nil {
		t.Error("removed a directory that is not empty")
	}
	if removed, err := j.RemoveDirs(dir); err != nil || len(removed) != 0 {
		t.Errorf("removed %v, %v with the directory still not empty", removed, err)
	}
	// Once it is empty, the record made for dir still says it is cairn's.
	os.Remove(filepath.Join(root, "proj", ".claude", "mine"))
	if removed, err := j.RemoveDirs(dir); err != nil || !slices.Equal(removed, []string{filepath.Join(root, "proj", ".claude")}) {
		t.Errorf("removed %v, %v once empty", removed, err)
	}
	if names(t, j.Dir) != nil {
		t.Errorf("the journal keeps %v", names(t, j.Dir))
	}
}

func TestInstallFileThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	j := Journal{Dir: filepath.Join(dir, "journal")}
	target := filepath.Join(dir, "dotfiles", "claude-settings.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte("{}\n"), 0o644)
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if res, err := hooksOnly.InstallFile(link, j); err != nil || !res.Changed {
		t.Fatalf("%+v, %v", res, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced by a file (%v)", err)
	}
	if !strings.Contains(readFile(t, target), "cairn hook session-start") {
		t.Error("the symlink's target was not updated")
	}
	if res, err := hooksOnly.UninstallFile(link, j); err != nil || !res.Changed {
		t.Fatalf("%+v, %v", res, err)
	}
	if got := readFile(t, target); got != "{}\n" {
		t.Errorf("target holds %q after the round trip", got)
	}

	os.Remove(target)
	if _, err := hooksOnly.InstallFile(link, j); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("dangling symlink: err = %v, want one about the symlink", err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Errorf("dangling symlink removed: %v", err)
	}
}

// TestEditRetriesWhenRaced has another writer change the file while the
// edit is being computed, as Claude Code might: its write must survive.
func TestEditRetriesWhenRaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte("{}\n"), 0o644)
	calls := 0
	changed, err := edit(path, 0o644, func(data []byte, _ bool) ([]byte, bool, error) {
		calls++
		if calls == 1 {
			os.WriteFile(path, []byte(`{"model": "opus"}`), 0o644)
		}
		return hooksWiring(cairnHooks[:1]).Install(data)
	})
	if err != nil || !changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	if calls != 2 {
		t.Errorf("edit ran %d times, want 2", calls)
	}
	if got := readFile(t, path); !strings.Contains(got, `"model": "opus"`) || !strings.Contains(got, "cairn hook") {
		t.Errorf("lost a write:\n%s", got)
	}
}

func TestEditGivesUpWhenAlwaysRaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte("{}"), 0o644)
	n := 0
	_, err := edit(path, 0o644, func(data []byte, _ bool) ([]byte, bool, error) {
		n++
		os.WriteFile(path, bytes.Repeat([]byte(" "), n), 0o644)
		return []byte("{}\n"), true, nil
	})
	if !errors.Is(err, errRaced) {
		t.Errorf("err = %v, want errRaced", err)
	}
	if got := readFile(t, path); got != "   " {
		t.Errorf("file holds %q, want the other writer's", got)
	}
}
