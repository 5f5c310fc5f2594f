package state

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
)

// The body is written in a compact binary form of its own rather than as
// JSON: the compaction-time hooks decode it whole in every process, and
// encoding/json spent about 10 ms on a 100 MB session's 590 KB (the
// binary form: 360 KB, a fifth of the time). encoding/gob, which would do
// as well, costs every cairn process its package initialisation
// (cmd/cairn's TestNoHeavyPackages).
//
// The form follows the Go types by reflection: every exported field, in
// order, with no names. Integers are varints, strings and byte slices
// their length and bytes, a slice its length plus one (0 for nil) and its
// elements, a pointer a presence byte, a time its MarshalBinary form. The
// file's first line names the types' shape (shapeOf): a body written by
// a cairn whose types differ in any field is not read, and the session is
// read again from the transcript, as for any state that does not fit.

var timeType = reflect.TypeFor[time.Time]()

// errCodec is a body that does not decode.
var errCodec = errors.New("malformed session state")

// encoder writes values in the binary form.
type encoder struct {
	fields exportedFields
}

func (e *encoder) value(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint())
	case reflect.Float32, reflect.Float64:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float()))
	case reflect.String:
		s := v.String()
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...)
	case reflect.Slice:
		if v.IsNil() {
			return append(b, 0)
		}
		b = binary.AppendUvarint(b, uint64(v.Len())+1)
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return append(b, v.Bytes()...)
		}
		for i := range v.Len() {
			b = e.value(b, v.Index(i))
		}
		return b
	case reflect.Map:
		if v.IsNil() {
			return append(b, 0)
		}
		b = binary.AppendUvarint(b, uint64(v.Len())+1)
		for it := v.MapRange(); it.Next(); {
			b = e.value(b, it.Key())
			b = e.value(b, it.Value())
		}
		return b
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 0)
		}
		return e.value(append(b, 1), v.Elem())
	case reflect.Struct:
		if v.Type() == timeType {
			t, _ := v.Interface().(time.Time).MarshalBinary()
			b = append(b, byte(len(t)))
			return append(b, t...)
		}
		for _, i := range e.fields.of(v.Type()) {
			b = e.value(b, v.Field(i))
		}
		return b
	}
	panic("state: cannot encode a " + v.Type().String()) // shapeOf refuses it first
}

// decoder reads what encoder wrote.
type decoder struct {
	b   []byte
	err error
	// src is what b was at the start, as one string: the strings decoded
	// are parts of it rather than a copy each (a body holds tens of
	// thousands), which the compaction-time hooks paid in allocations
	// and fresh pages.
	src    string
	fields exportedFields
}

// exportedFields are the indexes of each struct type's exported fields,
// as the codec comes across the types: reflect's Field copies a
// StructField on every call, which cost a PreCompact hook more than the
// rest of the decoding.
type exportedFields map[reflect.Type][]int

func (x *exportedFields) of(t reflect.Type) []int {
	if f, ok := (*x)[t]; ok {
		return f
	}
	var f []int
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			f = append(f, i)
		}
	}
	if *x == nil {
		*x = make(exportedFields)
	}
	(*x)[t] = f
	return f
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCodec
	}
	d.b = nil
}

func (d *decoder) uvarint() uint64 {
	n, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[k:]
	return n
}

func (d *decoder) take(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

// length reads a slice's or map's length plus one: -1 for nil.
func (d *decoder) length() int {
	n := d.uvarint()
	if n > uint64(len(d.b))+1 { // every element takes a byte at least
		d.fail()
		return -1
	}
	return int(n) - 1
}

func (d *decoder) value(v reflect.Value) {
	if d.err != nil {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		p := d.take(1)
		v.SetBool(len(p) == 1 && p[0] == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, k := binary.Varint(d.b)
		if k <= 0 {
			d.fail()
			return
		}
		d.b = d.b[k:]
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(d.uvarint())
	case reflect.Float32, reflect.Float64:
		p := d.take(8)
		if p != nil {
			v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(p)))
		}
	case reflect.String:
		n := d.uvarint()
		at := len(d.src) - len(d.b)
		if d.take(n) != nil || n == 0 {
			v.SetString(d.src[at : at+int(n)])
		}
	case reflect.Slice:
		n := d.length()
		if n < 0 {
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes(append([]byte{}, d.take(uint64(n))...))
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			d.value(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		n := d.length()
		if n < 0 {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		for range n {
			k.SetZero()
			e.SetZero()
			d.value(k)
			d.value(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Pointer:
		p := d.take(1)
		if len(p) == 1 && p[0] == 1 {
			e := reflect.New(v.Type().Elem())
			d.value(e.Elem())
			v.Set(e)
		}
	case reflect.Struct:
		if v.Type() == timeType {
			p := d.take(1)
			if p == nil {
				return
			}
			var t time.Time
			if err := t.UnmarshalBinary(d.take(uint64(p[0]))); err != nil {
				d.fail()
				return
			}
			v.Set(reflect.ValueOf(t))
			return
		}
		for _, i := range d.fields.of(v.Type()) {
			d.value(v.Field(i))
		}
	default:
		d.fail()
	}
}

// shapeOf names t's shape as the binary form sees it: every exported
// field's name and kind, recursively. It fails on a kind the form does not
// carry (an interface, a channel, a function).
func shapeOf(t reflect.Type) (string, error) {
	var b strings.Builder
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type) error
	walk = func(t reflect.Type) error {
		switch t.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.String:
			b.WriteString(t.Kind().String())
		case reflect.Slice:
			b.WriteString("[]")
			return walk(t.Elem())
		case reflect.Map:
			b.WriteString("map[")
			if err := walk(t.Key()); err != nil {
				return err
			}
			b.WriteString("]")
			return walk(t.Elem())
		case reflect.Pointer:
			b.WriteString("*")
			return walk(t.Elem())
		case reflect.Struct:
			if t == timeType {
				b.WriteString("time")
				return nil
			}
			b.WriteString(t.PkgPath() + "." + t.Name())
			if seen[t] {
				return nil
			}
			seen[t] = true
			b.WriteString("{")
			for i := range t.NumField() {
				f := t.Field(i)
				if !f.IsExported() {
					continue
				}
				b.WriteString(f.Name + " ")
				if err := walk(f.Type); err != nil {
					return err
				}
				b.WriteString(";")
			}
			b.WriteString("}")
		default:
			return fmt.Errorf("state: cannot encode a %s", t)
		}
		return nil
	}
	if err := walk(t); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8]), nil
}
