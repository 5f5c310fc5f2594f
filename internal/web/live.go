package web

import (
	"bufio"
	"encoding/json"
	"fmt"
	"time"
)

// heartbeat keeps an idle stream open through proxies and tells a
// stream whose client went away that it has.
const heartbeat = 15 * time.Second

// events streams a session page's changing parts as server-sent events:
// each time the transcript grows, the incremental engine reads the lines
// appended (never the whole file again) and the parts are sent re-rendered
// as one "update" event, a JSON object of element id to HTML.
func (s *Server) events(r *request, key, id string) (*response, func(*bufio.Writer) error) {
	f, err := s.sessionFile(key, id)
	if err != nil {
		return notFound(), nil
	}
	path := f.path
	l, err := s.session(path)
	if err != nil {
		return s.page(nil, err)
	}
	unfollow := s.follow(l)
	return nil, func(w *bufio.Writer) error {
		defer unfollow()
		w.WriteString("HTTP/1.1 200 OK\r\n")
		for _, h := range securityHeaders {
			fmt.Fprintf(w, "%s: %s\r\n", h[0], h[1])
		}
		w.WriteString("Content-Type: text/event-stream; charset=utf-8\r\nConnection: close\r\n\r\nretry: 2000\n\n")
		if err := w.Flush(); err != nil {
			return err
		}
		tick := time.NewTicker(s.Poll)
		defer tick.Stop()
		beat := time.NewTimer(heartbeat)
		defer beat.Stop()
		for {
			select {
			case <-r.ctx.Done():
				return nil
			case <-beat.C:
				w.WriteString(": heartbeat\n\n")
			case <-tick.C:
				l.mu.Lock()
				changed, err := l.update()
				var data []byte
				if changed && err == nil {
					v := s.view(l, key, f)
					parts := map[string]string{}
					for _, p := range v.parts() {
						parts[p[0]] = p[1]
					}
					data, _ = json.Marshal(map[string]any{"turns": l.s.NumTurns(), "parts": parts})
				}
				l.mu.Unlock()
				if err != nil {
					fmt.Fprintf(s.Log, "cairn web: %s: %v\n", path, err)
					continue
				}
				if data == nil {
					continue
				}
				// JSON holds no raw newline, so it is one data line.
				w.WriteString("event: update\ndata: ")
				w.Write(data)
				w.WriteString("\n\n")
			}
			beat.Reset(heartbeat)
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
}
