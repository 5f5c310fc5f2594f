package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// inputSchema is a tool's input: a JSON object whose properties are the
// exported fields of a flat struct of strings, booleans, integers and
// slices of them. It is both what tools/list shows the client (a JSON
// Schema, the one github.com/google/jsonschema-go infers for the struct,
// which the server was first built on) and the strict decoder of a call's
// arguments: unknown properties, missing required ones, wrong types and
// values outside an enum are refused before the tool runs, as the schema
// promises.
type inputSchema struct {
	typ   reflect.Type
	props []property
}

// property is one field of the input struct.
type property struct {
	name string
	// field is the struct field's index.
	field int
	// kind is the JSON Schema type: string, boolean, integer or array;
	// items is the type of an array's elements.
	kind, items string
	// desc is the field's `jsonschema` tag: what the model reads about it.
	desc     string
	enum     []string
	required bool
}

// JSON Schema types.
const (
	typeString  = "string"
	typeBoolean = "boolean"
	typeInteger = "integer"
	typeNumber  = "number"
	typeArray   = "array"
	typeObject  = "object"
	typeNull    = "null"
)

// schemaFor is the input schema of In with the values some properties may
// take. As with jsonschema-go, a property is required unless its json tag
// says omitempty or omitzero, and the `jsonschema` tag is its
// description. A list is an array, not "array or null": the definitions
// go with every request, and the model has no use for the null. It panics
// on a type it cannot describe: a static type, so it fails in every test.
func schemaFor[In any](enums map[string][]string) *inputSchema {
	t := reflect.TypeFor[In]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("input schema of %v: not a struct", t))
	}
	s := &inputSchema{typ: t}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		optional := slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" || o == "omitzero" })
		p := property{name: name, field: i, desc: f.Tag.Get("jsonschema"), enum: enums[name], required: !optional}
		p.kind = jsonType(f.Type)
		if p.kind == typeArray {
			p.items = jsonType(f.Type.Elem())
			if p.items == typeArray {
				p.items = ""
			}
		}
		if p.kind == "" || (p.kind == typeArray && p.items == "") {
			panic(fmt.Sprintf("input schema of %v: field %s of type %v", t, f.Name, f.Type))
		}
		if len(p.enum) > 0 && p.kind != typeString {
			panic(fmt.Sprintf("input schema of %v: enum on %s, which is not a string", t, f.Name))
		}
		s.props = append(s.props, p)
	}
	for name := range enums {
		if !slices.ContainsFunc(s.props, func(p property) bool { return p.name == name }) {
			panic(fmt.Sprintf("input schema of %v: enum for %s, which it does not have", t, name))
		}
	}
	return s
}

// jsonType is the JSON Schema type of a Go type; "" when the schema has
// none for it.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return typeString
	case reflect.Bool:
		return typeBoolean
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return typeInteger
	case reflect.Slice:
		return typeArray
	}
	return ""
}

// MarshalJSON writes the schema with the properties in the struct's
// order, the order the model reads them in.
func (s *inputSchema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object"`)
	var required []string
	for i, p := range s.props {
		if i == 0 {
			b.WriteString(`,"properties":{`)
		} else {
			b.WriteByte(',')
		}
		writeJSON(&b, p.name)
		b.WriteString(`:{"type":`)
		writeJSON(&b, p.kind)
		if p.items != "" {
			b.WriteString(`,"items":{"type":`)
			writeJSON(&b, p.items)
			b.WriteByte('}')
		}
		if p.desc != "" {
			b.WriteString(`,"description":`)
			writeJSON(&b, p.desc)
		}
		if len(p.enum) > 0 {
			b.WriteString(`,"enum":`)
			writeJSON(&b, p.enum)
		}
		b.WriteByte('}')
		if p.required {
			required = append(required, p.name)
		}
	}
	if len(s.props) > 0 {
		b.WriteByte('}')
	}
	if len(required) > 0 {
		b.WriteString(`,"required":`)
		writeJSON(&b, required)
	}
	b.WriteString(`,"additionalProperties":false}`)
	return b.Bytes(), nil
}

// writeJSON writes v, a string or a list of strings, which always
// marshal.
func writeJSON(b *bytes.Buffer, v any) {
	data, _ := json.Marshal(v)
	b.Write(data)
}

