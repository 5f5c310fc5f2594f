// Package jsonscantest states, for tests, how far jsonscan is more lenient
// than encoding/json: Strict turns what the walker accepts into what
// encoding/json accepts, so that a test can hold the walker, or a decoder
// built on it, to encoding/json on every input.
package jsonscantest

// Strict returns data with each string's contents made valid JSON as the
// walker reads them, and nothing else changed: a raw control character
// becomes 'x', and a backslash before a character JSON does not define as
// an escape becomes an escaped backslash (the character then stands for
// itself). Strings end where the walker ends them, at the first quote that
// no backslash escapes. So json.Valid(Strict(data)) is whether the walker
// accepts data, and data with no such string comes back unchanged.
func Strict(data []byte) []byte {
	out := make([]byte, 0, len(data)+8)
	in := false // inside a string
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case !in:
			in = c == '"'
			out = append(out, c)
		case c == '"':
			in = false
			out = append(out, c)
		case c == '\\' && i+1 < len(data):
			if n := escape(data[i+1:]); n > 0 {
				out = append(out, data[i:i+1+n]...)
				i += n
				continue
			}
			// A backslash escapes the byte after it, whatever it is:
			// the byte cannot end the string.
			i++
			out = append(out, '\\', '\\', printable(data[i]))
		default:
			out = append(out, printable(c))
		}
	}
	return out
}

// escape is the length of the escape b starts with (after its backslash),
// 0 when JSON does not define it.
func escape(b []byte) int {
	switch b[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 1
	case 'u':
		if len(b) < 5 {
			return 0
		}
		for _, h := range b[1:5] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return 0
			}
		}
		return 5
	}
	return 0
}

func printable(c byte) byte {
	if c < 0x20 {
		return 'x'
	}
	return c
}
