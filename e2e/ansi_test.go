//go:build unix

package e2e

import "testing"

// TestANSIHTML: the SGR sequences tmux's capture-pane -e writes become
// styled spans; text is escaped; other sequences are dropped.
func TestANSIHTML(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain, escaped", "a <b> & c", "a &lt;b&gt; &amp; c"},
		{"a colour and reset", "\x1b[32mok\x1b[0m done", `<span style="color:#6fbf73">ok</span> done`},
		{"bold red, then default colour keeps bold", "\x1b[31;1mX\x1b[39mY\x1b[m", `<span style="color:#e0524f;font-weight:bold">X</span><span style="font-weight:bold">Y</span>`},
		{"reverse video on the default colours", "\x1b[7m title \x1b[27m", `<span style="color:#1e1e1e;background:#d4d4d4"> title </span>`},
		{"dim, then normal intensity", "\x1b[2mdim\x1b[22mnot", `<span style="opacity:0.6">dim</span>not`},
		{"256 colours and true colour", "\x1b[38;5;196ma\x1b[48;2;1;2;3mb", `<span style="color:#ff0000">a</span><span style="color:#ff0000;background:#010203">b</span>`},
		{"other sequences dropped", "\x1b[?25lx\x1b[Ky", "xy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ansiHTML(tt.in); got != tt.want {
				t.Errorf("ansiHTML(%q) =\n%s\nwant\n%s", tt.in, got, tt.want)
			}
		})
	}
}

// TestStripANSI: the pane's text, as a browser shows the page's.
func TestStripANSI(t *testing.T) {
	in := "\x1b[7m cairn ui \x1b[27m\n\x1b[38;5;196m› ●\x1b[0m ae4a77f8\x1b[K"
	if got, want := stripANSI(in), " cairn ui \n› ● ae4a77f8"; got != want {
		t.Errorf("stripANSI = %q, want %q", got, want)
	}
}
