package engine_test

import (
	"encoding/json"
	"fmt"

	"github.com/veilmcp/veil/wasm/engine"
)

// A tool's outputSchema marks the key's secret x-sensitive. The policy
// decides the call before it runs; then the agent gets the rest of the
// output, a notice, and the pointer of what was withheld, and the user
// can reveal the secret by its handle.
func Example() {
	e := engine.New(&engine.Options{Origin: "https://app.example"})
	_, err := e.Register(`{
		"name": "generate_api_key",
		"description": "Create an API key",
		"outputSchema": {
			"type": "object",
			"properties": {
				"id": {"type": "string"},
				"secret": {"type": "string", "x-sensitive": true}
			}
		}
	}`)
	if err != nil {
		panic(err)
	}

	// The page asks before execute runs, and reports how it ended on the
	// call the decision names.
	d, err := e.Decide("generate_api_key", `{}`, engine.Resolution{})
	if err != nil {
		panic(err)
	}
	fmt.Println("decision:", d.Outcome)

	res := e.Output(engine.Outcome{
		Kind: engine.Returned,
		Data: `{"id":"key_123","secret":"sk_live_abc"}`,
		Call: d.Call,
	})
	var view struct {
		StructuredContent map[string]any            `json:"structuredContent"`
		Meta              map[string]map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal([]byte(res.Agent), &view); err != nil {
		panic(err)
	}
	fmt.Println("agent sees:", view.StructuredContent)
	fmt.Println("withheld:", view.Meta[engine.MetaKey]["withheld"])

	revealed, _ := e.Reveal(e.Items()[0].Handle)
	fmt.Println("user reveals:", revealed.Value)
	// Output:
	// decision: allow
	// agent sees: map[id:key_123]
	// withheld: [/secret]
	// user reveals: sk_live_abc
}
