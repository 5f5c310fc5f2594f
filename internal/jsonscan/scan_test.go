package jsonscan

import (
	"encoding/json"
	"testing"
)

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
	sc.Reset([]byte(` {"a": "x\\\"y", "n": -12, "f": 1.5e3, "b": true, "o": {"k": [1, {"z": null}]}, "s": "keep"} `))
	got := map[string]any{}
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "a", "s":
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
	if sc.Failed() || got["a"] != `x\"y` || got["n"] != int64(-12) || got["f"] != int64(1500) || got["b"] != true || got["s"] != "keep" {
		t.Errorf("walk = %v, failed %v", got, sc.Failed())
	}
	for _, bad := range []string{`{"a":}`, `{"a" 1}`, `{"a":1,}`, `[1 2]`, `{"a":"x`, `{"a":tru}`, `{} {}`, `{"a":1}}`} {
		sc.Reset([]byte(bad))
		sc.Skip()
		sc.End()
		if !sc.Failed() {
			t.Errorf("%q walked as valid", bad)
		}
	}
}

// FuzzWalk: the walker never panics and never rejects what encoding/json
// accepts.
func FuzzWalk(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":"c\u00e9"}]}`, `"x"`, `-0.5e-3`, `{"a":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var sc Scanner
		sc.Reset(data)
		sc.Skip()
		sc.End()
		if json.Valid(data) && sc.Failed() {
			t.Fatalf("rejects valid JSON %q", data)
		}
	})
}