// decode checks a call's arguments against the schema and sets them in
// *in, a pointer to the schema's struct. Absent or null arguments are an
// empty object. The error says what is wrong, for the model to correct.
func (s *inputSchema) decode(args json.RawMessage, in any) error {
	v := reflect.ValueOf(in).Elem()
	if v.Type() != s.typ {
		panic(fmt.Sprintf("decode %v into %v", s.typ, v.Type()))
	}
	args = bytes.TrimSpace(args)
	var obj map[string]json.RawMessage
	if len(args) > 0 && !json.Valid(args) {
		return fmt.Errorf("the arguments are not JSON")
	}
	if len(args) > 0 && valueType(args) != typeNull {
		if t := valueType(args); t != typeObject {
			return fmt.Errorf("the arguments are %s %s, want an object", article(t), t)
		}
		if err := json.Unmarshal(args, &obj); err != nil {
			return fmt.Errorf("the arguments: %w", err)
		}
	}
	var unknown, missing []string
	for name := range obj {
		if !slices.ContainsFunc(s.props, func(p property) bool { return p.name == name }) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("unexpected additional properties %s", quoteList(unknown))
	}
	for _, p := range s.props {
		if _, ok := obj[p.name]; p.required && !ok {
			missing = append(missing, p.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("required: missing properties: %s", quoteList(missing))
	}
	for _, p := range s.props {
		raw, ok := obj[p.name]
		if !ok {
			continue
		}
		if err := p.set(v.Field(p.field), raw); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	return nil
}

// set decodes one property's value into its field.
func (p property) set(f reflect.Value, raw json.RawMessage) error {
	if p.kind != typeArray {
		return setScalar(f, p.kind, p.enum, raw)
	}
	if t := valueType(raw); t != typeArray {
		return fmt.Errorf("%s has type %q, want %q", show(raw), t, typeArray)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return err
	}
	list := reflect.MakeSlice(f.Type(), len(elems), len(elems))
	for i, e := range elems {
		if err := setScalar(list.Index(i), p.items, nil, e); err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
	}
	f.Set(list)
	return nil
}

// setScalar decodes a string, a boolean or an integer into f.
func setScalar(f reflect.Value, kind string, enum []string, raw json.RawMessage) error {
	t := valueType(raw)
	if t != kind {
		return fmt.Errorf("%s has type %q, want %q", show(raw), t, kind)
	}
	switch kind {
	case typeString:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		if len(enum) > 0 && !slices.Contains(enum, s) {
			return fmt.Errorf("%q is not one of %s", s, strings.Join(enum, ", "))
		}
		f.SetString(s)
	case typeBoolean:
		f.SetBool(string(raw) == "true")
	case typeInteger:
		n, _, fits := integer(raw)
		if !fits || f.OverflowInt(n) {
			return fmt.Errorf("%s is out of range", raw)
		}
		f.SetInt(n)
	}
	return nil
}

// integer reads a JSON number: its value, whether it has no fraction
// (2, -7, 2.0 and 1e3 have none: JSON Schema's integer is a mathematical
// one) and whether it fits an int64.
func integer(raw json.RawMessage) (n int64, whole, fits bool) {
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n, true, true
	}
	f, _ := strconv.ParseFloat(string(raw), 64)
	switch {
	case math.IsInf(f, 0):
		return 0, true, false
	case f != math.Trunc(f) || (f == 0 && strings.ContainsAny(mantissa(raw), "123456789")): // a fraction, or one too small for a float64
		return 0, false, false
	case f >= math.MaxInt64 || f < math.MinInt64:
		return 0, true, false
	}
	return int64(f), true, true
}

// mantissa is a number's digits before its exponent.
func mantissa(raw json.RawMessage) string {
	s := string(raw)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		return s[:i]
	}
	return s
}

// valueType is the JSON Schema type of a JSON value: "integer" for a
// number with no fraction.
func valueType(raw json.RawMessage) string {
	if len(raw) == 0 {
		return typeNull
	}
	switch raw[0] {
	case '"':
		return typeString
	case 't', 'f':
		return typeBoolean
	case 'n':
		return typeNull
	case '[':
		return typeArray
	case '{':
		return typeObject
	}
	if _, whole, _ := integer(raw); whole {
		return typeInteger
	}
	return typeNumber
}

func article(t string) string {
	if t == typeArray || t == typeInteger || t == typeObject {
		return "an"
	}
	return "a"
}

// show is a value as an error shows it: cut when long.
func show(raw json.RawMessage) string {
	const most = 60
	if len(raw) > most {
		return string(raw[:most]) + "..."
	}
	return string(raw)
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return "[" + strings.Join(q, ",") + "]"
}
