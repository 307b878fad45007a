//go:build js && wasm

package engine

import "syscall/js"

// seed fills b from the browser's crypto.getRandomValues. In WebAssembly
// that is where crypto/rand gets its bytes too; calling it directly keeps
// the FIPS module crypto/rand links in out of the download.
func seed(b []byte) error {
	a := js.Global().Get("Uint8Array").New(len(b))
	js.Global().Get("crypto").Call("getRandomValues", a)
	js.CopyBytesToGo(b, a)
	return nil
}
