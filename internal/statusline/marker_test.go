package statusline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/pressure"
)

func TestRecordCheckpoint(t *testing.T) {
	dir := t.TempDir()
	project := "/home/user/proj"
	if _, ok := LastCheckpoint(dir, project); ok {
		t.Fatal("a marker before any checkpoint")
	}
	at := time.Date(2026, 3, 1, 11, 57, 0, 123, time.UTC)
	if err := RecordCheckpoint(dir, project, 7, "BILL-482", at); err != nil {
		t.Fatal(err)
	}
	c, ok := LastCheckpoint(dir, project+"/") // the same path, spelled otherwise
	if !ok || c.ID != 7 || c.Ticket != "BILL-482" || !c.At.Equal(at) {
		t.Fatalf("got %+v, %v", c, ok)
	}
	if _, ok := LastCheckpoint(dir, "/home/user/other"); ok {
		t.Error("another project's marker")
	}
	// An older capture finishing late does not hide the newer one.
	if err := RecordCheckpoint(dir, project, 6, "OLD-1", at.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if c, _ := LastCheckpoint(dir, project); c.ID != 7 {
		t.Errorf("older checkpoint %d replaced the newer", c.ID)
	}
	if err := RecordCheckpoint(dir, project, 8, "", at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if c, _ := LastCheckpoint(dir, project); c.ID != 8 || c.Ticket != "" {
		t.Errorf("got %+v", c)
	}
	if err := RecordCheckpoint(dir, "", 9, "X-1", at); err != nil {
		t.Errorf("no project: %v", err)
	}
	fi, err := os.Stat(lastFile(dir, project))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("marker mode %v, %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Dir(lastFile(dir, project))); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, %v", fi.Mode(), err)
	}
}

func TestParseLast(t *testing.T) {
	good := `cairn-last 1 1772366220000000000 7 "BILL-482" "/home/user/proj"` + "\n"
	c, project, err := parseLast(good)
	if err != nil || c.ID != 7 || c.Ticket != "BILL-482" || project != "/home/user/proj" || c.At.Unix() != 1772366220 {
		t.Fatalf("got %+v %q %v", c, project, err)
	}
	for _, bad := range []string{
		"", "cairn-last 2 1 7 \"\" \"/p\"", "cairn-last 1 x 7 \"\" \"/p\"", "cairn-last 1 1 x \"\" \"/p\"",
		"cairn-last 1 0 7 \"\" \"/p\"", "cairn-last 1 1 7 \"\"", "cairn-last 1 1 7 \"\" \"/p\" extra",
		`cairn-last 1 1 7 "unterminated /p`,
	} {
		if _, _, err := parseLast(bad); err == nil {
			t.Errorf("parseLast(%q) accepted", bad)
		}
	}
	// A ticket never carries escapes or spaces onto the terminal line.
	c, _, err = parseLast("cairn-last 1 1 7 \"\\x1b[31mRED-1 \\n" + strings.Repeat("x", 50) + "\" \"/p\"")
	if err != nil || c.Ticket != "[31mRED-1"+strings.Repeat("x", 23) {
		t.Errorf("ticket %q, %v", c.Ticket, err)
	}
}

func FuzzParseLast(f *testing.F) {
	f.Add(`cairn-last 1 1772366220000000000 7 "BILL-482" "/home/user/proj"` + "\n")
	f.Fuzz(func(t *testing.T, s string) {
		c, project, err := parseLast(s)
		if err != nil {
			return
		}
		if c.Ticket != cleanTicket(c.Ticket) {
			t.Fatalf("ticket %q not clean", c.Ticket)
		}
		// What decodes writes back the same way, up to the ticket's cleaning.
		again, p2, err := parseLast(formatLast(c, project))
		if err != nil || again != c || p2 != project {
			t.Fatalf("%+v %q does not survive a round trip: %+v %q %v", c, project, again, p2, err)
		}
	})
}

func TestPressureMarker(t *testing.T) {
	dir := t.TempDir()
	in := Input{Reading: reading(137000), Pressure: pressure.Default()} // 82% L1
	wrote, err := RecordPressure(dir, "sess-1", in)
	if err != nil || !wrote {
		t.Fatalf("first write: %v %v", wrote, err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "sessions", "sess-1.pressure"))
	if string(data) != "82 L1 threshold\n" {
		t.Errorf("marker %q", data)
	}
	in.Reading.Tokens += 100 // still 82%
	if wrote, err := RecordPressure(dir, "sess-1", in); wrote || err != nil {
		t.Errorf("unchanged marker written again: %v %v", wrote, err)
	}
	in.Reading.Tokens = 146960 // 88%
	if wrote, _ := RecordPressure(dir, "sess-1", in); !wrote {
		t.Error("changed marker not written")
	}
	if p, ok := ReadPressure(dir, "sess-1"); !ok || p != (Pressure{Percent: 88, Level: 2, Base: pressure.OfThreshold}) {
		t.Errorf("got %+v %v", p, ok)
	}
	for _, id := range []string{"", "../escape", ".hidden", "a/b", strings.Repeat("x", 129), "sp ace"} {
		if wrote, err := RecordPressure(dir, id, in); wrote || err != nil {
			t.Errorf("session %q: wrote %v, %v", id, wrote, err)
		}
	}
	if wrote, _ := RecordPressure(dir, "sess-2", Input{Pressure: pressure.Default()}); wrote {
		t.Error("a marker without a reading")
	}
	for _, bad := range []string{"", "82 L1", "x L1 threshold", "82 L4 threshold", "82 L1 other", "-1 L1 window"} {
		if _, ok := parsePressure(bad); ok {
			t.Errorf("parsePressure(%q) accepted", bad)
		}
	}
}
