package engine

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// This file reads what a withheld PEM private key holds, so that the key's
// secret numbers join the set in the forms ordinary tools write them
// after converting the key: openssl's text dump (the private scalar or
// the RSA primes in hex, a colon between bytes, wrapped and indented),
// the key as SEC1 or PKCS#1 PEM or DER (in base64 or hex), and a JWK's
// members (d, p, q, dp, dq, qi in base64url). Each secret number joins
// as its bytes, found wherever a decoding of base64 or hex gives them
// (binary.go), and as its hex, found with any separators and in any case
// by its skeleton. The public parts (an RSA modulus and exponent, an EC
// public point) do not join: they are written wherever the public key is.

// minKeyPart is the fewest bytes a number of a private key needs to join:
// the smallest private scalar of a curve in use (P-192, 24 bytes) and an
// RSA prime of a 512-bit key are longer.
const minKeyPart = 16

// maxPEMKey bounds the PEM a key is read from: an RSA key of 16384 bits
// is under 13 KiB.
const maxPEMKey = 64 << 10

// privateKeyParts returns the secret numbers of each unencrypted PEM
// private key in v (PKCS#8, PKCS#1 RSA, SEC1 EC), as their bytes
// without leading zeros; none for anything else.
func privateKeyParts(v string) [][]byte {
	if len(v) > maxPEMKey || !strings.Contains(v, "PRIVATE KEY-----") {
		return nil
	}
	var out [][]byte
	for rest := v; ; {
		i := strings.Index(rest, "-----BEGIN ")
		if i < 0 {
			return out
		}
		rest = rest[i+len("-----BEGIN "):]
		label, body, ok := strings.Cut(rest, "-----")
		if !ok {
			return out
		}
		end := strings.Index(body, "-----END ")
		if end < 0 {
			return out
		}
		rest = body[end:]
		der, ok := pemBody(body[:end])
		if !ok {
			continue
		}
		switch label {
		case "PRIVATE KEY":
			out = pkcs8Parts(out, der)
		case "RSA PRIVATE KEY":
			out = rsaParts(out, der)
		case "EC PRIVATE KEY":
			out = ecParts(out, der)
		}
	}
}

// pemBody decodes the base64 of a PEM block's body, white space aside;
// a body with headers (an encrypted key's Proc-Type) is not read.
func pemBody(body string) ([]byte, bool) {
	if strings.IndexByte(body, ':') >= 0 {
		return nil, false
	}
	clean := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\r', '\n':
			return -1
		}
		return r
	}, body)
	der, err := base64.StdEncoding.DecodeString(clean)
	return der, err == nil && len(der) > 0
}

// derItem is one element of DER: its tag, its contents, and what follows
// it.
type derItem struct {
	tag        byte
	body, rest []byte
}

// derNext reads the DER element b starts with: a tag of one byte and a
// length in the short or the long form, of up to four bytes.
func derNext(b []byte) (derItem, bool) {
	if len(b) < 2 {
		return derItem{}, false
	}
	tag, n := b[0], int(b[1])
	b = b[2:]
	if n >= 0x80 {
		k := n & 0x7f
		if k == 0 || k > 4 || len(b) < k {
			return derItem{}, false
		}
		n = 0
		for _, c := range b[:k] {
			n = n<<8 | int(c)
		}
		b = b[k:]
	}
	if n < 0 || n > len(b) {
		return derItem{}, false
	}
	return derItem{tag: tag, body: b[:n], rest: b[n:]}, true
}

// derSequence returns the elements of the DER SEQUENCE b holds whole.
func derSequence(b []byte) ([]derItem, bool) {
	seq, ok := derNext(b)
	if !ok || seq.tag != 0x30 {
		return nil, false
	}
	var items []derItem
	for in := seq.body; len(in) > 0; {
		it, ok := derNext(in)
		if !ok {
			return nil, false
		}
		items = append(items, it)
		in = it.rest
	}
	return items, true
}

// addKeyPart appends the number p, without its leading zeros, when it is
// long enough to be a secret.
func addKeyPart(out [][]byte, p []byte) [][]byte {
	for len(p) > 0 && p[0] == 0 {
		p = p[1:]
	}
	if len(p) < minKeyPart {
		return out
	}
	return append(out, p)
}

// pkcs8Parts reads a PKCS#8 PrivateKeyInfo (RFC 5208, 5958): version,
// algorithm, and the private key in an OCTET STRING, which holds an RSA
// or EC key's DER, or a curve's private key (Ed25519, X25519, Ed448) in
// an OCTET STRING of its own.
func pkcs8Parts(out [][]byte, der []byte) [][]byte {
	items, ok := derSequence(der)
	if !ok || len(items) < 3 || items[0].tag != 0x02 || items[1].tag != 0x30 || items[2].tag != 0x04 {
		return out
	}
	inner := items[2].body
	if _, ok := derSequence(inner); ok {
		if n := len(out); len(ecParts(out, inner)) == n {
			return rsaParts(out, inner)
		}
		return ecParts(out, inner)
	}
	if it, ok := derNext(inner); ok && it.tag == 0x04 && len(it.rest) == 0 {
		return addKeyPart(out, it.body)
	}
	return out
}

// rsaParts reads a PKCS#1 RSAPrivateKey: version, n, e, d, p, q, dp, dq,
// qi, all INTEGERs; the secret ones are d and the rest after it.
func rsaParts(out [][]byte, der []byte) [][]byte {
	items, ok := derSequence(der)
	if !ok || len(items) < 9 {
		return out
	}
	for _, it := range items[:9] {
		if it.tag != 0x02 {
			return out
		}
	}
	for _, it := range items[3:9] {
		out = addKeyPart(out, it.body)
	}
	return out
}

// ecParts reads a SEC1 ECPrivateKey (RFC 5915): version 1, then the
// private scalar in an OCTET STRING.
func ecParts(out [][]byte, der []byte) [][]byte {
	items, ok := derSequence(der)
	if !ok || len(items) < 2 || items[0].tag != 0x02 || len(items[0].body) != 1 || items[0].body[0] != 1 || items[1].tag != 0x04 {
		return out
	}
	return addKeyPart(out, items[1].body)
}

// addKeyParts adds the secret numbers of a PEM private key in v
// (privateKeyParts): each as its bytes, as written, and as its hex, by
// its skeleton.
func (s *scrubSet) addKeyParts(v string) {
	for _, p := range privateKeyParts(v) {
		s.exact.add(lowerBytes(append([]byte(nil), p...)), boundNone, 0, 0)
		s.addText(hex.EncodeToString(p))
	}
}
