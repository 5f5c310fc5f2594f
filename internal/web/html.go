package web

import (
	"fmt"
	"net/url"
	"strings"
)

// html builds a page. Formats are the viewer's own markup; every string
// argument is escaped, so text from a transcript can never become markup.
// (html/template would escape by context, but its package initialisation
// cost every cairn process 0.1 ms, the hooks' included; package html's
// EscapeString is written out below for the same reason.)
type html struct{ b strings.Builder }

// trusted is markup the viewer built itself, passed through f unescaped.
type trusted string

// f writes format with its arguments: strings escaped, trusted as is,
// anything else as fmt prints it.
func (h *html) f(format string, args ...any) {
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = esc(v)
		case trusted:
			args[i] = string(v)
		}
	}
	fmt.Fprintf(&h.b, format, args...)
}

// raw writes the viewer's own markup.
func (h *html) raw(s string) { h.b.WriteString(s) }

func (h *html) bytes() []byte { return []byte(h.b.String()) }

// open starts a page; live, when set, is the address of its event stream.
func (h *html) open(title, live string) {
	h.f(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<link rel="stylesheet" href="/static/style.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
`, title)
	if live != "" {
		h.raw(`<script src="/static/live.js" defer></script>` + "\n")
	}
	h.raw("</head>\n")
	if live != "" {
		h.f("<body data-live=\"%s\">\n", live)
	} else {
		h.raw("<body>\n")
	}
	h.raw(`<nav><a href="/">cairn</a> · <a href="/search">search</a></nav>` + "\n<main>\n")
}

func (h *html) close() { h.raw("</main>\n</body>\n</html>\n") }

// pre writes text as a preformatted block.
func (h *html) pre(text string) { h.f("<pre>%s</pre>\n", text) }

// esc escapes for use inside trusted markup, as html.EscapeString does:
// the same five characters, the same entities. Package html is not
// linked: its initialisation ran in every cairn process, the hooks'
// included (docs/benchmarks.md, "process start").
func esc(s string) string {
	i := strings.IndexAny(s, `&'<>"`)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for _, c := range []byte(s[i:]) {
		switch c {
		case '&':
			b.WriteString("&amp;")
		case '\'':
			b.WriteString("&#39;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&#34;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// seg escapes one path segment of a link.
func seg(s string) string { return url.PathEscape(s) }

// num prints n with thousands separators, as the text commands do.
func num(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
