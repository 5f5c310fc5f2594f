package jsonscan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/jsonscan/jsonscantest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	fixtures.Remove() // what BenchmarkWalk extracted
	os.Exit(code)
}

func TestUnescape(t *testing.T) {
	tests := map[string]string{
		`plain`:         "plain",
		`a\nb\t\"c\"\\`: "a\nb\t\"c\"\\",
		`\u00e9\u4e2d`:  "é中",
		`\ud83d\ude00`:  "😀",
		`bad \x escape`: `bad \x escape`,
		`short \u12`:    `short \u12`,
		`trailing \`:    `trailing \`,
	}
	for in, want := range tests {
		if got := Unescape([]byte(in)); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWalk(t *testing.T) {
	var sc Scanner
	sc.Reset([]byte(` {"a": "x\\\"y", "n": -12, "f": 1.5e3, "b": true, "o": {"k": [1, {"z": null}]}, "s": "keep", "\u0065sc": "e"} `))
	got := map[string]any{}
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "a", "s", "esc":
			got[string(k)] = sc.Str()
		case "n", "f":
			got[string(k)] = sc.Int()
		case "b":
			got["b"] = sc.Bool()
		default:
			sc.Skip()
		}
	}
	sc.End()
	if sc.Failed() || got["a"] != `x\"y` || got["n"] != int64(-12) || got["f"] != int64(1500) || got["b"] != true || got["s"] != "keep" || got["esc"] != "e" {
		t.Errorf("walk = %v, failed %v", got, sc.Failed())
	}
}

// TestValidates: the walker accepts what encoding/json accepts, but for
// the string contents the package comment lists (lenient).
func TestValidates(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		lenient bool
	}{
		{name: "empty", in: ``},
		{name: "blank", in: " \t\r\n"},
		{name: "missing value", in: `{"a":}`},
		{name: "missing colon", in: `{"a" 1}`},
		{name: "trailing comma in object", in: `{"a":1,}`},
		{name: "trailing comma in array", in: `[1,]`},
		{name: "missing comma", in: `[1 2]`},
		{name: "unterminated string", in: `{"a":"x`},
		{name: "escaped closing quote", in: `"x\"`},
		{name: "empty strings", in: `{"":""}`},
		{name: "escaped quote first", in: `{"\"":"\""}`},
		{name: "two backslashes before the quote", in: `["\\","\\\"\\"]`},
		{name: "control bytes between tokens", in: "[1,\x01 2]"},
		{name: "DEL between tokens", in: "[1,\x7f2]"},
		{name: "truncated literal", in: `{"a":tru}`},
		{name: "literal run on", in: `truex`},
		{name: "two values", in: `{} {}`},
		{name: "extra brace", in: `{"a":1}}`},
		{name: "unclosed", in: `[[1]`},
		{name: "number as key", in: `{1:2}`},
		{name: "leading zero", in: `01`},
		{name: "negative leading zero", in: `-01`},
		{name: "minus alone", in: `-`},
		{name: "plus", in: `+1`},
		{name: "dot without fraction", in: `1.`},
		{name: "dot first", in: `.5`},
		{name: "exponent without digits", in: `1e`},
		{name: "exponent sign without digits", in: `1e+`},
		{name: "two exponents", in: `1e5e5`},
		{name: "hex", in: `0x10`},
		{name: "minus inside", in: `[1-2]`},
		{name: "form feed as space", in: "\f1"},
		{name: "too deep", in: strings.Repeat("[", 10001) + strings.Repeat("]", 10001)},
		{name: "deep", in: strings.Repeat("[", 10000) + strings.Repeat("]", 10000)},
		{name: "numbers", in: `[0,-0,1.5,-0.0e+00,2E-7,123456789012345678901234567890,1e400]`},
		{name: "escapes", in: `"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00\ud800"`},
		{name: "DEL and invalid UTF-8 in a string", in: "\"\x7f\xff\""},
		{name: "white space", in: " \t\r\n{ \"a\" : [ 1 , true ] } \n"},
		{name: "escaped quotes and backslashes", in: `{"a":"x\"}","b":"y\\"}`},
		{name: "raw newline in string", in: "\"a\nb\"", lenient: true},
		{name: "raw tab in string", in: "\"a\tb\"", lenient: true},
		{name: "raw NUL in key", in: "{\"a\x00\":1}", lenient: true},
		{name: "undefined escape", in: `"\x41"`, lenient: true},
		{name: "escaped newline", in: "\"\\\n\"", lenient: true},
		{name: "short unicode escape", in: `"\u12"`, lenient: true},
		{name: "non-hex unicode escape", in: `"\u12g4"`, lenient: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			if accepts, valid := walks(in), json.Valid(in); accepts != valid != tt.lenient || accepts != json.Valid(jsonscantest.Strict(in)) {
				t.Errorf("%.40q: walker accepts %v, encoding/json %v (lenient %v)", in, accepts, valid, tt.lenient)
			}
		})
	}
}

// walks reports whether the walker accepts data as one JSON value.
func walks(data []byte) bool {
	var sc Scanner
	sc.Reset(data)
	sc.Skip()
	sc.End()
	return !sc.Failed()
}

