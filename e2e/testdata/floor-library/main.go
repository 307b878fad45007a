//go:build js && wasm

// Command floor-library is the library floor of the browser benchmark:
// a Go WebAssembly program that links the JSON Schema library the engine
// requires (jsonschema/v6, whose package initialisation compiles every
// draft's metaschema), makes a compiler as the engine does, tells the page
// it is running, and keeps running. Nothing else of Veil's is in it: its start-up and
// size are what any engine built on that library pays before doing
// anything of its own (see bench_test.go).
package main

import (
	"syscall/js"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func main() {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	js.Global().Call("floorReady")
	// It keeps running, as the engine does, so that a tab holding it holds
	// its memory too.
	select {}
}
