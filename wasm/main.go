//go:build js && wasm

// Command wasm is Veil's engine compiled to WebAssembly. It exports one
// synchronous function to JavaScript,
//
//	globalThis.__veilEngine(op, header, body) -> [replyHeader, replyBody]
//
// where header and replyHeader are JSON text and body and replyBody are raw
// strings, never JSON-wrapped, so a large tool output is not escaped twice.
// webmcp.js (or worker.js) calls it; page code never does.
//
// Ops: "init", "register", "unregister", "input", "output", "items",
// "reveal", "forget", "sweep", the risk policy's "decide", "settle",
// "configure", "trust" and "decisions", and "exit", which removes the
// export and lets the program end. A failure is the reply header
// {"error":{"name","message"}}; a Go panic is recovered and becomes an
// OperationError, so it never crosses into JavaScript.
package main

import (
	"sync"
	"syscall/js"
)

// exportName is the global the engine is published under.
const exportName = "__veilEngine"

func main() {
	s := &server{}
	done, release := s.export()
	stop := s.startSweeper()
	<-done
	stop()
	release()
}

// export publishes the engine as globalThis.__veilEngine. done is closed
// once JavaScript calls the "exit" op; release removes the export and frees
// the function.
func (s *server) export() (done <-chan struct{}, release func()) {
	exit := make(chan struct{})
	var once sync.Once
	fn := js.FuncOf(func(_ js.Value, args []js.Value) any {
		h, b := s.call(args)
		if s.exited {
			once.Do(func() { close(exit) })
		}
		return js.ValueOf([]any{h, b})
	})
	js.Global().Set(exportName, fn)
	return exit, func() {
		if js.Global().Get(exportName).Equal(fn.Value) {
			js.Global().Delete(exportName)
		}
		fn.Release()
	}
}
