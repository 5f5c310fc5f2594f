package bench

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/web"
	"github.com/chromedp/chromedp"
)

// BenchmarkWebFirstPaint is the time from a request for the session page
// of the 100 MB transcript to its last byte, on a viewer that has not read
// the session yet (a fresh server each iteration): with the state the
// hooks saved ("saved": the body decoded, nothing appended to read) and
// without ("cold": the whole transcript parsed). The page is complete
// HTML with the SVG chart inline; the browser paints it from that alone.
func BenchmarkWebFirstPaint(b *testing.B) {
	dir := b.TempDir()
	folder := filepath.Join(dir, "claude", "projects", "-bench")
	os.MkdirAll(folder, 0o755)
	path := filepath.Join(folder, "big.jsonl")
	if err := os.Link(work.bigPath, path); err != nil {
		b.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		saved bool
	}{{"saved", true}, {"cold", false}} {
		b.Run(tt.name, func(b *testing.B) {
			st := state.Store{Dir: filepath.Join(dir, "state-"+tt.name)}
			if tt.saved {
				if _, err := st.Session(path, true); err != nil {
					b.Fatal(err)
				}
			}
			var size, points int
			for b.Loop() {
				b.StopTimer()
				ln, err := web.Listen(0)
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				s := &web.Server{ConfigDir: filepath.Join(dir, "claude"), State: st, Token: "t"}
				done := make(chan error, 1)
				go func() { done <- s.Serve(ctx, ln) }()
				req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/session/-bench/big", nil)
				req.AddCookie(&http.Cookie{Name: "cairn_token", Value: "t"})
				b.StartTimer()
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				b.StopTimer()
				if resp.StatusCode != 200 || !strings.Contains(string(body), `<circle class="turn"`) {
					b.Fatalf("status %d: %.300s", resp.StatusCode, body)
				}
				size, points = len(body), strings.Count(string(body), `<circle class="turn"`)
				cancel()
				<-done
				b.StartTimer()
			}
			b.ReportMetric(float64(size), "page-bytes")
			b.ReportMetric(float64(points), "chart-points")
		})
	}
}

// BenchmarkWebFirstPaintBrowser is the same page's first contentful paint
// in headless Chromium (performance's paint entry, from the start of the
// navigation), on a fresh viewer each iteration, with and without saved
// state, beside the projects page's (a few lines) as the baseline. It
// needs chromium on PATH.
func BenchmarkWebFirstPaintBrowser(b *testing.B) {
	exe, err := exec.LookPath("chromium")
	if err != nil {
		b.Skip("no chromium on PATH (apt-get install chromium)")
	}
	dir := b.TempDir()
	folder := filepath.Join(dir, "claude", "projects", "-bench")
	os.MkdirAll(folder, 0o755)
	path := filepath.Join(folder, "big.jsonl")
	if err := os.Link(work.bigPath, path); err != nil {
		b.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Flag("disable-gpu", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		b.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		saved bool
		page  string
	}{{"projects", false, "/"}, {"saved", true, "/session/-bench/big"}, {"cold", false, "/session/-bench/big"}} {
		// projects, a page of a few lines, is the baseline: what the
		// browser takes to paint any page of the viewer.
		b.Run(tt.name, func(b *testing.B) {
			st := state.Store{Dir: filepath.Join(dir, "state-browser-"+tt.name)}
			if tt.saved {
				if _, err := st.Session(path, true); err != nil {
					b.Fatal(err)
				}
			}
			var fcp []float64
			for b.Loop() {
				ln, err := web.Listen(0)
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				s := &web.Server{ConfigDir: filepath.Join(dir, "claude"), State: st, Token: "t"}
				done := make(chan error, 1)
				go func() { done <- s.Serve(ctx, ln) }()
				tab, closeTab := chromedp.NewContext(bctx)
				err = chromedp.Do(tab, chromedp.Navigate("http://"+ln.Addr().String()+tt.page+"?token=t"))
				var ms float64
				if err == nil {
					ms, err = chromedp.Run(tab, chromedp.Poll[float64](
						`(performance.getEntriesByName("first-contentful-paint")[0] || {}).startTime`))
				}
				closeTab()
				cancel()
				<-done
				if err != nil {
					b.Fatal(err)
				}
				fcp = append(fcp, ms)
			}
			slices.Sort(fcp)
			b.ReportMetric(fcp[len(fcp)/2], "fcp-ms")
		})
	}
}
