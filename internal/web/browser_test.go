package web

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser starts headless Chromium (Debian's package) for one test and
// collects what its pages print to the console and throw. Without
// Chromium the test is skipped, except under CI=true, where it fails:
// .ci/run installs it.
func browser(t *testing.T) (ctx context.Context, console func() []string) {
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
			t.Fatal("no chromium on PATH: the browser tests need it (apt-get install chromium)")
		}
		t.Skip("no chromium on PATH (apt-get install chromium); under CI=true this fails")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1200, 1400))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTime(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	var mu sync.Mutex
	var lines []string
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			switch m.Type {
			case chromedp.ConsoleError, chromedp.ConsoleWarning, chromedp.ConsoleException:
				mu.Lock()
				lines = append(lines, fmt.Sprintf("%s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line+1))
				mu.Unlock()
			}
		}
	}()
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
}

// artifact is where a test's screenshots go: $CAIRN_ARTIFACTS when set
// (CI keeps that folder), else the test's temporary folder.
func artifact(t *testing.T, name string) string {
	dir := os.Getenv("CAIRN_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	os.MkdirAll(dir, 0o755)
	return filepath.Join(dir, name)
}

// The session page as a person sees it: the compaction where the fixture
// has it, one point per turn, the restore text; it grows on screen as
// the transcript does; nothing goes wrong in the console.
func TestBrowserSessionPage(t *testing.T) {
	ctx, console := browser(t)
	site := newSite(t)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(site.base+site.sessionURL()+"?token="+testToken),
		chromedp.WaitVisible(chromedp.CSS("#timeline svg")),
		chromedp.WaitVisible(chromedp.ID("live-status")),
	); err != nil {
		t.Fatal(err)
	}
	title := run(t, ctx, chromedp.Title())
	points := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#timeline svg circle.turn").length`))
	compactionAt := run(t, ctx, chromedp.Evaluate[string](`document.querySelector("#compactions tr.compaction").innerText`))
	restore := run(t, ctx, chromedp.Text(chromedp.CSS("#restores pre")))
	shot := run(t, ctx, chromedp.FullScreenshot(100))
	if err := os.WriteFile(artifact(t, "session.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if title != "cairn: session 258c7280" {
		t.Errorf("title %q", title)
	}
	if points != 152 {
		t.Errorf("%d points in the chart, want one per turn: 152", points)
	}
	for _, want := range []string{"auto", "102", "167,094"} {
		if !strings.Contains(compactionAt, want) {
			t.Errorf("compaction row %q lacks %q", compactionAt, want)
		}
	}
	if !strings.HasPrefix(restore, "# Restored working state (cairn)") || !strings.Contains(restore, "ship the <annotations> & refs") {
		t.Errorf("restore text on screen: %q", restore)
	}

	// Live: lines appended to the transcript reach the open page.
	site.appendLines(turnLine(1, 90_000), turnLine(2, 95_000), turnLine(3, 99_000))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#timeline svg circle.turn").length === 155`,
		chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		t.Fatalf("the page did not grow with the transcript: %v", err)
	}
	if n := run(t, ctx, chromedp.Text(chromedp.ID("turn-count"))); n != "155" {
		t.Errorf("turn count on screen %q, want 155", n)
	}
	if lines := console(); len(lines) > 0 {
		t.Errorf("console:\n%s", strings.Join(lines, "\n"))
	}
}

// Without the token the browser gets the refusal, not the page.
func TestBrowserRefusedWithoutToken(t *testing.T) {
	ctx, _ := browser(t)
	site := newSite(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(site.base+site.sessionURL())); err != nil {
		t.Fatal(err)
	}
	body := run(t, ctx, chromedp.Text(chromedp.CSS("body")))
	if !strings.HasPrefix(body, "forbidden") || strings.Contains(body, "Restored") {
		t.Errorf("page without the token: %q", body)
	}
}

// run runs one browser action and returns its value.
func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
