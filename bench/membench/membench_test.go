// Package membench benchmarks cairn's memory: search latency (p50, p99)
// and the index's size per observation over a database of synthetic
// observations (bench/memgen), and what writing a real checkpoint's
// observations costs. The database is CAIRN_MEMBENCH_DB when set (written
// by bench/mkmem, e.g. 100K or 1M observations), else 20K made here.
package membench

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/ext/fts5"

	"github.com/cairn-agent/cairn/bench/memgen"
	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/memory"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// defaultN is how many observations the benchmarks make when no database
// is given: enough to time, quick enough for CI's single run.
const defaultN = 20000

var work struct {
	db      string
	fx      string
	vocab   []string
	queries []string // made-up searches
	asked   []string // the labelled questions of internal/memory
}

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "cairn-membench-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		if err := setup(dir); err != nil {
			fmt.Fprintln(os.Stderr, "membench setup:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

func setup(dir string) error {
	fx, err := fixtures.Extract(filepath.Join(dir, "fixtures"))
	if err != nil {
		return err
	}
	work.fx = fx
	if work.vocab, err = memgen.Vocabulary(fx, 50000); err != nil {
		return err
	}
	g := memgen.New(work.vocab, 7) // not the database's seed: other words
	work.queries = g.Queries(500)
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "memory", "testdata", "questions.tsv"))
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if cols := strings.Split(l, "\t"); len(cols) == 4 && !strings.HasPrefix(l, "#") {
			work.asked = append(work.asked, cols[2])
		}
	}
	if work.db = os.Getenv("CAIRN_MEMBENCH_DB"); work.db != "" {
		return nil
	}
	work.db = filepath.Join(dir, "mem.db")
	ctx := context.Background()
	db, err := sqlite.Open(ctx, work.db)
	if err != nil {
		return err
	}
	if err := memgen.New(work.vocab, 1).Fill(ctx, memory.New(db), defaultN, nil); err != nil {
		db.Close()
		return err
	}
	return db.Close()
}

func openStore(b *testing.B) *memory.Store {
	db, err := sqlite.Open(context.Background(), work.db)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return memory.New(db)
}

// BenchmarkSearch times Search (10 hits, the default) one query an
// iteration, cycling through the queries, and reports the median and the
// 99th percentile: made-up searches of 2-5 specific words, and the 65
// labelled questions asked in full sentences.
func BenchmarkSearch(b *testing.B) {
	for _, set := range []struct {
		name    string
		queries []string
	}{{"words", work.queries}, {"questions", work.asked}} {
		b.Run(set.name, func(b *testing.B) {
			st := openStore(b)
			ctx := context.Background()
			for _, q := range set.queries[:10] { // warm the page cache
				st.Search(ctx, memory.Query{Text: q})
			}
			var took []time.Duration
			hits := 0
			cpu := cpuTime()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				hs, err := st.Search(ctx, memory.Query{Text: set.queries[i%len(set.queries)]})
				took = append(took, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				hits += len(hs)
			}
			cpu = cpuTime() - cpu
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(float64(cpu.Microseconds())/float64(len(took)), "cpu-µs/op")
			b.ReportMetric(float64(hits)/float64(len(took)), "hits/op")
		})
	}
}

