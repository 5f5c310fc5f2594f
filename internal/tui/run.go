package tui

import (
	"context"
	"io"
	"strings"
	"time"
)

// Terminal is what Run draws on. The caller puts the terminal in raw mode
// (and takes it out again); Run only writes escape sequences, which it
// always undoes before it returns.
type Terminal struct {
	In  io.Reader
	Out io.Writer
	// Size is the terminal's width and height in cells.
	Size func() (width, height int, err error)
	// Resized receives when the terminal changed size (SIGWINCH).
	Resized <-chan struct{}
	Colour  bool
}

// Source reads the sessions to show, up to date. It is called once per
// tick and must be cheap when nothing changed (the engine reads only what
// was appended).
type Source func() ([]Session, error)

// Options are Run's clock and labels.
type Options struct {
	// Tick receives when the sessions should be read again.
	Tick <-chan time.Time
	Now  func() time.Time
	Loc  *time.Location
	// Scope says what is listed, for the title bar.
	Scope string
}

// Escape sequences of the alternate screen, the cursor and the frame.
const (
	enterScreen = "\x1b[?1049h\x1b[?25l"
	leaveScreen = "\x1b[?25h\x1b[?1049l"
	home        = "\x1b[H"
	clearEOL    = "\x1b[K"
)

// key is one key press, as Run understands it.
type key int

const (
	keyNone key = iota
	keyUp
	keyDown
	keyFirst
	keyLast
	keyQuit
	keyRedraw
)

// Run shows the sessions until the user quits (q, Esc, Ctrl+C), the input
// ends or ctx is done. The alternate screen is left and the cursor shown
// again on every way out.
func Run(ctx context.Context, t Terminal, src Source, o Options) (err error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	keys := make(chan key, 16)
	go readKeys(t.In, keys)

	if _, err := io.WriteString(t.Out, enterScreen); err != nil {
		return err
	}
	defer func() {
		if _, werr := io.WriteString(t.Out, leaveScreen); err == nil {
			err = werr
		}
	}()

	v := View{Scope: o.Scope, Colour: t.Colour, Loc: o.Loc}
	var selectedID string
	refresh := func() {
		ss, rerr := src()
		v.Err = ""
		if rerr != nil {
			v.Err = rerr.Error()
		}
		v.Sessions = ss
		// Keep the same session selected when the list reorders.
		for i, s := range ss {
			if s.ID == selectedID && selectedID != "" {
				v.Selected = i
			}
		}
		v.Selected = min(max(v.Selected, 0), max(len(ss)-1, 0))
	}
	var last string
	draw := func(force bool) error {
		w, h, serr := t.Size()
		if serr != nil || w <= 0 || h <= 0 {
			w, h = 80, 24
		}
		v.Width, v.Height, v.Now = w, h, o.Now()
		if len(v.Sessions) > 0 {
			selectedID = v.Sessions[v.Selected].ID
		}
		out := frameBytes(Render(v))
		if out == last && !force {
			return nil
		}
		last = out
		_, werr := io.WriteString(t.Out, out)
		return werr
	}

	refresh()
	if err := draw(true); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-o.Tick:
			refresh()
		case <-t.Resized:
			if err := draw(true); err != nil {
				return err
			}
			continue
		case k, ok := <-keys:
			if !ok || k == keyQuit {
				return nil
			}
			switch k {
			case keyUp:
				v.Selected = max(v.Selected-1, 0)
			case keyDown:
				v.Selected = min(v.Selected+1, max(len(v.Sessions)-1, 0))
			case keyFirst:
				v.Selected = 0
			case keyLast:
				v.Selected = max(len(v.Sessions)-1, 0)
			case keyRedraw:
				refresh()
				if err := draw(true); err != nil {
					return err
				}
				continue
			}
		}
		if err := draw(false); err != nil {
			return err
		}
	}
}

// frameBytes is the frame as written: from the top left, each line
// cleared to its end, and what is below the frame cleared.
func frameBytes(lines []string) string {
	var b strings.Builder
	b.WriteString(home)
	for i, l := range lines {
		b.WriteString(l)
		b.WriteString(clearEOL)
		if i < len(lines)-1 {
			b.WriteString("\r\n")
		}
	}
	return b.String()
}

// readKeys turns the raw input into keys until it ends, then closes keys.
func readKeys(in io.Reader, keys chan<- key) {
	defer close(keys)
	buf := make([]byte, 64)
	for {
		n, err := in.Read(buf)
		for _, k := range parseKeys(buf[:n]) {
			keys <- k
		}
		if err != nil {
			return
		}
	}
}

// parseKeys reads the keys in one read of raw input. A lone Esc is a read
// of that one byte: an arrow key's sequence arrives in one read.
func parseKeys(b []byte) []key {
	var ks []key
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == 0x1b && i+2 < len(b) && (b[i+1] == '[' || b[i+1] == 'O'):
			switch b[i+2] {
			case 'A':
				ks = append(ks, keyUp)
			case 'B':
				ks = append(ks, keyDown)
			case 'H':
				ks = append(ks, keyFirst)
			case 'F':
				ks = append(ks, keyLast)
			}
			i += 2
			// Skip the rest of a longer sequence (Page Up is ESC [ 5 ~).
			for i+1 < len(b) && b[i] >= '0' && b[i] <= '9' {
				i++
			}
		case c == 0x1b && len(b) == 1:
			ks = append(ks, keyQuit)
		case c == 'q' || c == 'Q' || c == 3 || c == 4: // Ctrl+C, Ctrl+D
			ks = append(ks, keyQuit)
		case c == 'k':
			ks = append(ks, keyUp)
		case c == 'j':
			ks = append(ks, keyDown)
		case c == 'g':
			ks = append(ks, keyFirst)
		case c == 'G':
			ks = append(ks, keyLast)
		case c == 'r' || c == 12: // Ctrl+L
			ks = append(ks, keyRedraw)
		}
	}
	return ks
}
