//go:build js && wasm

// Command floor is the smallest Go WebAssembly program the browser
// benchmark starts: it does nothing but tell the page it is running. The
// time a browser takes to fetch, compile and start it is the floor under
// the runtime's own start-up (see bench_test.go).
package main

import "syscall/js"

func main() {
	js.Global().Call("floorReady")
}
