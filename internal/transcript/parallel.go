package transcript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"time"
)

// A cold read of a large transcript is split into chunks of whole lines.
// Walking a line (the expensive part) needs nothing from the lines before
// it, so workers walk chunks concurrently; folding the results into the
// session depends on order and stays on one goroutine, chunk by chunk.
//
// Chunks are 1 MiB: each chunk in flight is a buffer the process touches
// for the first time, and with 4 MiB ones a cold `cairn status` of 100 MB
// took 10,200 minor page faults against 4,300 (3,100 for the serial read)
// and 7% more CPU (docs/benchmarks.md, issue 15). Finding a chunk's first
// line reads 16 KB at a time: a line longer than that only costs another
// read.
const (
	parallelMin = 32 << 20 // below this a plain read is as fast
	chunkSize   = 1 << 20
	findWindow  = 16 << 10
)

// errFault is a mapped transcript that shrank while it was read: the
// pages past its new end fault.
var errFault = errors.New("transcript shrank while it was read")

// guardFault, deferred by a goroutine that runs with
// debug.SetPanicOnFault, turns the panic of a fault on a mapped page into
// errFault in *err. Any other panic goes on.
func guardFault(err *error) {
	r := recover()
	if r == nil {
		return
	}
	if re, ok := r.(runtime.Error); ok {
		if _, fault := re.(interface{ Addr() uintptr }); fault {
			*err = errFault
			return
		}
	}
	panic(r)
}

// debugPanicOnFault makes a fault on a mapped page a panic guardFault can
// recover on this goroutine, and returns what undoes it.
func debugPanicOnFault() func() {
	old := debug.SetPanicOnFault(true)
	return func() { debug.SetPanicOnFault(old) }
}

// scanned is one walked line waiting to be applied.
type scanned struct {
	rel  int // line index within the chunk
	off  int64
	bad  string // reason, when the line could not be read
	skip bool   // a line of a type cairn does not read
	e    entry
	ts   time.Time // the entry's time, parsed here rather than in order
	// sayings are the reply's texts analysed here (a full read): the
	// costliest part of applying a reply, and it needs no session.
	sayings []saying
	judged  []judgement // the line's Bash results judged here (a full read)
}

type chunk struct {
	start, end int64
	buf        []byte // the chunk's bytes, read with pread; items point into it
	data       []byte // the chunk's bytes in a mapping, instead of buf
	lines      int
	skipped    int
	items      []scanned
	blocks     []block // arena for the items' content blocks
	tail       []byte
	err        error
	done       chan struct{}
}

func workers() int { return min(runtime.GOMAXPROCS(0), 8) }

// readParallel reads the complete lines in [s.Offset, size) of a Claude
// Code transcript with several workers and reports whether it did; it
// declines (false) when the read is small, and with one CPU or when every
// CPU is taken (busy): then the plain read (Session.read) reads the span
// on this goroutine, with pread into one buffer. A mapping read that way
// cost a whole `cairn status` of 100 MB half as much CPU again on the
// shared machine (180 against 120 ms at a load of 20-26: the pages
// mapped, walked once and unmapped; docs/benchmarks.md, issue 15,
// perf/cold10). The other clients' transcripts are a few megabytes at
// most and read serially.
//
// The parallel read maps the span rather than copying it into chunk
// buffers where the system allows (mapSpan): no buffer is filled, faulted
// in or held for the fold, and a worker's chunk is mapped by that worker.
// A file that
// shrinks under the mapping (truncated: the client rewrote it) ends the
// read with errFault; Update then reads it again from the start with
// pread.
func (p *claudeDecoder) readParallel(s *Session, f *os.File, size int64) (bool, error) {
	if size-s.Offset < parallelMin {
		return false, nil
	}
	n := p.workers
	if n == 0 {
		n = workers()
		if n > 1 && busy(n) {
			n = 1
		}
	}
	if n < 2 {
		return false, nil
	}
	end, err := lastLineEnd(f, s.Offset, size)
	if err != nil || end <= s.Offset {
		return false, err
	}
	base := s.Offset
	fm, mapped := mapSpan(f, base, end)
	var m []byte
	if mapped {
		defer fm.unmap()
		m = fm.bytes()
	}
	var bounds []int64
	bounds = append(bounds, s.Offset)
	for b := s.Offset + chunkSize; b < end; b += chunkSize {
		var nb int64
		if mapped {
			nb = end
			if i := bytes.IndexByte(m[b-base:], '\n'); i >= 0 {
				nb = b + int64(i) + 1
			}
		} else if nb, err = nextLineStart(f, b, end); err != nil {
			return false, err
		}
		if nb > bounds[len(bounds)-1] && nb < end {
			bounds = append(bounds, nb)
		}
	}
	bounds = append(bounds, end)

	chunks := make([]*chunk, len(bounds)-1)
	for i := range chunks {
		chunks[i] = &chunk{start: bounds[i], end: bounds[i+1], done: make(chan struct{})}
		if mapped {
			chunks[i].data = m[bounds[i]-base : bounds[i+1]-base]
		}
	}
	// Workers take chunks in order; at most n+1 chunks are held in memory
	// ahead of the applier.
	jobs := make(chan *chunk)
	slots := make(chan struct{}, n+1)
	// Buffers go back to the pool once their chunk is applied: allocating
	// (and zeroing) a fresh one per chunk cost more than walking it.
	pool := make(chan *chunk, n+1)
	for w := 0; w < n; w++ {
		go func() {
			defer debugPanicOnFault()()
			var wp claudeDecoder
			for c := range jobs {
				select {
				case old := <-pool:
					c.buf, c.items, c.blocks = old.buf, old.items[:0], old.blocks[:0]
				default:
				}
				if c.data != nil {
					fm.populate(int(c.start-base), int(c.end-base))
				}
				c.err = c.scanGuarded(f, &wp, p.full)
				close(c.done)
			}
		}()
	}
	go func() {
		for _, c := range chunks {
			slots <- struct{}{}
			jobs <- c
		}
		close(jobs)
	}()
	defer debugPanicOnFault()()
	var firstErr error
	for _, c := range chunks {
		<-c.done
		if c.err != nil && firstErr == nil {
			firstErr = c.err
		}
		if firstErr == nil {
			firstErr = p.fold(s, c)
		}
		select {
		case pool <- &chunk{buf: c.buf, items: c.items, blocks: c.blocks}:
		default:
		}
		c.buf, c.data, c.items, c.blocks = nil, nil, nil, nil
		<-slots
	}
	p.e, p.sayings, p.judged = entry{}, nil, nil
	if firstErr != nil {
		return true, firstErr
	}
	if h, err := headHash(f, s.Offset); err == nil {
		s.Head = h
	}
	return true, nil
}

