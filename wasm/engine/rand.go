//go:build !(js && wasm)

package engine

import "crypto/rand"

// defaultRand is what Options.Rand defaults to.
var defaultRand = rand.Reader
