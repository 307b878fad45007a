//go:build js && wasm

package engine

import "crypto/rand"

// Under GOOS=js the host sets Options.Rand; the tests, which need no
// small download, take crypto/rand's.
func init() { defaultRand = rand.Reader }