// cpuTime is the CPU time the process has used: the machines these run
// on are shared, and a query's CPU time moves less with the load than its
// wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSearchProject is Search within one project, the usual scope of
// a question.
func BenchmarkSearchProject(b *testing.B) {
	st := openStore(b)
	ctx := context.Background()
	var took []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		_, err := st.Search(ctx, memory.Query{Text: work.queries[i%len(work.queries)], Project: "/home/dev/projects/project-07"})
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkIndexSize reports the database's size per observation, the
// full-text index's part of it (the bytes of FTS5's shadow tables: the
// segments in _data, the terms' pages in _idx, the column sizes in
// _docsize; this driver's build has no dbstat for their pages), and the
// text indexed.
func BenchmarkIndexSize(b *testing.B) {
	db, err := driver.Open("file:"+work.db+"?mode=ro", fts5.Register)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var n, pages, pageSize int64
	q := func(query string, dst ...any) {
		if err := db.QueryRow(query).Scan(dst...); err != nil {
			b.Fatal(err)
		}
	}
	q("SELECT count(*) FROM observations", &n)
	q("PRAGMA page_count", &pages)
	q("PRAGMA page_size", &pageSize)
	var fts, text sql.NullInt64
	q(`SELECT (SELECT sum(length(block)) + 8 * count(*) FROM observations_fts_data)
		+ (SELECT sum(length(term)) + 16 * count(*) FROM observations_fts_idx)
		+ (SELECT sum(length(sz)) + 8 * count(*) FROM observations_fts_docsize)`, &fts)
	q("SELECT sum(length(title) + length(body) + length(files)) FROM observations", &text)
	for b.Loop() {
	}
	b.ReportMetric(float64(n), "observations")
	b.ReportMetric(float64(pages*pageSize)/float64(n), "db-bytes/obs")
	b.ReportMetric(float64(fts.Int64)/float64(n), "fts-bytes/obs")
	b.ReportMetric(float64(text.Int64)/float64(n), "text-bytes/obs")
}

// BenchmarkWriteCheckpoint is what a hook does when it stores a
// checkpoint: derive a real session's observations (the 258c7280 fixture
// at its end: its checkpoint and its session) and add them to the
// database. "new": a project never seen, so every observation goes in;
// "again": the same checkpoint's content again, all of it already there
// (the next checkpoint of a session is mostly that).
func BenchmarkWriteCheckpoint(b *testing.B) {
	s := transcript.New(filepath.Join(work.fx, fixtures.Compactions[0].Session+".jsonl"))
	var p transcript.Parser
	if _, err := s.Update(&p); err != nil {
		b.Fatal(err)
	}
	reading, _ := meter.Measure(s, meter.Settings{})
	c := checkpoint.Build(s, checkpoint.Input{Project: "/bench/project", Trigger: "session-end", Now: s.LastTime,
		Reading: reading, Redact: redact.String})
	c.ID = 1
	ctx := context.Background()
	for _, mode := range []string{"new", "again"} {
		b.Run(mode, func(b *testing.B) {
			st := openStore(b)
			n := 0
			cpu := cpuTime()
			for i := 0; b.Loop(); i++ {
				cc := c
				if mode == "new" {
					cc.Project = fmt.Sprintf("/bench/project-%d-%d", time.Now().UnixNano(), i)
				}
				obs := memory.FromCheckpoint(cc, s)
				if _, err := st.Add(ctx, obs...); err != nil {
					b.Fatal(err)
				}
				n = len(obs)
			}
			b.ReportMetric(float64(n), "observations/op")
			// The CPU time, not the wall's: the machines these run on are
			// shared.
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// BenchmarkWriteCompaction is what the PostCompact hook writes: a real
// compaction's whole summary as its observations (the compaction and an
// observation for each item of the summary), against the one observation
// of the whole summary, clipped, that it wrote before the summary was
// split.
func BenchmarkWriteCompaction(b *testing.B) {
	name := filepath.Join(work.fx, fixtures.Compactions[0].Session+".jsonl")
	s := transcript.New(name)
	var p transcript.Parser
	if _, err := s.Update(&p); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	c := s.Compactions[0]
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.Contains(l, `"isCompactSummary":true`) {
			continue
		}
		var m struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			b.Fatal(err)
		}
		c.Summary = redact.String(m.Message.Content)
		break
	}
	if len(c.Summary) < 8<<10 {
		b.Fatalf("the summary has %d bytes: not the whole one", len(c.Summary))
	}
	ctx := context.Background()
	for _, mode := range []string{"split", "one"} {
		b.Run(mode, func(b *testing.B) {
			st := openStore(b)
			n := 0
			cpu := cpuTime()
			for i := 0; b.Loop(); i++ {
				project := fmt.Sprintf("/bench/project-%d-%d", time.Now().UnixNano(), i)
				obs := memory.FromCompaction(project, "sess", c)
				if mode == "one" {
					o := obs[0]
					o.Body = c.Summary
					obs = obs[:1:1]
					obs[0] = o
				}
				if _, err := st.Add(ctx, obs...); err != nil {
					b.Fatal(err)
				}
				n = len(obs)
			}
			b.ReportMetric(float64(n), "observations/op")
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// BenchmarkFTSLayout is the measurement behind the index's layout: the
// same observations (the first 20,000 of the database) indexed by an
// external-content FTS5 table, as cairn does, and by a contentless one
// with contentless_delete, each in a database of its own: their size per
// observation, and the CPU time of a BM25 search of two of the made-up
// words.
func BenchmarkFTSLayout(b *testing.B) {
	src, err := driver.Open("file:"+work.db+"?mode=ro", fts5.Register)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	type row struct {
		id                 int64
		title, body, files string
	}
	var rows []row
	rs, err := src.Query("SELECT id, title, body, files FROM observations ORDER BY id LIMIT 20000")
	if err != nil {
		b.Fatal(err)
	}
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.id, &r.title, &r.body, &r.files); err != nil {
			b.Fatal(err)
		}
		rows = append(rows, r)
	}
	rs.Close()
	const tok = "tokenize = 'porter unicode61 remove_diacritics 2'"
	for _, layout := range []struct{ name, ddl string }{
		{"external", "CREATE VIRTUAL TABLE f USING fts5(title, body, files, content = 'o', content_rowid = 'id', " + tok + ")"},
		{"contentless", "CREATE VIRTUAL TABLE f USING fts5(title, body, files, content = '', contentless_delete = 1, " + tok + ")"},
	} {
		b.Run(layout.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "layout.db")
			db, err := driver.Open("file:"+path+"?_pragma=journal_mode(WAL)", fts5.Register)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			for _, stmt := range []string{"CREATE TABLE o (id INTEGER PRIMARY KEY, title TEXT, body TEXT, files TEXT)", layout.ddl} {
				if _, err := db.Exec(stmt); err != nil {
					b.Fatal(err)
				}
			}
			tx, err := db.Begin()
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range rows {
				if _, err := tx.Exec("INSERT INTO o VALUES (?, ?, ?, ?)", r.id, r.title, r.body, r.files); err != nil {
					b.Fatal(err)
				}
				if _, err := tx.Exec("INSERT INTO f (rowid, title, body, files) VALUES (?, ?, ?, ?)", r.id, r.title, r.body, r.files); err != nil {
					b.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			var pages, pageSize int64
			db.QueryRow("PRAGMA page_count").Scan(&pages)
			db.QueryRow("PRAGMA page_size").Scan(&pageSize)
			cpu := cpuTime()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				ws := strings.Fields(work.queries[i%len(work.queries)])
				q := `"` + ws[0] + `" OR "` + ws[1] + `"`
				rs, err := db.Query("SELECT o.id, o.title FROM f JOIN o ON o.id = f.rowid WHERE f MATCH ? ORDER BY bm25(f) LIMIT 40", q)
				if err != nil {
					b.Fatal(err)
				}
				for rs.Next() {
				}
				rs.Close()
			}
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(pages*pageSize)/float64(len(rows)), "db-bytes/obs")
		})
	}
}

// BenchmarkOpen is what registering FTS5 on a connection costs a process
// that opens the database (the hooks at PreCompact, SessionStart and
// SessionEnd): a new connection and one read, without and with
// fts5.Register, as sqlite.Open now does on every connection.
func BenchmarkOpen(b *testing.B) {
	for _, reg := range []struct {
		name string
		init func(*sqlite3.Conn) error
	}{{"plain", nil}, {"fts5", fts5.Register}} {
		b.Run(reg.name, func(b *testing.B) {
			for b.Loop() {
				db, err := driver.Open("file:"+work.db+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)", reg.init)
				if err != nil {
					b.Fatal(err)
				}
				var n int
				if err := db.QueryRow("SELECT count(*) FROM schema_version").Scan(&n); err != nil {
					b.Fatal(err)
				}
				db.Close()
			}
		})
	}
}
