package schema

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/veilmcp/veil/wasm/engine/internal/jsontree"
)

// testTree is a Tree read with encoding/json's tokens, keeping member
// order and duplicate names as the engine's own reader does, so that the
// package's tests need nothing of the engine.
type testTree struct{ nodes []testNode }

type testNode struct {
	kind          jsontree.Kind
	next          int
	parent, index int
	key, str      string
	text          string
}

// readTree reads one JSON text, and nothing after it.
func readTree(text string) (*testTree, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	tr := &testTree{}
	var read func(parent, index int, key string) error
	read = func(parent, index int, key string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		i := len(tr.nodes)
		tr.nodes = append(tr.nodes, testNode{parent: parent, index: index, key: key})
		switch v := tok.(type) {
		case nil:
			tr.nodes[i].kind, tr.nodes[i].text = jsontree.Null, "null"
		case bool:
			tr.nodes[i].kind, tr.nodes[i].text = jsontree.Bool, strconv.FormatBool(v)
		case json.Number:
			tr.nodes[i].kind, tr.nodes[i].text = jsontree.Number, string(v)
		case string:
			tr.nodes[i].kind, tr.nodes[i].str, tr.nodes[i].text = jsontree.String, v, strconv.Quote(v)
		case json.Delim:
			tr.nodes[i].kind = jsontree.Array
			if v == '{' {
				tr.nodes[i].kind = jsontree.Object
			}
			for k := 0; dec.More(); k++ {
				name := ""
				if v == '{' {
					t, err := dec.Token()
					if err != nil {
						return err
					}
					name = t.(string)
				}
				if err := read(i, k, name); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
		}
		tr.nodes[i].next = len(tr.nodes)
		return nil
	}
	if err := read(-1, 0, ""); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the value")
	}
	return tr, nil
}

func (t *testTree) Kind(i int) jsontree.Kind { return t.nodes[i].kind }
func (t *testTree) Next(i int) int           { return t.nodes[i].next }
func (t *testTree) Key(i int) string         { return t.nodes[i].key }
func (t *testTree) Str(i int) string         { return t.nodes[i].str }
func (t *testTree) Text(i int) string        { return t.nodes[i].text }

func (t *testTree) Member(i int, key string) int {
	found := -1
	for j := i + 1; j < t.nodes[i].next; j = t.nodes[j].next {
		if t.nodes[j].key == key {
			found = j
		}
	}
	return found
}

func (t *testTree) Count(i int) int {
	n := 0
	for j := i + 1; j < t.nodes[i].next; j = t.nodes[j].next {
		n++
	}
	return n
}

func (t *testTree) Value(i int) any {
	n := &t.nodes[i]
	switch n.kind {
	case jsontree.Null:
		return nil
	case jsontree.Bool:
		return n.text == "true"
	case jsontree.Number:
		return json.Number(n.text)
	case jsontree.String:
		return n.str
	case jsontree.Array:
		arr := []any{}
		for j := i + 1; j < n.next; j = t.nodes[j].next {
			arr = append(arr, t.Value(j))
		}
		return arr
	}
	obj := map[string]any{}
	for j := i + 1; j < n.next; j = t.nodes[j].next {
		obj[t.nodes[j].key] = t.Value(j)
	}
	return obj
}

func (t *testTree) Pointer(i int) string {
	n := &t.nodes[i]
	if n.parent < 0 {
		return ""
	}
	token := strconv.Itoa(n.index)
	if t.nodes[n.parent].kind == jsontree.Object {
		token = jsontree.EscapePointer(n.key)
	}
	return t.Pointer(n.parent) + "/" + token
}
