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

// names lists dir, to catch temporary files left behind.
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

func TestInstallFileCreates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj", ".claude")
	path := filepath.Join(dir, "settings.json")
	changed, err := InstallFile(path, cairnHooks, isCairn)
	if err != nil || !changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	want, _, _ := Install(nil, cairnHooks, isCairn)
	if got := readFile(t, path); got != string(want) {
		t.Errorf("content:\n%s\nwant\n%s", got, want)
	}
	if runtime.GOOS != "windows" {
		if m := stat(t, path).Mode().Perm(); m != 0o644 {
			t.Errorf("mode %v, want 0644", m)
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"settings.json"}) {
		t.Errorf("directory holds %v, want only settings.json (no backup of a file that did not exist)", got)
	}

	before := stat(t, path)
	changed, err = InstallFile(path, cairnHooks, isCairn)
	if err != nil || changed {
		t.Fatalf("second install: changed %v, err %v", changed, err)
	}
	if !os.SameFile(before, stat(t, path)) {
		t.Error("an install that changed nothing replaced the file")
	}
	if got := names(t, dir); !slices.Equal(got, []string{"settings.json"}) {
		t.Errorf("directory holds %v after a no-op", got)
	}
}

func TestInstallFileKeepsModeAndBacksUp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	orig := readFile(t, filepath.Join("testdata", "in", "full.json"))
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o600) // in case the umask took bits away

	if changed, err := InstallFile(path, cairnHooks, isCairn); err != nil || !changed {
		t.Fatalf("install: changed %v, err %v", changed, err)
	}
	installed := readFile(t, path)
	if want := readFile(t, filepath.Join("testdata", "golden", "full.install.json")); installed != want {
		t.Errorf("installed:\n%s\nwant\n%s", installed, want)
	}
	if got := readFile(t, path+BackupSuffix); got != orig {
		t.Errorf("backup holds\n%s\nwant the original", got)
	}
	if runtime.GOOS != "windows" {
		for _, p := range []string{path, path + BackupSuffix} {
			if m := stat(t, p).Mode().Perm(); m != 0o600 {
				t.Errorf("%s: mode %v, want 0600", p, m)
			}
		}
	}

	if changed, err := UninstallFile(path, isCairn); err != nil || !changed {
		t.Fatalf("uninstall: changed %v, err %v", changed, err)
	}
	if got := readFile(t, path); got != orig {
		t.Errorf("after uninstall:\n%s\nwant the original", got)
	}
	if got := readFile(t, path+BackupSuffix); got != installed {
		t.Error("backup does not hold the content before the uninstall")
	}
	if got, want := names(t, dir), []string{"settings.json", "settings.json" + BackupSuffix}; !slices.Equal(got, want) {
		t.Errorf("directory holds %v, want %v", got, want)
	}
}

func TestInstallFileRefusesInvalid(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	orig := readFile(t, filepath.Join("testdata", "in", "comments.json"))
	os.WriteFile(path, []byte(orig), 0o644)
	for name, f := range map[string]func() (bool, error){
		"install":   func() (bool, error) { return InstallFile(path, cairnHooks, isCairn) },
		"uninstall": func() (bool, error) { return UninstallFile(path, isCairn) },
	} {
		t.Run(name, func(t *testing.T) {
			changed, err := f()
			if changed {
				t.Error("changed = true")
			}
			if want := path + ":2:3: comments are not allowed in JSON"; err == nil || err.Error() != want {
				t.Errorf("err = %v\nwant  %s", err, want)
			}
			var se *Error
			if !errors.As(err, &se) || se.Line != 2 || se.Column != 3 || se.Path != path {
				t.Errorf("err = %#v, want an *Error at 2:3 naming the file", err)
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

func TestUninstallFileMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	changed, err := UninstallFile(filepath.Join(dir, "settings.json"), isCairn)
	if err != nil || changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("uninstalling from a missing file made its directory: %v", err)
	}
}

func TestInstallFileThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "claude-settings.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte("{}\n"), 0o644)
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if changed, err := InstallFile(link, cairnHooks, isCairn); err != nil || !changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced by a file (%v)", err)
	}
	if !strings.Contains(readFile(t, target), "cairn hook session-start") {
		t.Error("the symlink's target was not updated")
	}
	if got := readFile(t, link+BackupSuffix); got != "{}\n" {
		t.Errorf("backup holds %q", got)
	}

	os.Remove(target)
	if _, err := InstallFile(link, cairnHooks, isCairn); err == nil || !strings.Contains(err.Error(), "symlink") {
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
	changed, err := edit(path, func(data []byte) ([]byte, bool, error) {
		calls++
		if calls == 1 {
			os.WriteFile(path, []byte(`{"model": "opus"}`), 0o644)
		}
		return Install(data, cairnHooks[:1], isCairn)
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
	if got := readFile(t, path+BackupSuffix); got != `{"model": "opus"}` {
		t.Errorf("backup holds %q, want the content the edit replaced", got)
	}
}

func TestEditGivesUpWhenAlwaysRaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte("{}"), 0o644)
	n := 0
	_, err := edit(path, func(data []byte) ([]byte, bool, error) {
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
