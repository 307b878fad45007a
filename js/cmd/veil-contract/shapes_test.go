package main

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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
}

// TestDeclarations: each Go type is written as the JSON encoding/json
// makes of it, a named struct once as a typedef.
func TestDeclarations(t *testing.T) {
	d := &declarer{named: map[reflect.Type]string{}}
	assert.Equal(t, "VeilContractSample", d.typ(reflect.TypeFor[sample]()))
	assert.Equal(t, []typedef{
		{"VeilContractSample", "{e: string, name: string, opt?: boolean, ptr?: VeilContractInner | null, list: VeilContractInner[], map: Record<string, number>, raw: any, when: string, bytes: string, NoTag: number}"},
		{"VeilContractInner", "{n: number}"},
	}, d.defs)
}