// fold applies a walked chunk to the session, in order. Its entries point
// into the chunk's bytes, which may be a mapping that faults.
func (p *claudeDecoder) fold(s *Session, c *chunk) (err error) {
	defer guardFault(&err)
	for i := range c.items {
		it := &c.items[i]
		line := s.Lines + it.rel + 1
		switch {
		case it.bad != "":
			s.bad(line, it.off, it.bad)
		default:
			p.e, p.sayings, p.judged = it.e, it.sayings, it.judged
			p.applyAt(s, line, it.ts)
		}
	}
	s.Skipped += c.skipped
	s.Lines += c.lines
	s.Offset = c.end
	s.rememberTail(nil, c.tail)
	return nil
}

// scanGuarded is scan, with a fault on a mapped page that vanished
// (the file shrank) as errFault.
func (c *chunk) scanGuarded(f *os.File, p *claudeDecoder, full bool) (err error) {
	defer guardFault(&err)
	return c.scan(f, p, full)
}

// scan reads the chunk (unless it is mapped) and walks each of its lines;
// for a full read it also analyses the replies' texts.
func (c *chunk) scan(f *os.File, p *claudeDecoder, full bool) error {
	buf := c.data
	if buf == nil {
		size := int(c.end - c.start)
		if cap(c.buf) < size {
			c.buf = make([]byte, size, size+size/8)
		}
		buf = c.buf[:size]
		if _, err := f.ReadAt(buf, c.start); err != nil && err != io.EOF {
			return err
		}
	}
	c.tail = append([]byte(nil), buf[max(0, len(buf)-tailKeep):]...)
	var cmds map[string]string // the chunk's Bash commands by call id (full)
	for pos := 0; pos < len(buf); {
		i := bytes.IndexByte(buf[pos:], '\n')
		if i < 0 {
			i = len(buf) - pos
		}
		line := buf[pos : pos+i]
		off := c.start + int64(pos)
		rel := c.lines
		c.lines++
		pos += i + 1
		switch reason, ok := p.walk(line); {
		case !ok && reason == "":
			// blank line
		case !ok:
			c.items = append(c.items, scanned{rel: rel, off: off, bad: reason})
		case !interesting(&p.e):
			c.skipped++
		default:
			var ts time.Time
			if mainLine(&p.e) {
				ts = parseTime(p.e.timestamp)
			}
			var said []saying
			var judged []judgement
			if full {
				said = p.analyseAhead(nil)
				if cmds == nil {
					cmds = map[string]string{}
				}
				judged = p.judgeAhead(cmds, nil)
			}
			c.items = append(c.items, scanned{rel: rel, off: off, e: p.e, ts: ts, sayings: said, judged: judged})
			// The walker reuses its block slice: give this entry its own,
			// from the chunk's arena (earlier entries keep the old array
			// when the arena grows).
			start := len(c.blocks)
			c.blocks = append(c.blocks, p.e.msg.blocks...)
			c.items[len(c.items)-1].e.msg.blocks = c.blocks[start:len(c.blocks):len(c.blocks)]
		}
	}
	return nil
}

// lastLineEnd is the offset just past the last newline in [from, size).
func lastLineEnd(f *os.File, from, size int64) (int64, error) {
	buf := make([]byte, findWindow)
	for hi := size; hi > from; {
		lo := max(from, hi-findWindow)
		b := buf[:hi-lo]
		if _, err := f.ReadAt(b, lo); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		hi = lo
	}
	return from, nil
}

// nextLineStart is the offset just past the first newline at or after at,
// or end when there is none before end.
func nextLineStart(f *os.File, at, end int64) (int64, error) {
	buf := make([]byte, findWindow)
	for lo := at; lo < end; lo += findWindow {
		b := buf[:min(findWindow, end-lo)]
		if _, err := f.ReadAt(b, lo); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return lo + int64(i) + 1, nil
		}
	}
	return end, nil
}
