package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/veilmcp/veil/wasm/ops"
)

type inner struct {
	N int `json:"n"`
}

type embedded struct {
	E string `json:"e"`
}

type sample struct {
	embedded
	Name    string            `json:"name"`
	Opt     bool              `json:"opt,omitempty"`
	Ptr     *inner            `json:"ptr,omitempty"`
	List    []inner           `json:"list"`
	Map     map[string]uint64 `json:"map"`
	Raw     json.RawMessage   `json:"raw"`
	When    time.Time         `json:"when"`
	Bytes   []byte            `json:"bytes"`
	Hidden  string            `json:"-"`
	NoTag   float64
	private int
	Ptrs    []*inner  `json:"ptrs"`
	OptT    time.Time `json:"optT,omitempty"`
	Zero    inner     `json:"zero,omitzero"`
	Num     int       `json:"num,string"`
	Level   textLevel `json:"level"`
	*pointed
	hidden
}

type pointed struct {
	P int `json:"p"`
}

type hidden string

type textLevel int

func (textLevel) MarshalText() ([]byte, error) { return []byte("x"), nil }

// TestDeclarations: each Go type is written as the JSON encoding/json
// makes of it (TestDeclarationsMatchEncoding holds the members to what
// it writes), a named struct once as a typedef.
func TestDeclarations(t *testing.T) {
	d := &declarer{named: map[reflect.Type]string{}}
	assert.Equal(t, "VeilContractSample", d.typ(reflect.TypeFor[sample]()))
	assert.Equal(t, []typedef{
		{"VeilContractSample", "{e: string, name: string, opt?: boolean, ptr?: VeilContractInner | null, list: VeilContractInner[], map: Record<string, number>, raw: any, when: string, bytes: string, NoTag: number, ptrs: (VeilContractInner | null)[], optT: string, zero?: VeilContractInner, num: string, level: string, p: number}"},
		{"VeilContractInner", "{n: number}"},
	}, d.defs)
}

// TestDeclarationsMatchEncoding: the members a typedef requires are the
// ones encoding/json writes of an empty value, and its optional ones
// those it writes of a full one, for sample and every shape of package
// ops.
func TestDeclarationsMatchEncoding(t *testing.T) {
	full := sample{Opt: true, Ptr: &inner{}, OptT: time.Now(), Zero: inner{N: 1}, pointed: &pointed{}}
	check := func(t *testing.T, zero, filled any) {
		d := &declarer{named: map[reflect.Type]string{}}
		d.typ(reflect.TypeOf(zero))
		required, optional := members(d.defs[0].body)
		assert.ElementsMatch(t, required, written(t, zero), "members written of an empty %T", zero)
		if filled != nil {
			assert.ElementsMatch(t, append(required, optional...), written(t, filled), "members written of a full %T", zero)
		}
	}
	check(t, sample{pointed: &pointed{}}, full)
	for _, sh := range ops.Shapes {
		for _, rt := range []reflect.Type{sh.Request, sh.Reply} {
			if rt.Kind() == reflect.Struct && rt.NumField() > 0 {
				t.Run(sh.Op+" "+rt.Name(), func(t *testing.T) { check(t, reflect.Zero(rt).Interface(), nil) })
			}
		}
	}
}

// members splits an object type's members into required and optional.
func members(body string) (required, optional []string) {
	inner := body[1 : len(body)-1]
	depth, from := 0, 0
	var parts []string
	for i, c := range inner {
		switch c {
		case '{', '(', '<':
			depth++
		case '}', ')', '>':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, inner[from:i])
				from = i + 1
			}
		}
	}
	parts = append(parts, inner[from:])
	for _, p := range parts {
		name, _, _ := strings.Cut(strings.TrimSpace(p), ":")
		if n, ok := strings.CutSuffix(name, "?"); ok {
			optional = append(optional, n)
		} else {
			required = append(required, name)
		}
	}
	return required, optional
}

// written lists the members encoding/json writes of v.
func written(t *testing.T, v any) []string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var names []string
	for k := range m {
		names = append(names, k)
	}
	return names
}
