//go:build unix

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/codex"
	"github.com/cairn-agent/cairn/internal/fixtures"
)

// TestUIScreenshot takes the picture of `cairn ui` the README shows: the
// view of a project with a live Claude Code session (a real fixture with
// its compaction), a finished one and a Codex CLI session (a real
// rollout), in a 100x18 tmux pane, captured with its colours
// (capture-pane -e), turned into HTML and photographed by headless
// Chromium. The picture is kept as the artifact ui.png ($CAIRN_ARTIFACTS
// when set; docs/ui.png is a copy of one).
func TestUIScreenshot(t *testing.T) {
	tmux := requireTmux(t)
	if built.err != nil {
		t.Fatal(built.err)
	}
	ctx := headlessChromium(t)
	// A short home, so that the picture's title shows a path like a
	// person's rather than the test's.
	home, err := os.MkdirTemp("", "uih")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	project := filepath.Join(home, "src", "spotter")
	config := filepath.Join(home, ".claude")
	dir := filepath.Join(config, "projects", claudecode.ProjectKey(project))
	for _, d := range []string{dir, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	put := func(src, dst string, age time.Duration, edit func([]byte) []byte) {
		t.Helper()
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			data = edit(data)
		}
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(dst, at, at); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []struct {
		id  string
		age time.Duration
	}{{"ae4a77f8-aedd-4bc1-888f-c94edc91af04", 0}, {"short", 48 * time.Hour}} {
		src, err := fixtures.Path(s.id)
		if err != nil {
			t.Fatal(err)
		}
		name := s.id
		if name == "short" {
			name = "55604662-cf2a-4331-851a-ec234028f8ca"
		}
		put(src, filepath.Join(dir, name+".jsonl"), s.age, nil)
	}
	codexHome := filepath.Join(home, ".codex")
	rollout := filepath.Join("..", "internal", "transcript", "testdata", "codex", "tools-compactions.jsonl")
	put(rollout, filepath.Join(codexHome, "sessions", "2026", "11", "24", "rollout-2026-11-24T08-13-28-01a20dfb-c9bd-76d0-aa9b-d3c96d62aea2.jsonl"), 3*time.Hour,
		func(data []byte) []byte {
			first, _, _ := bytes.Cut(data, []byte("\n"))
			_, cwd, ok := codex.ParseMeta(first)
			if !ok {
				t.Fatal("the rollout has no session_meta")
			}
			return bytes.ReplaceAll(data, []byte(strconv.Quote(cwd)), []byte(strconv.Quote(project)))
		})

	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + config, "CODEX_HOME=" + codexHome, "PATH=" + os.Getenv("PATH"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_DATA_HOME=" + filepath.Join(home, "data"), "LANG=C.UTF-8"}
	p := startTmux(t, tmux, project, env, 100, 18, nil, built.bin, "ui")
	screen, err := p.WaitScreen(15*time.Second, "the view of three sessions", func(s string) bool {
		return strings.Contains(s, "cairn ui · 3 sessions") && strings.Contains(s, "#1 manual")
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, screen)
	}
	coloured, err := p.run("capture-pane", "-e", "-p", "-J", "-t", p.target)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(coloured, "\x1b[") {
		t.Fatalf("the pane has no colour:\n%q", coloured)
	}
	page := filepath.Join(t.TempDir(), "ui.html")
	if err := os.WriteFile(page, []byte(terminalPage(coloured, 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.ID("term"))); err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("term").innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if plain := stripANSI(coloured); strings.TrimRight(text, "\n") != strings.TrimRight(plain, "\n") {
		t.Errorf("the page shows other text than the pane:\n%s\n---\n%s", text, plain)
	}
	shot, err := chromedp.Run(ctx, chromedp.ScreenshotScale(chromedp.ID("term"), 2))
	if err != nil {
		t.Fatal(err)
	}
	out := screenshotArtifact(t, "ui.png")
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the view, %d bytes of PNG in %s:\n%s", len(shot), out, screen)
}

// headlessChromium starts Debian's chromium for one test: skipped without
// it, except under CI=true, where that fails.
func headlessChromium(t *testing.T) context.Context {
	t.Helper()
	var exe string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no chromium on PATH: the screenshot needs it (apt-get install chromium)")
		}
		t.Skip("no chromium on PATH (apt-get install chromium); under CI=true this fails")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTime(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// screenshotArtifact is where a screenshot goes: $CAIRN_ARTIFACTS when
// set (CI keeps that folder), else the test's temporary folder.
func screenshotArtifact(t *testing.T, name string) string {
	dir := os.Getenv("CAIRN_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	os.MkdirAll(dir, 0o755)
	return filepath.Join(dir, name)
}

// palette are the 16 ANSI colours as the picture shows them (a dark
// terminal's).
var palette = [16]string{
	"#1e1e1e", "#e0524f", "#6fbf73", "#d8b24a", "#5b9bd5", "#c678dd", "#56b6c2", "#d4d4d4",
	"#6b6b6b", "#ff6e6b", "#8fe093", "#f0d06a", "#7fb8f0", "#e09cf0", "#7fd8e2", "#ffffff",
}

const (
	termFG = "#d4d4d4"
	termBG = "#1e1e1e"
)

// sgr is the character attributes the SGR sequences set.
type sgr struct {
	fg, bg           string // "" for the default
	bold, dim, rev   bool
	italic, underlin bool
}

// apply reads one SGR sequence's parameters ("31;1", "" for reset).
func (a *sgr) apply(params string) {
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		n, err := strconv.Atoi(ps[i])
		if ps[i] == "" {
			n, err = 0, nil
		}
		if err != nil {
			continue
		}
		switch {
		case n == 0:
			*a = sgr{}
		case n == 1:
			a.bold = true
		case n == 2:
			a.dim = true
		case n == 3:
			a.italic = true
		case n == 4:
			a.underlin = true
		case n == 7:
			a.rev = true
		case n == 22:
			a.bold, a.dim = false, false
		case n == 23:
			a.italic = false
		case n == 24:
			a.underlin = false
		case n == 27:
			a.rev = false
		case n >= 30 && n <= 37:
			a.fg = palette[n-30]
		case n >= 90 && n <= 97:
			a.fg = palette[n-90+8]
		case n == 39:
			a.fg = ""
		case n >= 40 && n <= 47:
			a.bg = palette[n-40]
		case n >= 100 && n <= 107:
			a.bg = palette[n-100+8]
		case n == 49:
			a.bg = ""
		case (n == 38 || n == 48) && i+1 < len(ps):
			var c string
			switch ps[i+1] {
			case "5":
				if i+2 < len(ps) {
					k, _ := strconv.Atoi(ps[i+2])
					c = colour256(k)
					i += 2
				}
			case "2":
				if i+4 < len(ps) {
					r, _ := strconv.Atoi(ps[i+2])
					g, _ := strconv.Atoi(ps[i+3])
					b, _ := strconv.Atoi(ps[i+4])
					c = fmt.Sprintf("#%02x%02x%02x", r, g, b)
					i += 4
				}
			}
			if n == 38 {
				a.fg = c
			} else {
				a.bg = c
			}
		}
	}
}

// colour256 is an xterm 256-colour palette entry.
func colour256(k int) string {
	switch {
	case k < 16:
		return palette[max(k, 0)]
	case k < 232:
		k -= 16
		step := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", step(k/36), step(k/6%6), step(k%6))
	case k < 256:
		v := 8 + 10*(k-232)
		return fmt.Sprintf("#%02x%02x%02x", v, v, v)
	}
	return ""
}

// style is the CSS of a run of text with these attributes.
func (a sgr) style() string {
	fg, bg := a.fg, a.bg
	if a.rev {
		fg, bg = bg, fg
		if fg == "" {
			fg = termBG
		}
		if bg == "" {
			bg = termFG
		}
	}
	var css []string
	if fg != "" {
		css = append(css, "color:"+fg)
	}
	if bg != "" {
		css = append(css, "background:"+bg)
	}
	if a.bold {
		css = append(css, "font-weight:bold")
	}
	if a.dim {
		css = append(css, "opacity:0.6")
	}
	if a.italic {
		css = append(css, "font-style:italic")
	}
	if a.underlin {
		css = append(css, "text-decoration:underline")
	}
	return strings.Join(css, ";")
}

// ansiHTML turns a pane captured with its escape sequences into HTML:
// SGR sequences become styled spans, others are dropped, the text is
// escaped.
func ansiHTML(s string) string {
	var b strings.Builder
	var cur sgr
	flush := func(text string) {
		if text == "" {
			return
		}
		if st := cur.style(); st != "" {
			b.WriteString(`<span style="` + st + `">` + html.EscapeString(text) + `</span>`)
		} else {
			b.WriteString(html.EscapeString(text))
		}
	}
	for len(s) > 0 {
		i := strings.IndexByte(s, 0x1b)
		if i < 0 {
			flush(s)
			break
		}
		flush(s[:i])
		s = s[i:]
		if len(s) < 2 || s[1] != '[' {
			s = s[1:] // a lone ESC, or another kind of sequence: its introducer dropped
			continue
		}
		end := 2
		for end < len(s) && (s[end] < 0x40 || s[end] > 0x7e) {
			end++
		}
		if end == len(s) {
			break
		}
		if s[end] == 'm' {
			cur.apply(s[2:end])
		}
		s = s[end+1:]
	}
	return b.String()
}

// stripANSI is the pane's text without its escape sequences.
func stripANSI(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		i := strings.IndexByte(s, 0x1b)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		if len(s) < 2 || s[1] != '[' {
			s = s[1:]
			continue
		}
		end := 2
		for end < len(s) && (s[end] < 0x40 || s[end] > 0x7e) {
			end++
		}
		if end == len(s) {
			break
		}
		s = s[end+1:]
	}
	return b.String()
}

// terminalPage is a page that shows the captured pane as a terminal of
// cols columns would.
func terminalPage(captured string, cols int) string {
	return `<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body { margin: 0; background: #101010; }
#term { display: inline-block; margin: 0; padding: 12px 16px; background: ` + termBG + `; color: ` + termFG + `;
  font: 15px/1.25 "DejaVu Sans Mono", "Liberation Mono", monospace; white-space: pre; min-width: ` + strconv.Itoa(cols) + `ch; }
</style></head><body><pre id="term">` + ansiHTML(strings.TrimRight(captured, "\n")) + `</pre></body></html>`
}
