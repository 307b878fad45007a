//go:build attack

package engine_test

// Red-team cases that did not hold (attack_red_test.go says how they were
// written). Each asserts the secure or the ordinary behaviour; run with go
// test -tags attack -run RedOpen. Tests whose every case holds since moved
// to attack_red_fixed_test.go; those below keep, beside the cases that
// still fail, those of theirs that hold now (an RS256 JWT's signature, an
// STS token, AWS's example secret, the same Stripe account's publishable
// key and id, sibling ULIDs, UUIDs and ObjectIds, a .env's expiry date).
// What still fails: a PEM private key read by offset as its lines, where
// the reads that come back hold its public parts (docs/agent-view.md
// says why that is not matched).

import (
	"strings"
	"testing"

	"github.com/veilmcp/veil/wasm/engine"
)

// TestRedOpenSlicesOfAKeyReadByOffset: read_log({offset, length}) over a
// withheld key in reads of 16 characters gives slices back, because the
// key adds no pieces.
func TestRedOpenSlicesOfAKeyReadByOffset(t *testing.T) {
	runRedSliceCases(t, []redSliceCase{
		// An RS256 JWT (what Auth0, Cognito, Firebase and Google issue):
		// its signature is 342 characters, past the 256 whose pieces are
		// added, so every read of 16 of it comes back; the docs say a JWT
		// adds the pieces of its signature.
		{"RS256JWTSignature", redRS256JWT, redSignature(redRS256JWT)},
		// An STS session token of 596 characters, past the 256 of a key;
		// only its words between / and + add pieces, so the reads across
		// a / come back.
		{"STSSessionToken", redSTSToken, redSTSToken},
		// AWS's documented secret access key has one digit, so it is not
		// key-like and adds no pieces; about one real secret in 120 (40
		// base64 characters with fewer than two digits) is the same.
		{"AWSSecretWithOneDigit", redAWSSecret, redAWSSecret},
	})
}

// TestRedOpenPrivateKeyReadByOffset: read_file({offset, length}) over a
// withheld PEM private key, in reads of 48 characters (across its
// lines). Of the 17 reads, three come back: the first (the header every
// 1024-bit RSA key in PKCS#8 has), the third (the modulus, which the
// public key and a certificate repeat) and the fifth (the modulus's end,
// the public exponent, and the first six characters of d). The lines'
// characters that encode the secret numbers alone are pieced; the rest
// is public, so this stays open by design (docs/agent-view.md).
func TestRedOpenPrivateKeyReadByOffset(t *testing.T) {
	t.Run("PEMIn48CharacterReads", func(t *testing.T) {
		e := redSession(t)
		redWithhold(t, e, redPrivPEM)
		body := redPrivPEM[strings.Index(redPrivPEM, "\n")+1 : strings.Index(redPrivPEM, "-----END")]
		leaked := 0
		for i := 0; i+48 <= len(body); i += 48 {
			s := body[i : i+48]
			if v := redRead(t, e, engine.Text, s); redGives(v, s) {
				leaked++
			}
		}
		if leaked > 0 {
			t.Errorf("%d of %d reads of 48 characters of a withheld private key came back", leaked, len(body)/48)
		}
	})
}
