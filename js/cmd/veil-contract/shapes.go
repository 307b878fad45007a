package main

import (
	"bytes"
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
)

// declarations writes the JSDoc types of ops.Shapes: a typedef per named
// struct they reach, then Requests and Replies, each op's header and
// reply header by the op's name, for the type check of the page's
// modules (make test-types). A member the engine does not read or write
// is then an error there, where it is written.
func declarations(b *bytes.Buffer) {
	d := &declarer{named: map[reflect.Type]string{}}
	var reqs, reps []string
	for _, sh := range ops.Shapes {
		req := "Record<string, never>"
		if sh.Request != nil {
			req = d.typ(reflect.TypeOf(sh.Request))
		}
		reqs = append(reqs, fmt.Sprintf("%s: %s", sh.Op, req))
		reps = append(reps, fmt.Sprintf("%s: %s", sh.Op, d.typ(reflect.TypeOf(sh.Reply))))
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
	case t == rawMessage || t.Kind() == reflect.Interface || t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler):
		return "any"
	case t.Kind() == reflect.Pointer:
		return d.typ(t.Elem()) + " | null"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return "string" // base64
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return d.typ(t.Elem()) + "[]"
	case t.Kind() == reflect.Map:
		return "Record<string, " + d.typ(t.Elem()) + ">"
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Bool:
		return "boolean"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		return "number"
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
// embedded structs; a member with omitempty is optional.
func (d *declarer) object(t reflect.Type) string {
	var members []string
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case tag == "-" || (!f.IsExported() && !f.Anonymous):
			case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
				walk(f.Type)
			default:
				if tag == "" {
					tag = f.Name
				}
				opt := ""
				if strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") {
					opt = "?"
				}
				members = append(members, fmt.Sprintf("%s%s: %s", tag, opt, d.typ(f.Type)))
			}
		}
	}
	walk(t)
	return "{" + strings.Join(members, ", ") + "}"
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
