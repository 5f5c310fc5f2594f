package supervisor

import "time"

// chord spots Ctrl+C followed by r within a window in what the user
// types. The Ctrl+C still reaches the client (it clears the input or
// interrupts a turn as usual); only the r is kept back.
type chord struct {
	window time.Duration
	armed  time.Time // when the last Ctrl+C came; zero when none is pending
}

const ctrlC = 0x03

// filter returns what of in goes on to the client, and whether the chord
// was completed.
func (c *chord) filter(now time.Time, in []byte) (out []byte, restart bool) {
	out = in[:0:0]
	for i, b := range in {
		switch {
		case b == 'r' && !c.armed.IsZero() && now.Sub(c.armed) <= c.window:
			c.armed = time.Time{}
			out = append(out, in[i+1:]...)
			return out, true
		case b == ctrlC:
			c.armed = now
		default:
			c.armed = time.Time{}
		}
		out = append(out, b)
	}
	return out, false
}
