//go:build attack

package engine_test

// Red-team cases that did not hold (attack_red_test.go says how they were
// written). Each asserts the secure or the ordinary behaviour; run with go
// test -tags attack -run RedOpen. Tests whose every case holds since moved
// to attack_red_fixed_test.go; those below keep, beside the cases that
// still fail, those of theirs that hold now (an RS256 JWT's signature, an
// STS token, AWS's example secret, the same Stripe account's publishable
// key and id, sibling ULIDs, UUIDs and ObjectIds, a .env's expiry date).
// What still fails: a password with symbols and a token of letters alone
// read by offset, a PEM private key read by offset as its lines or its
// numbers in hexadecimal, a Slack webhook's team id, and a withheld .env's
// release version, commit, build number and region (docs/agent-view.md
// lists each as not matched, or as what whole withholding costs).

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
		// A generated password with # $ @ ! & %: not in key characters, so
		// no pieces (the docs' limit), and every read of 16 comes back.
		{"PasswordWithSymbols", redPassword, redPassword},
		// AWS's documented secret access key has one digit, so it is not
		// key-like and adds no pieces; about one real secret in 120 (40
		// base64 characters with fewer than two digits) is the same.
		{"AWSSecretWithOneDigit", redAWSSecret, redAWSSecret},
		// A token of 32 random letters is not key-like: no pieces.
		{"LettersOnlyToken", redLettersToken, redLettersToken},
	})
}

// TestRedOpenPrivateKeyReadByOffset: read_file({offset, length}) over a
// withheld PEM private key, in reads of 48 characters (across its
// lines), and over openssl's dump of its private exponent in reads of 32
// hexadecimal digits.
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
	t.Run("ExponentHexIn32DigitReads", func(t *testing.T) {
		e := redSession(t)
		redWithhold(t, e, redPrivPEM)
		d := redAsn1D[strings.LastIndexByte(redAsn1D, ':')+1:]
		leaked := 0
		for i := 0; i+32 <= len(d); i += 32 {
			if v := redRead(t, e, engine.Text, d[i:i+32]); redGives(v, d[i:i+32]) {
				leaked++
			}
		}
		if leaked > 0 {
			t.Errorf("%d of %d reads of 32 hex digits of d came back", leaked, len(d)/32)
		}
	})
}

// TestRedOpenOrdinaryOutputs: ids and dates that share a run of 8 to 16
// characters with a key the session withheld (or are a word of a
// withheld URL) lose it, though they are not secret.
func TestRedOpenOrdinaryOutputs(t *testing.T) {
	runRedOrdinaryCases(t, []redOrdinaryCase{
		// Stripe keys embed the account id: the publishable key of the same
		// account loses "_live_51HqLyjWDarjtT1z" (it becomes "pdQ3vNw8…").
		{name: "StripePublishableKeyOfTheSameAccount", keys: []string{redStripeSecret}, kind: engine.Returned,
			later: `{"publishable_key":"` + redStripePublishable + `"}`},
		// and the account's own id becomes "acct_".
		{name: "StripeAccountIDOfTheKey", keys: []string{redStripeSecret}, kind: engine.Returned,
			later: `{"account":"` + redStripeAccount + `","country":"PT"}`},
		// UUIDv1 of one host share their node (02fc00000001): every other
		// id of the host loses its last 20 characters.
		{name: "UUIDv1OfOtherObjectsOfTheSameHost", keys: []string{redUUID1a}, kind: engine.Returned,
			later: `{"orders":["` + redUUID1b + `","` + redUUID1c + `"]}`},
		// ObjectIds of one process share 5 random bytes: other documents'
		// ids lose their middle ("6b0b429f1a2b01").
		{name: "ObjectIDsOfTheSameProcess", keys: []string{redOID1}, kind: engine.Returned,
			later: `{"items":[{"_id":"` + redOID2 + `"},{"_id":"` + redOID3 + `"}]}`},
		// ULIDs of one second share their time: other events' ids lose
		// "01M8HZRF" (a withheld ULID-shaped token).
		{name: "ULIDsOfTheSameSecond", keys: []string{redULID1}, kind: engine.Returned,
			later: `{"events":["` + redULID2 + `","` + redULID3 + `"]}`},
		// The presigned URL's X-Amz-Date adds the pieces of
		// "20260314T153045Z": another request's date of the same day loses
		// "20260314T" and becomes "153102Z".
		{name: "AmzDateOfAnotherRequestAfterAPresignedURL", keys: []string{redPresigned}, later: "X-Amz-Date: 20260314T153102Z"},
		// A Slack webhook's team id (T024BE7LD) is a key-like word of the
		// URL: the workspace's id vanishes from every later output.
		{name: "SlackTeamIDAfterAWebhook", keys: []string{redSlackHook}, kind: engine.Returned, later: `{"team_id":"T024BE7LD","channel":"C024BE91L"}`},
		// SendGrid's key holds its own id, which GET /v3/api_keys lists:
		// the id loses all but "x5d1A".
		{name: "SendGridKeyIDListed", keys: []string{redSendGridKey}, kind: engine.Returned,
			later: `{"result":[{"api_key_id":"` + redSendGridID + `","name":"ci"}]}`},
	})
}

// TestRedOpenAfterAWithheldDotEnv: the key-like words of a withheld .env
// text (rule (d)'s "each word that looks like a key") include what is not
// secret, and later outputs lose it: a release version ("myapp "), the
// deployed commit that git log shows ("commit "), a build number (the
// text is emptied) and an expiry's date, cut to "23:59:59Z".
func TestRedOpenAfterAWithheldDotEnv(t *testing.T) {
	runRedOrdinaryCases(t, []redOrdinaryCase{
		{name: "ReleaseVersion", keys: []string{redDotEnv}, later: "myapp 2.14.3-rc1"},
		{name: "GitSHA", keys: []string{redDotEnv}, later: "commit 3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f"},
		{name: "BuildNumber", keys: []string{redDotEnv}, later: "build 20260314.1"},
		{name: "ExpiryDate", keys: []string{redDotEnv}, later: "session ends 2026-12-31T23:59:59Z"},
		// A sensitiveHint deploy record withheld whole: its region, an
		// ordinary word of letters, digits and dashes that is not
		// key-like, vanishes from later outputs ("… in ").
		{name: "RegionAfterAWholeDeployRecord", whole: `{"deploy":{"at":"2026-12-31T23:59:59Z","version":"v20.11.1","region":"eu-west-1"}}`,
			later: "next deploy after 2026-12-31T23:59:59Z on v20.11.1 in eu-west-1"},
	})
}
