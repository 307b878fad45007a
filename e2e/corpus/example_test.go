package corpus_test

import (
	"fmt"

	"github.com/veilmcp/veil/e2e/corpus"
)

// A case's JSON files are written as JSON.stringify writes them; Canonical
// says what that is.
func ExampleCanonical() {
	s, err := corpus.Canonical(`{"b": 1.50, "1": 1e21, "a": "\u00e9"}`)
	fmt.Println(s, err)
	// Output: {"1":1e+21,"b":1.5,"a":"é"} <nil>
}

func ExampleCase_Definition() {
	c, err := corpus.Parse("lookup.txtar", []byte("Guards against a bug.\n\n-- tool.json --\n{\"annotations\":{\"readOnlyHint\":true}}\n"))
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Definition())
	// Output: {"name":"lookup","description":"conformance case lookup","annotations":{"readOnlyHint":true}}
}
