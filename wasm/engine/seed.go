//go:build !(js && wasm)

package engine

import "crypto/rand"

// seed fills b with cryptographically strong random bytes.
func seed(b []byte) error {
	_, err := rand.Read(b)
	return err
}
