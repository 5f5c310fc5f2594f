package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/web"
)

// hourSpeedup is how much faster than it happened the live hour is
// replayed: 70 minutes of a real session in 70 seconds. CI, which only
// checks that each benchmark still runs, sets CAIRN_BENCH_HOUR_SPEEDUP
// higher.
var hourSpeedup = func() time.Duration {
	if n, err := strconv.Atoi(os.Getenv("CAIRN_BENCH_HOUR_SPEEDUP")); err == nil && n > 0 {
		return time.Duration(n)
	}
	return 60
}()

// BenchmarkWebLiveHour replays an hour of a real session into the
// viewer and reports the server's memory at the start, midway and at the
// end. The session is the fixture 258c7280 (1,863 lines, 2.7 MB, 70
// minutes from 20:36 to 21:46 with an automatic compaction): its first
// lines are written, its page opened and a live stream (SSE) connected
// for the whole run, then every other line is appended in the rhythm of
// its timestamps, 60 times faster; the viewer polls 60 times as often as
// its default, so that it looks at the file as many times as in the real
// hour. Every five minutes of session time the page is reloaded and, as a
// person glancing elsewhere, one of the four other fixture sessions'
// page is opened and closed. The server runs in this process: heap is
// runtime.MemStats after a collection (HeapInuse, the live heap;
// Sys, what the runtime holds), RSS the process's VmRSS, client and
// replay included. Run it once:
//
//	go test -run '^$' -bench WebLiveHour -benchtime 1x ./bench
func BenchmarkWebLiveHour(b *testing.B) {
	fx, err := fixtures.Path("258c7280-ae70-4798-800f-63464d01a85d")
	if err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile(fx)
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	stamps := make([]time.Time, len(lines))
	var last time.Time
	for i, l := range lines {
		var rec struct {
			Timestamp time.Time `json:"timestamp"`
		}
		if json.Unmarshal(l, &rec) == nil && !rec.Timestamp.IsZero() && rec.Timestamp.After(last) {
			last = rec.Timestamp
		}
		stamps[i] = last
	}
	for b.Loop() {
		dir := b.TempDir()
		folder := filepath.Join(dir, "claude", "projects", "-bench")
		os.MkdirAll(folder, 0o755)
		var others []string
		for _, id := range []string{"4d5611e5-241a-462a-8d15-5122611a9569", "8463c716-a2ea-4c14-9efa-87158ebd9f20",
			"ae4a77f8-aedd-4bc1-888f-c94edc91af04", "fa812bfe-b295-4cca-9c2f-fdf01028cb46"} {
			p, err := fixtures.Path(id)
			if err != nil {
				b.Fatal(err)
			}
			data, _ := os.ReadFile(p)
			os.WriteFile(filepath.Join(folder, id+".jsonl"), data, 0o600)
			others = append(others, id)
		}
		path := filepath.Join(folder, "live.jsonl")
		const head = 10
		if err := os.WriteFile(path, bytes.Join(lines[:head], nil), 0o600); err != nil {
			b.Fatal(err)
		}
		ln, err := web.Listen(0)
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		s := &web.Server{ConfigDir: filepath.Join(dir, "claude"), State: state.Store{Dir: filepath.Join(dir, "state")},
			Token: "t", Poll: 500 * time.Millisecond / hourSpeedup, Idle: 5 * time.Minute / hourSpeedup}
		done := make(chan error, 1)
		go func() { done <- s.Serve(ctx, ln) }()
		base := "http://" + ln.Addr().String()
		get := func(p string) {
			req, _ := http.NewRequest("GET", base+p, nil)
			req.AddCookie(&http.Cookie{Name: "cairn_token", Value: "t"})
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("%s: status %d", p, resp.StatusCode)
			}
		}
		get("/session/-bench/live")
		req, _ := http.NewRequest("GET", base+"/session/-bench/live/events", nil)
		req.AddCookie(&http.Cookie{Name: "cairn_token", Value: "t"})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		updates := make(chan int, 1)
		go func() {
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 1<<20), 64<<20)
			n := 0
			for sc.Scan() {
				if sc.Text() == "event: update" {
					n++
				}
			}
			updates <- n
		}()

		var marks []memMark
		mark := func(name string) { marks = append(marks, readMem(name)) }
		time.Sleep(50 * time.Millisecond)
		mark("start")
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		t0, mid := time.Now(), head+(len(lines)-head)/2
		nextVisit := stamps[head].Add(5 * time.Minute)
		visits := 0
		for i := head; i < len(lines); i++ {
			at := t0.Add(stamps[i].Sub(stamps[head]) / hourSpeedup)
			time.Sleep(time.Until(at))
			f.Write(lines[i])
			if stamps[i].After(nextVisit) {
				get("/session/-bench/live")
				get("/session/-bench/" + others[visits%len(others)])
				visits++
				nextVisit = nextVisit.Add(5 * time.Minute)
			}
			if i == mid {
				mark("midway")
			}
		}
		f.Close()
		time.Sleep(20 * s.Poll)
		mark("end")
		// An idle spell after the session ends: what the viewer gives
		// back when no page has asked for the other sessions for a while.
		time.Sleep(2 * s.Idle)
		get("/")
		mark("after idle")
		wall := time.Since(t0)
		cancel()
		<-done
		resp.Body.Close()
		n := <-updates
		b.Logf("replayed %d lines (%s of session time) in %s; %d live updates received; %d other pages opened",
			len(lines)-head, stamps[len(lines)-1].Sub(stamps[head]).Round(time.Second), wall.Round(time.Second), n, visits)
		for _, m := range marks {
			b.Logf("%-10s heap in use %6.1f MB  heap allocated %6.1f MB  runtime sys %6.1f MB  RSS %6.1f MB", m.name, m.heapInuse, m.heapAlloc, m.sys, m.rss)
			key := strings.ReplaceAll(m.name, " ", "-")
			b.ReportMetric(m.heapInuse, "heap-MB-"+key)
			b.ReportMetric(m.rss, "rss-MB-"+key)
		}
		b.ReportMetric(float64(n), "updates")
	}
}

type memMark struct {
	name                           string
	heapInuse, heapAlloc, sys, rss float64
}

func readMem(name string) memMark {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	const mb = 1 << 20
	m := memMark{name: name, heapInuse: float64(ms.HeapInuse) / mb, heapAlloc: float64(ms.HeapAlloc) / mb, sys: float64(ms.Sys) / mb}
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseFloat(f[1], 64)
				m.rss = kb / 1024
			}
		}
	}
	return m
}
