//go:build js && wasm

// Command wasm is Veil's engine compiled to WebAssembly. JavaScript calls
// it through two functions the module exports, synchronously and with no
// syscall/js values in between:
//
//	veilRequest(n) -> address
//	veilCall(op, header, body) -> address
//
// For each call, JavaScript asks veilRequest for n bytes of the module's
// memory, writes op, header and body into them as UTF-8, one after the
// other, and passes each to veilCall as its address and length. veilCall
// answers with the address of four uint32s: the address and length of the
// reply header, then of the reply body, which stay valid until the next
// call. Headers are JSON text and bodies raw strings, never JSON-wrapped,
// so a large tool output is not escaped twice. webmcp.js (or worker.js)
// calls it; page code never does.
//
// Ops: "init", "register", "unregister", "input", "output", "items",
// "reveal", "forget", "sweep", the risk policy's "decide", "settle",
// "configure", "trust" and "decisions", and "exit", which lets the program
// end; no op is answered after it. A failure is the reply header
// {"error":{"name","message"}}; a Go panic is recovered and becomes an
// OperationError, so it never crosses into JavaScript.
package main

import (
	"runtime"
	"strings"
	"syscall/js"
	"unsafe"
)

// srv answers the exports. main sets it before JavaScript can call them.
var srv *server

func main() {
	srv = &server{done: make(chan struct{})}
	stop := srv.startSweeper()
	<-srv.done
	stop()
}

// request is the memory veilRequest set aside for the next call.
var request []byte

// answer is the reply to the last call, kept until the next one, and
// where JavaScript finds it.
var answer struct {
	header, body string
	words        [4]uint32
}

// veilRequest sets aside n bytes for the next call and returns their
// address.
//
//go:wasmexport veilRequest
func veilRequest(n int32) unsafe.Pointer {
	request = make([]byte, max(n, 1))
	return unsafe.Pointer(unsafe.SliceData(request))
}

// veilCall answers one op. Its arguments lie in the memory veilRequest set
// aside; they are copied out, and that memory is wiped, before the op
// runs, so nothing the engine keeps points into it.
//
//go:wasmexport veilCall
func veilCall(op, header, body string) unsafe.Pointer {
	args := [...]string{op, header, body}
	for i, s := range args {
		args[i] = strings.Clone(s)
	}
	clear(request)
	request = nil
	h, b := srv.call(args[0], args[1], args[2])
	answer.header, answer.body = h, b
	answer.words = [4]uint32{address(h), uint32(len(h)), address(b), uint32(len(b))}
	// Go's own goroutines, the garbage collector's workers first, run only
	// when Go yields: without this they would wait for the next timer, and
	// every call would pay for a collection that never ends.
	runtime.Gosched()
	return unsafe.Pointer(&answer.words)
}

// browserRand reads the browser's crypto.getRandomValues, the engine's
// source of randomness (engine.Options.Rand).
type browserRand struct{}

// maxRandomValues is the most crypto.getRandomValues fills at once.
const maxRandomValues = 65536

func (browserRand) Read(b []byte) (int, error) {
	crypto := js.Global().Get("crypto")
	for p := b; len(p) > 0; {
		n := min(len(p), maxRandomValues)
		a := js.Global().Get("Uint8Array").New(n)
		crypto.Call("getRandomValues", a)
		js.CopyBytesToGo(p[:n], a)
		p = p[n:]
	}
	return len(b), nil
}

// address is where s lies in the module's memory.
func address(s string) uint32 {
	return uint32(uintptr(unsafe.Pointer(unsafe.StringData(s))))
}

// call answers an op from JavaScript. After "exit" it answers none, and
// it makes Go run again soon, so that main returns.
func (s *server) call(op, header, body string) (string, string) {
	if s.exited {
		return errorReply(errExited), ""
	}
	h, b := s.handle(op, header, body)
	if s.exited {
		close(s.done)
		// Go only runs between calls when JavaScript hands it an event.
		var wake js.Func
		wake = js.FuncOf(func(js.Value, []js.Value) any {
			wake.Release()
			return nil
		})
		js.Global().Call("setTimeout", wake)
	}
	return h, b
}
