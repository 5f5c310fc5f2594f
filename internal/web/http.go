package web

import (
	"bufio"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The viewer speaks the little of HTTP/1.1 a browser needs from a
// read-only local server: GET and HEAD, a Content-Length on every answer
// but the event stream, keep-alive. net/http is not used: linked into the
// binary, its package initialisation cost every hook process 0.24 ms
// (docs/benchmarks.md), and cairn is one binary.

const (
	maxHeaderBytes = 16 << 10
	readTimeout    = 30 * time.Second
	idleTimeout    = 2 * time.Minute
)

// request is what the viewer reads of an HTTP request.
type request struct {
	method string
	path   string
	query  url.Values
	header map[string]string // lower-cased names, the last value
	close  bool
	ctx    context.Context
}

// cookie returns the named cookie's value.
func (r *request) cookie(name string) string {
	for _, part := range strings.Split(r.header["cookie"], ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok && k == name {
			return v
		}
	}
	return ""
}

// response is one answer with a body of known length.
type response struct {
	status int
	header [][2]string
	body   []byte
}

// statusText is the reason phrase of the statuses the viewer sends. A
// switch, not a map: a map literal is built at package initialisation,
// which every cairn process, every hook's included, would pay for.
func statusText(code int) string {
	switch code {
	case 200:
		return "OK"
	case 303:
		return "See Other"
	case 400:
		return "Bad Request"
	case 403:
		return "Forbidden"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 431:
		return "Request Header Fields Too Large"
	}
	return "Internal Server Error"
}

// securityHeaders go on every answer: nothing but the viewer's own files
// runs or loads, no page frames it, no address leaves it.
var securityHeaders = [][2]string{
	{"Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"},
	{"X-Content-Type-Options", "nosniff"},
	{"Referrer-Policy", "no-referrer"},
	{"Cache-Control", "no-store"},
}

// handler answers a request: a response, or stream (the event stream),
// which writes its own status line and headers to w and returns when the
// client goes or ctx ends.
type handler func(r *request) (resp *response, stream func(w *bufio.Writer) error)

// serveConn reads requests from c and answers them until the client closes
// the connection, asks to, or idles past idleTimeout.
func serveConn(ctx context.Context, c conn, h handler) {
	defer c.Close()
	br := bufio.NewReaderSize(c, 4096)
	bw := bufio.NewWriterSize(deadlineWriter{c}, 32<<10)
	for first := true; ; first = false {
		timeout := readTimeout
		if !first {
			timeout = idleTimeout
		}
		c.SetReadDeadline(time.Now().Add(timeout))
		r, err := readRequest(br)
		if err != nil {
			var he httpError
			if errors.As(err, &he) {
				writeResponse(bw, &response{status: he.status, body: []byte(he.msg + "\n")}, false, true)
				bw.Flush()
			}
			return
		}
		c.SetReadDeadline(time.Time{})
		rctx, cancel := context.WithCancel(ctx)
		r.ctx = rctx
		resp, stream := h(r)
		if stream != nil {
			// The stream ends when the client goes: a read that returns
			// (EOF, or a request it should not send) cancels it.
			go func() {
				io.Copy(io.Discard, br)
				cancel()
			}()
			stream(bw)
			cancel()
			return
		}
		cancel()
		if err := writeResponse(bw, resp, r.method == "HEAD", r.close); err != nil || r.close {
			return
		}
	}
}

// writeTimeout is how long one write may wait for a client that does
// not read: past it the connection is dropped, so that a stream whose
// client stopped reading without going ends, and its session can be
// given back.
const writeTimeout = 30 * time.Second

// deadlineWriter writes to a connection, each write within writeTimeout.
type deadlineWriter struct{ c conn }

func (d deadlineWriter) Write(p []byte) (int, error) {
	d.c.SetWriteDeadline(time.Now().Add(writeTimeout))
	return d.c.Write(p)
}

type httpError struct {
	status int
	msg    string
}

func (e httpError) Error() string { return e.msg }

// readRequest reads one request's line and headers (a GET has no body).
func readRequest(br *bufio.Reader) (*request, error) {
	n := 0
	line := func() (string, error) {
		s, err := br.ReadSlice('\n')
		n += len(s)
		if errors.Is(err, bufio.ErrBufferFull) || n > maxHeaderBytes {
			return "", httpError{431, "request header too large"}
		}
		if err != nil {
			return "", err
		}
		return strings.TrimRight(string(s), "\r\n"), nil
	}
	first, err := line()
	if err != nil {
		return nil, err
	}
	method, rest, ok1 := strings.Cut(first, " ")
	target, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || !strings.HasPrefix(proto, "HTTP/1.") {
		return nil, httpError{400, "malformed request line"}
	}
	r := &request{method: method, header: map[string]string{}, close: proto == "HTTP/1.0"}
	for {
		l, err := line()
		if err != nil {
			return nil, err
		}
		if l == "" {
			break
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return nil, httpError{400, "malformed header"}
		}
		r.header[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	if strings.EqualFold(r.header["connection"], "close") {
		r.close = true
	}
	if r.header["content-length"] != "" && r.header["content-length"] != "0" || r.header["transfer-encoding"] != "" {
		// Only GET and HEAD are served, and they carry no body; one the
		// server will not read would be taken for the next request.
		return nil, httpError{405, "only GET and HEAD"}
	}
	u, err := url.ParseRequestURI(target)
	if err != nil || !strings.HasPrefix(u.Path, "/") {
		return nil, httpError{400, "malformed request target"}
	}
	r.path = u.Path
	if r.query, err = url.ParseQuery(u.RawQuery); err != nil {
		return nil, httpError{400, "malformed query"}
	}
	return r, nil
}

// writeResponse writes resp, with its body unless head.
func writeResponse(bw *bufio.Writer, resp *response, head, closing bool) error {
	fmt.Fprintf(bw, "HTTP/1.1 %d %s\r\n", resp.status, statusText(resp.status))
	for _, h := range securityHeaders {
		fmt.Fprintf(bw, "%s: %s\r\n", h[0], h[1])
	}
	hasType := false
	for _, h := range resp.header {
		hasType = hasType || h[0] == "Content-Type"
		fmt.Fprintf(bw, "%s: %s\r\n", h[0], h[1])
	}
	if !hasType {
		bw.WriteString("Content-Type: text/plain; charset=utf-8\r\n")
	}
	bw.WriteString("Content-Length: " + strconv.Itoa(len(resp.body)) + "\r\n")
	if closing {
		bw.WriteString("Connection: close\r\n")
	}
	bw.WriteString("\r\n")
	if !head {
		bw.Write(resp.body)
	}
	return bw.Flush()
}

// serve accepts connections on ln until ctx ends, and waits for the
// connections it is answering to end.
func serve(ctx context.Context, ln *Listener, h handler) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[conn]bool{}
	stop := context.AfterFunc(ctx, func() {
		ln.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	defer stop()
	for {
		c, err := ln.Accept()
		if err != nil {
			wg.Wait()
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		mu.Lock()
		conns[c] = true
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			serveConn(ctx, c, h)
			mu.Lock()
			delete(conns, c)
			mu.Unlock()
		}()
	}
}

// tokenOK compares a presented token with the server's in constant time.
func tokenOK(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
