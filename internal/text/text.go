// Package text shapes strings for where cairn shows them: one line, cut to
// a size on a rune boundary, and durations as people read them. One copy of
// each rule, so that the restore, the handoff, the listings and the log cut
// text the same way.
package text

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// OneLine folds every run of white space in s, newlines included, to one
// space, and trims the ends.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Ellipsis marks text that was cut.
const Ellipsis = "…"

// Clip cuts s to at most n bytes, the ellipsis included, on a rune
// boundary; s as it is when it fits.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Truncate(s, max(0, n-len(Ellipsis))) + Ellipsis
}

// ClipLine is OneLine then Clip.
func ClipLine(s string, n int) string { return Clip(OneLine(s), n) }

// ClipMiddle is OneLine, then, when longer than n bytes, its start and its
// end with an ellipsis between, each cut at a word where one is near: a
// long command line says what runs at its start and what it runs on
// (the flag added on a retry, the URL, the target) at its end.
func ClipMiddle(s string, n int) string {
	s = OneLine(s)
	if len(s) <= n {
		return s
	}
	const gap = " " + Ellipsis + " "
	room := n - len(gap)
	if room < 20 {
		return Clip(s, n)
	}
	head := Truncate(s, room*2/5)
	if i := strings.LastIndexByte(head, ' '); i > len(head)-20 && i > 0 {
		head = head[:i]
	}
	start := len(s) - (room - len(head))
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	tail := s[start:]
	if i := strings.IndexByte(tail, ' '); i >= 0 && i < 20 && i+1 < len(tail) {
		tail = tail[i+1:]
	}
	return head + gap + tail
}

// Truncate cuts s to at most n bytes on a rune boundary, with no mark.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// Ago is a duration in the short form listings use: "45s", "12m", "3h05m",
// "4d".
func Ago(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Age is a duration in its largest whole unit, as narrow displays show it:
// "45s", "3m", "2h", "4d".
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// AgoWords is a duration as a sentence says it: "moments", "12 min",
// "3 h", "4 days".
func AgoWords(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "moments"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// Bytes says a size for people: "512 B", "14 KB", "3.2 MB", "1.1 GB"
// (powers of 1024).
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, suffix := float64(n)/unit, "KB"
	for _, s := range []string{"MB", "GB", "TB"} {
		if f < unit {
			break
		}
		f, suffix = f/unit, s
	}
	if f < 10 {
		return fmt.Sprintf("%.1f %s", f, suffix)
	}
	return fmt.Sprintf("%.0f %s", f, suffix)
}
