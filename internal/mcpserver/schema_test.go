package mcpserver

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/golden"
)

// allTools is a server with both sets of tools; nothing is called.
func allTools() *server {
	return newServer(Options{Memory: struct{ Memory }{}, Keeper: &continuity.Keeper{}, Version: "test"})
}

// The tool definitions as tools/list sends them: what the model reads,
// kept in testdata/tools.json (-update rewrites it). They are those the
// SDK inferred with jsonschema-go when the server was built on it.
func TestToolsGolden(t *testing.T) {
	var b bytes.Buffer
	if err := json.Indent(&b, allTools().list, "", "  "); err != nil {
		t.Fatal(err)
	}
	b.WriteByte('\n')
	golden.Check(t, filepath.Join("testdata", "tools.json"), b.String())
}

type sample struct {
	Name  string  `json:"name"`
	Level string  `json:"level,omitempty" jsonschema:"how much"`
	N     int     `json:"n,omitempty"`
	Small int8    `json:"small,omitzero"`
	On    bool    `json:"on,omitempty"`
	IDs   []int64 `json:"ids,omitempty"`
	Tags  []string
	skip  string // unexported: not a property
	Skip  string `json:"-"`
}

func TestSchemaJSON(t *testing.T) {
	got, err := json.Marshal(schemaFor[sample](map[string][]string{"level": {"low", "high"}}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{` +
		`"name":{"type":"string"},` +
		`"level":{"type":"string","description":"how much","enum":["low","high"]},` +
		`"n":{"type":"integer"},"small":{"type":"integer"},"on":{"type":"boolean"},` +
		`"ids":{"type":"array","items":{"type":"integer"}},` +
		`"Tags":{"type":"array","items":{"type":"string"}}},` +
		`"required":["name","Tags"],"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
	if got, _ := json.Marshal(schemaFor[statusIn](nil)); string(got) != `{"type":"object","additionalProperties":false}` {
		t.Errorf("schema of no arguments: %s", got)
	}
}

// Arguments are decoded strictly, as the schema promises the model: what
// it does not allow is refused with what to correct.
func TestDecode(t *testing.T) {
	enums := map[string][]string{"level": {"low", "high"}}
	for _, c := range []struct {
		name, args string
		want       sample
		err        string
	}{
		{"all", `{"name":"a","level":"high","n":-3,"small":7,"on":true,"ids":[1,2],"Tags":["x"]}`,
			sample{Name: "a", Level: "high", N: -3, Small: 7, On: true, IDs: []int64{1, 2}, Tags: []string{"x"}}, ""},
		{"required only", `{"name":"","Tags":[]}`, sample{Tags: []string{}}, ""},
		{"spaces", " {\"name\" : \"a\\u00e9\", \"Tags\" : [ ] } ", sample{Name: "aé", Tags: []string{}}, ""},
		{"integer as a whole number", `{"name":"a","Tags":[],"n":2.0,"ids":[1e3]}`, sample{Name: "a", Tags: []string{}, N: 2, IDs: []int64{1000}}, ""},
		{"absent", ``, sample{}, `required: missing properties: ["name","Tags"]`},
		{"null", `null`, sample{}, `required: missing properties: ["name","Tags"]`},
		{"not an object", `[1,2]`, sample{}, "the arguments are an array, want an object"},
		{"a string", `"x"`, sample{}, "the arguments are a string, want an object"},
		{"unknown", `{"name":"a","Tags":[],"zz":1,"bogus":2}`, sample{}, `unexpected additional properties ["bogus","zz"]`},
		{"case matters", `{"Name":"a","Tags":[]}`, sample{}, `unexpected additional properties ["Name"]`},
		{"unexported", `{"name":"a","Tags":[],"skip":"x"}`, sample{}, `unexpected additional properties ["skip"]`},
		{"dash", `{"name":"a","Tags":[],"Skip":"x"}`, sample{}, `unexpected additional properties ["Skip"]`},
		{"missing one", `{"name":"a"}`, sample{}, `required: missing properties: ["Tags"]`},
		{"string for integer", `{"name":"a","Tags":[],"n":"3"}`, sample{}, `n: "3" has type "string", want "integer"`},
		{"fraction", `{"name":"a","Tags":[],"n":2.5}`, sample{}, `n: 2.5 has type "number", want "integer"`},
		{"tiny", `{"name":"a","Tags":[],"n":1e-400}`, sample{}, `n: 1e-400 has type "number", want "integer"`},
		{"int64 overflow", `{"name":"a","Tags":[],"n":99999999999999999999}`, sample{}, "n: 99999999999999999999 is out of range"},
		{"huge", `{"name":"a","Tags":[],"n":1e400}`, sample{}, "n: 1e400 is out of range"},
		{"int8 overflow", `{"name":"a","Tags":[],"small":300}`, sample{}, "small: 300 is out of range"},
		{"null value", `{"name":null,"Tags":[]}`, sample{}, `name: null has type "null", want "string"`},
		{"number for string", `{"name":7,"Tags":[]}`, sample{}, `name: 7 has type "integer", want "string"`},
		{"string for boolean", `{"name":"a","Tags":[],"on":"true"}`, sample{}, `on: "true" has type "string", want "boolean"`},
		{"enum", `{"name":"a","Tags":[],"level":"mid"}`, sample{}, `level: "mid" is not one of low, high`},
		{"empty is not in the enum", `{"name":"a","Tags":[],"level":""}`, sample{}, `level: "" is not one of low, high`},
		{"null list", `{"name":"a","Tags":null}`, sample{}, `Tags: null has type "null", want "array"`},
		{"object for list", `{"name":"a","Tags":{}}`, sample{}, `Tags: {} has type "object", want "array"`},
		{"item", `{"name":"a","Tags":[],"ids":[1,"2"]}`, sample{}, `ids: item 1: "2" has type "string", want "integer"`},
		{"long value cut", `{"name":["` + strings.Repeat("x", 100) + `"],"Tags":[]}`, sample{},
			`name: ["` + strings.Repeat("x", 58) + `... has type "array", want "string"`},
		{"invalid JSON", `{"name":`, sample{}, "the arguments are not JSON"},
		{"almost null", `nul`, sample{}, "the arguments are not JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got sample
			err := schemaFor[sample](enums).decode(json.RawMessage(c.args), &got)
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("decode %s: %v", c.args, err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("decode %s: error %v, want %q", c.args, err, c.err)
			case c.err == "" && !reflect.DeepEqual(got, c.want):
				t.Errorf("decode %s = %+v, want %+v", c.args, got, c.want)
			}
		})
	}
}

// Types the schema cannot describe fail when the server is built.
func TestSchemaPanics(t *testing.T) {
	type float struct {
		F float64 `json:"f"`
	}
	type nested struct {
		L [][]string `json:"l"`
	}
	type enumInt struct {
		N int `json:"n"`
	}
	for name, f := range map[string]func(){
		"not a struct":       func() { schemaFor[string](nil) },
		"float":              func() { schemaFor[float](nil) },
		"list of lists":      func() { schemaFor[nested](nil) },
		"enum on an integer": func() { schemaFor[enumInt](map[string][]string{"n": {"1"}}) },
		"enum on nothing":    func() { schemaFor[enumInt](map[string][]string{"m": {"1"}}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}

// FuzzDecode: any arguments give a decoded struct or an error, never a
// panic; what is accepted is a JSON object (or nothing) with only the
// schema's properties.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `{"query":"x"}`, `{"query":"x","limit":2.0,"all_projects":true}`,
		`{"query":"x","limit":1e400}`, `{"query":"x","kind":7}`, `[1,2]`, `{"query":"\ud800"}`, `{"query":"x","query":"y"}`} {
		f.Add([]byte(s))
	}
	schema := schemaFor[searchIn](nil)
	f.Fuzz(func(t *testing.T, args []byte) {
		var in searchIn
		if schema.decode(args, &in) != nil {
			return
		}
		trimmed := bytes.TrimSpace(args)
		if len(trimmed) == 0 || string(trimmed) == "null" {
			t.Fatalf("%q accepted without the required query", args)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(args, &obj); err != nil {
			t.Fatalf("%q accepted, but it is not a JSON object: %v", args, err)
		}
		for k := range obj {
			if !slices.Contains([]string{"query", "kind", "file", "since", "limit", "all_projects"}, k) {
				t.Fatalf("%q accepted with the unknown property %q", args, k)
			}
		}
	})
}
