//go:build js && wasm

// Command wasm is Veil's engine compiled to WebAssembly. It moves bytes
// between JavaScript and [ops.Server.Handle], the one entry point, through
// two functions the module exports, synchronously and with no syscall/js
// values in between:
//
//	veilRequest(n) -> address
//	veilCall(op, header, body) -> address
//
// For each call, JavaScript asks veilRequest for n bytes of the module's
// memory, writes op, header and body into them as UTF-8, one after the
// other, and passes each to veilCall as its address and length. veilCall
// answers with the address of four uint32s: the address and length of the
// reply header, then of the reply body, which stay valid until the next
// call. webmcp.js (or worker.js) calls it; page code never does. The ops,
// their headers and replies are package ops's.
//
// This file and regexp.go are the only Go that touches syscall/js: the
// page's RegExp and crypto.getRandomValues reach the engine through
// engine.Options, like any host's.
package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"syscall/js"
	"time"
	"unsafe"

	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/ops"
)

// sweepEvery is how often expired held values are wiped.
const sweepEvery = 30 * time.Second

// gcPercent is the engine's GOGC. WebAssembly memory only grows, so the
// heap's peak is paid for the life of the tab: the heap is collected when
// it has grown by a quarter since the last collection, not when it has
// doubled.
const gcPercent = 25

// srv answers the exports. main sets it before JavaScript can call them.
var srv *ops.Server

// done is closed once srv has answered ops.Exit, and main returns.
var done = make(chan struct{})

func main() {
	debug.SetGCPercent(gcPercent)
	srv = newServer()
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			srv.Handle(ops.Sweep, "", "")
		case <-done:
			return
		}
	}
}

// minMemoryLimit is the least memory limit fitMemory sets: below it the
// collector keeps to gcPercent alone, and start-up and registration run
// without collections the memory does not need.
const minMemoryLimit = 16 << 20

// mapped is the memory the Go runtime has taken from WebAssembly memory.
var mapped = []metrics.Sample{{Name: "/memory/classes/total:bytes"}}

// fitMemory sets Go's memory limit to the memory the module already
// has, or to minMemoryLimit while it has less. WebAssembly memory only grows, so memory Go has taken is paid for
// the life of the tab, used or not: near the limit the garbage collector
// runs sooner rather than growing the memory, which it still does when
// what is live needs more (the runtime bounds the collector's share of
// the time). Called after each output, the op that holds values for the
// user and takes the most memory, the limit follows the engine's needs.
func fitMemory() {
	metrics.Read(mapped)
	if mapped[0].Value.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(max(int64(mapped[0].Value.Uint64()), minMemoryLimit))
	}
}

// newServer is the server with what the browser provides the engine.
func newServer() *ops.Server {
	return ops.NewServer(&engine.Options{Regexp: compileRegexp, Rand: browserRand{}})
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
// address. JavaScript asks for one byte per UTF-16 code unit first, and
// again for three when the text needs more.
//
// It takes one byte more than n: JavaScript passes an empty argument
// (the body of most ops) as the address just past what it wrote, which
// is n bytes on when the text filled what it asked for. Past the end of
// a large object, that address is in no object, and a garbage
// collection while veilCall holds it ends the program; the byte more
// keeps it inside.
//
//go:wasmexport veilRequest
func veilRequest(n int32) unsafe.Pointer {
	// A request JavaScript found too small and asks again for is wiped.
	clear(request)
	request = make([]byte, max(n, 0)+1)
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
	// JavaScript has read the last answer: let it go before the op
	// allocates, or a large view is held through the next call.
	answer.header, answer.body = "", ""
	exited := srv.Exited()
	h, b := srv.Handle(args[0], args[1], args[2])
	if !exited && srv.Exited() {
		end()
	}
	answer.header, answer.body = h, b
	if args[0] == ops.Output {
		fitMemory()
	}
	answer.words = [4]uint32{address(h), uint32(len(h)), address(b), uint32(len(b))}
	// Go's own goroutines, the garbage collector's workers first, run only
	// when Go yields: without this they would wait for the next timer, and
	// every call would pay for a collection that never ends.
	runtime.Gosched()
	return unsafe.Pointer(&answer.words)
}

// end lets main return. main runs, and returns, in the runtime.Gosched
// that ends the same veilCall: the runtime hands JavaScript the exit
// (Go.exit in wasm_exec.js) before the call answers. Nothing is left
// scheduled to call into a program that has ended, which wasm_exec.js
// would report as an uncaught error.
func end() {
	close(done)
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
