//go:build js && wasm

package engine

import "io"

// defaultRand is nil in WebAssembly: crypto/rand would link its FIPS
// module into the download for what the host hands over in a few lines
// (the browser's crypto.getRandomValues), so the host must set
// Options.Rand.
var defaultRand io.Reader