// FuzzWalk holds the walker to encoding/json: it never panics; it accepts
// exactly what json.Valid accepts once the string contents it lets pass are
// made strict (jsonscantest.Strict), and exactly what json.Valid accepts
// when there are none; and it decodes a string, or an object's keys, as
// encoding/json does (invalid UTF-8 substituted the same way first:
// Unescape keeps the bytes).
func FuzzWalk(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":"c\u00e9"}]}`, `"x"`, `-0.5e-3`, `{"a":"\\"}`, `01`, `1.`, `+1`, "\"\t\"", `"\x"`, `{"\u0061":1,"b\"":2}`, `"\ud83d\ude00\ud800x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		strict := jsonscantest.Strict(data)
		accepts := walks(data)
		if valid := json.Valid(strict); accepts != valid {
			t.Fatalf("walker accepts %v, encoding/json %v, on %q made strict as %q", accepts, valid, data, strict)
		}
		if !accepts || !bytes.Equal(strict, data) {
			return
		}
		var sc Scanner
		sc.Reset(data)
		switch sc.Peek() {
		case '"':
			var want string
			json.Unmarshal(data, &want)
			if got := replaceInvalid(sc.Str()); got != want {
				t.Fatalf("string %q decodes to %q, encoding/json says %q", data, got, want)
			}
		case '{':
			var want map[string]json.RawMessage
			json.Unmarshal(data, &want)
			got := map[string]bool{}
			sc.Object()
			for k := sc.Key(); k != nil; k = sc.Key() {
				got[replaceInvalid(string(k))] = true
				sc.Skip()
			}
			if len(got) != len(want) {
				t.Fatalf("keys %v, encoding/json has %d", got, len(want))
			}
			for k := range want {
				if !got[k] {
					t.Fatalf("key %q missing from %v", k, got)
				}
			}
		}
	})
}

// replaceInvalid substitutes U+FFFD for each byte of s that is not valid
// UTF-8, as encoding/json does when it decodes a string.
func replaceInvalid(s string) string { return string([]rune(s)) }

// BenchmarkWalk walks every line of the fixture transcripts whole.
func BenchmarkWalk(b *testing.B) {
	var lines [][]byte
	var size int64
	for _, name := range append([]string{fixtures.Compactions[0].Session}, fixtures.Small...) {
		path, err := fixtures.Path(name)
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines = append(lines, bytes.Clone(sc.Bytes()))
			size += int64(len(sc.Bytes()))
		}
		f.Close()
	}
	b.SetBytes(size)
	var sc Scanner
	for b.Loop() {
		for _, l := range lines {
			sc.Reset(l)
			sc.Skip()
			sc.End()
			if sc.Failed() {
				b.Fatalf("fixture line refused: %.200s", l)
			}
		}
	}
}

// skipByCalls is Skip as it was before skipNested: a call per token
// through Object, Key, Array and More, the walk the callers' own loops
// do. FuzzSkipNested holds skipNested to it.
func skipByCalls(s *Scanner) {
	switch s.Peek() {
	case '{':
		for s.Object(); s.Key() != nil; {
			skipByCalls(s)
		}
	case '[':
		for s.Array(); s.More(); {
			skipByCalls(s)
		}
	default:
		s.Skip()
	}
}

// FuzzSkipNested: Skip of a nested value fails on the same inputs as the
// walk by calls and ends at the same byte, at any depth the caller is
// already at (a value skipped inside an object the caller walks).
func FuzzSkipNested(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":"c\u00e9"}]}`, `[1,]`, `{"a":1,}`, `{,}`, `[,1]`, `{"a" 1}`, `{"a":tru}`, `[1 2]`, `{"a":"x\"}"} `, `[[],{},[{}]] 1`, `{"\\":"\\\\\""}`, strings.Repeat("[", 40) + strings.Repeat("]", 40), "[\x01]", `[-0.5e+3,nul,false]`, `{"a":{"b":{"c":[]}}}x`, `[` + strings.Repeat(`{"k":[1,"s",true,null,{}],"t":"\\\"q"},`, 30) + `0]`} {
		f.Add([]byte(s), uint16(0))
	}
	f.Add([]byte(strings.Repeat("[", 10001)+strings.Repeat("]", 10001)), uint16(0))
	f.Add([]byte(`[[1]]`), uint16(9999))
	f.Fuzz(func(t *testing.T, data []byte, depth uint16) {
		depth %= maxDepth + 1
		var a, b Scanner
		a.Reset(data)
		b.Reset(data)
		for range depth {
			a.stack = append(a.stack, false)
			b.stack = append(b.stack, false)
		}
		a.Skip()
		skipByCalls(&b)
		if a.Failed() != b.Failed() || a.Pos() != b.Pos() {
			t.Fatalf("%.60q at depth %d: Skip failed %v at %d, by calls %v at %d", data, depth, a.Failed(), a.Pos(), b.Failed(), b.Pos())
		}
		if !a.Failed() && len(a.stack) != int(depth) {
			t.Fatalf("%.60q: the stack is %d deep after Skip, was %d", data, len(a.stack), depth)
		}
	})
}
