package main

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"strings"
	"time"
	"unicode"

	"github.com/veilmcp/veil/wasm/ops"
)

var (
	// rawMessage is json.RawMessage, any JSON the engine reads or writes
	// as it is.
	rawMessage = reflect.TypeFor[json.RawMessage]()
	timeTime   = reflect.TypeFor[time.Time]()
	marshaler  = reflect.TypeFor[json.Marshaler]()
	textual    = reflect.TypeFor[encoding.TextMarshaler]()
)

// implements reports whether t or *t implements i.
func implements(t, i reflect.Type) bool {
	return t.Implements(i) || reflect.PointerTo(t).Implements(i)
}

// declarations writes the JSDoc types of ops.Shapes: a typedef per named
// struct they reach, then Requests and Replies, each op's header and
// reply header by the op's name, for the type check of the page's
// modules (make test-types; docs/testing.md says what it catches).
func declarations(b *bytes.Buffer) {
	d := &declarer{named: map[reflect.Type]string{}}
	var reqs, reps []string
	for _, sh := range ops.Shapes {
		reqs = append(reqs, fmt.Sprintf("%s: %s", sh.Op, d.typ(sh.Request)))
		reps = append(reps, fmt.Sprintf("%s: %s", sh.Op, d.typ(sh.Reply)))
	}
	b.WriteString("\n// The shapes of the ops' headers and replies (ops.Shapes), checked by\n// the type check of the page's modules: writing or reading a member the\n// engine does not is an error there.\n")
	for _, td := range d.defs {
		fmt.Fprintf(b, "/** @typedef {%s} %s */\n", td.body, td.name)
	}
	fmt.Fprintf(b, "/** @typedef {{%s}} Requests */\n", strings.Join(reqs, ", "))
	fmt.Fprintf(b, "/** @typedef {{%s}} Replies */\n", strings.Join(reps, ", "))
}

type typedef struct{ name, body string }

// declarer names each struct type once, in the order it meets them.
type declarer struct {
	named map[reflect.Type]string
	defs  []typedef
}

// typ is t as a TypeScript type: the JSON encoding/json makes of it.
func (d *declarer) typ(t reflect.Type) string {
	switch {
	case t == timeTime:
		return "string"
	case t == rawMessage || t.Kind() == reflect.Interface || implements(t, marshaler):
		return "any"
	case implements(t, textual):
		return "string"
	case t.Kind() == reflect.Pointer:
		return d.typ(t.Elem()) + " | null"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return "string" // base64
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		elem := d.typ(t.Elem())
		if strings.Contains(elem, "|") {
			elem = "(" + elem + ")"
		}
		return elem + "[]"
	case t.Kind() == reflect.Map:
		return "Record<string, " + d.typ(t.Elem()) + ">"
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Bool:
		return "boolean"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		return "number"
	case t.Kind() == reflect.Struct && t.NumField() == 0:
		return "Record<string, never>" // no members at all
	case t.Kind() == reflect.Struct:
		if t.Name() == "" {
			return d.object(t)
		}
		if name, ok := d.named[t]; ok {
			return name
		}
		// ops.InitRequest is InitRequest; risk.State RiskState.
		name := upperFirst(t.Name())
		if pkg := path.Base(t.PkgPath()); pkg != "ops" {
			name = identifier(pkg) + name
		}
		d.named[t] = name
		i := len(d.defs)
		d.defs = append(d.defs, typedef{name: name})
		d.defs[i].body = d.object(t)
		return name
	}
	panic(fmt.Sprintf("veil-contract: no JSON type for %v", t))
}

// object is struct type t as an object type, with the members of its
// embedded structs. A member encoding/json may leave out (omitempty on
// what it leaves out when empty, omitzero) is optional. A nil slice or
// map is written as null, which the runtime's non-strict check does not
// tell from the type. What the generator cannot write as encoding/json
// would (two members of one name at one depth) panics.
func (d *declarer) object(t reflect.Type) string {
	var members []string
	seen := map[string]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			ft := f.Type
			if f.Anonymous && ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch {
			case tag == "-":
			case f.Anonymous && tag == "" && ft.Kind() == reflect.Struct:
				walk(ft)
			case !f.IsExported():
			default:
				if tag == "" {
					tag = f.Name
				}
				if seen[tag] {
					panic(fmt.Sprintf("veil-contract: %v has two members named %q", t, tag))
				}
				seen[tag] = true
				opt := ""
				if hasOption(opts, "omitzero") || hasOption(opts, "omitempty") && emptyOmits(f.Type) {
					opt = "?"
				}
				typ := d.typ(f.Type)
				if hasOption(opts, "string") {
					typ = "string"
				}
				members = append(members, fmt.Sprintf("%s%s: %s", tag, opt, typ))
			}
		}
	}
	walk(t)
	return "{" + strings.Join(members, ", ") + "}"
}

// hasOption reports whether a json tag's options include o.
func hasOption(opts, o string) bool {
	for _, x := range strings.Split(opts, ",") {
		if x == o {
			return true
		}
	}
	return false
}

// emptyOmits reports whether omitempty leaves out a t that is empty:
// encoding/json never leaves out a struct.
func emptyOmits(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		return false
	}
	return true
}

func upperFirst(s string) string {
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// identifier is a package's path element as a name: its letters and
// digits, each run starting upper case (veil-contract is VeilContract).
func identifier(s string) string {
	var out []rune
	up := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
		}
		out = append(out, r)
		up = false
	}
	return string(out)
}
