package redeem

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"hash"
	"sync"
)

// KeySize is the length in bytes of [Options.Key].
const KeySize = 32

// idBytes is the entropy of an id: 128 bits from crypto/rand.
const idBytes = 16

// idLen is the length of an id in unpadded base64url.
var idLen = base64.RawURLEncoding.EncodedLen(idBytes)

// ownerTagBytes is how much of the owner's keyed hash a Store sees.
const ownerTagBytes = 16

// keys holds what is derived from Options.Key: one HMAC key, used with a
// domain-separating prefix for ids and for principals, and one AEAD.
type keys struct {
	macs sync.Pool // of hash.Hash (HMAC-SHA-256); hmac.New allocates
	aead cipher.AEAD
}

func newKeys(master []byte) (*keys, error) {
	macKey, err := hkdf.Key(sha256.New, master, nil, "veil redeem index v1", 32)
	if err != nil {
		return nil, fmt.Errorf("deriving the index key: %w", err)
	}
	encKey, err := hkdf.Key(sha256.New, master, nil, "veil redeem seal v1", 32)
	if err != nil {
		return nil, fmt.Errorf("deriving the sealing key: %w", err)
	}
	block, err := aes.NewCipher(encKey)
	if err != nil {
		return nil, fmt.Errorf("creating the cipher: %w", err)
	}
	// Ids are unique, but the nonce stays random rather than derived from
	// the id so that a stored ciphertext says nothing about its id.
	aead, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		return nil, fmt.Errorf("creating the cipher: %w", err)
	}
	k := &keys{aead: aead}
	k.macs.New = func() any { return hmac.New(sha256.New, macKey) }
	return k, nil
}

// Domain separation between the two things the HMAC key hashes.
const (
	macID    = 'i'
	macOwner = 'o'
)

func (k *keys) mac(domain byte, b []byte, out []byte) []byte {
	m := k.macs.Get().(hash.Hash)
	m.Reset()
	m.Write([]byte{domain})
	m.Write(b)
	out = m.Sum(out)
	k.macs.Put(m)
	return out
}

// index returns the Key a Store files the id's secret under.
func (k *keys) index(id []byte) Key {
	var key Key
	var buf [sha256.Size]byte
	copy(key[:], k.mac(macID, id, buf[:0]))
	return key
}

// ownerTag returns what a Store keeps instead of the principal, so that a
// dump of the store doesn't list who had secrets.
func (k *keys) ownerTag(principal string) string {
	var buf [sha256.Size]byte
	sum := k.mac(macOwner, []byte(principal), buf[:0])
	return base64.RawURLEncoding.EncodeToString(sum[:ownerTagBytes])
}

// seal encrypts value with the raw id as additional data, so a sealed
// value copied under another id's key doesn't open.
func (k *keys) seal(id []byte, value string) []byte {
	return k.aead.Seal(nil, nil, []byte(value), id)
}

func (k *keys) open(id, sealed []byte) (string, error) {
	v, err := k.aead.Open(sealed[:0:0], nil, sealed, id)
	if err != nil {
		return "", fmt.Errorf("opening a sealed value: %w", err)
	}
	return string(v), nil
}

// newID returns a fresh id and its text form.
func newID() ([]byte, string) {
	id := make([]byte, idBytes)
	rand.Read(id) // never fails since Go 1.24
	return id, base64.RawURLEncoding.EncodeToString(id)
}

// parseID decodes an id's text form; ok is false for anything that isn't
// the canonical encoding of exactly idBytes bytes.
func parseID(s string) (id []byte, ok bool) {
	if len(s) != idLen {
		return nil, false
	}
	id = make([]byte, idBytes)
	n, err := base64.RawURLEncoding.Strict().Decode(id, []byte(s))
	if err != nil || n != idBytes {
		return nil, false
	}
	return id, true
}
