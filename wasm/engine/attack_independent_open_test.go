//go:build attack

package engine_test

// What did not hold when the engine was attacked with inputs written apart
// from its tests. Each case asserts the secure behaviour and fails on the
// engine as it is; run them with
//
//	go test -tags attack -run TestIndependentOpen ./wasm/engine
//
// The helpers are in attack_independent_test.go.

import (
	"testing"

	"github.com/veilmcp/veil/wasm/engine"
)

// TestIndependentOpenLeaks: a value one output withheld comes back in a
// later output of the session, in a shape benign software writes, or passes
// the ordinary test that keeps it out of the session's set.
func TestIndependentOpenLeaks(t *testing.T) {
	runIndLeakCases(t, []indLeakCase{
		// openssl ec -in key.pem -text -noout: the private scalar in hex, colons between bytes — docs: not listed: the withheld PEM's base64 is not decoded, so the key's bytes in another encoding are not known
		{name: "PrivateKeyAsOpenSSLText", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "Private-Key: (256 bit)\npriv:\n    66:55:fd:6f:5c:69:c1:2c:55:10:43:d7:fe:02:59:\n    93:ce:ca:ec:64:26:43:37:29:b9:e5:de:2f:14:af:\n    40:f5\npub:\n    04:df:53:a7:e6:13:ad:ef:3f:9c:9e:29:12:3c:29:\n    d3:b1:aa:d9:a9:7a:17:c4:30:35:19:e7:10:47:cb:\n    eb:97:d3:d5:83:88:3c:99:c2:a0:07:7d:bb:b2:7e:\n    7b:9d:4a:ae:50:39:84:11:9e:f9:68:2e:46:e6:90:\n    c4:02:92:09:50\nASN1 OID: prime256v1\nNIST CURVE: P-256\n",
			forms: []string{"66:55:fd:6f:5c:69:c1:2c"}},
		// openssl ec -in key.pem (the same key as SEC1, its default output) — docs: not listed, as above
		{name: "PrivateKeyAsSEC1PEM", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIGZV/W9cacEsVRBD1/4CWZPOyuxkJkM3Kbnl3i8Ur0D1oAoGCCqGSM49\nAwEHoUQDQgAE31On5hOt7z+cnikSPCnTsarZqXoXxDA1GecQR8vrl9PVg4g8mcKg\nB327sn57nUquUDmEEZ75aC5G5pDEApIJUA==\n-----END EC PRIVATE KEY-----\n",
			forms: []string{"MHcCAQEEIGZV/W9cacEsVRBD1/4CWZPOyuxkJkM3"}},
		// node: crypto.createPrivateKey(pem).export({format: "jwk"}) — docs: not listed, as above
		{name: "PrivateKeyAsJWK", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "{\"kty\":\"EC\",\"x\":\"31On5hOt7z-cnikSPCnTsarZqXoXxDA1GecQR8vrl9M\",\"y\":\"1YOIPJnCoAd9u7J-e51KrlA5hBGe-WguRuaQxAKSCVA\",\"crv\":\"P-256\",\"d\":\"ZlX9b1xpwSxVEEPX_gJZk87K7GQmQzcpueXeLxSvQPU\"}",
			forms: []string{"ZlX9b1xpwSxVEEPX_gJZk87K7GQmQzcpueXeLxSvQPU"}},
		// node: crypto.createPrivateKey(pem).export({type: "pkcs8", format: "der"}).toString("hex") — docs: not listed, as above
		{name: "PrivateKeyAsDERHex", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b02010104206655fd6f5c69c12c551043d7fe025993cecaec6426433729b9e5de2f14af40f5a14403420004df53a7e613adef3f9c9e29123c29d3b1aad9a97a17c4303519e71047cbeb97d3d583883c99c2a0077dbbb27e7b9d4aae503984119ef9682e46e690c402920950",
			forms: []string{"6655fd6f5c69c12c551043d7"}},
		// a booking reference of six capitals in a sensitiveHint output (read as an acronym) — docs: within the documented word shape (up to six capitals) — kept open by design: six capitals cannot be told from an acronym (NASA, HTTPS); docs/agent-view.md, rule (d), says so
		{name: "AirlineRecordLocator", whole: true, data: "{\"booking_ref\": \"QZXKTB\"}", secret: "QZXKTB", kind: engine.Text,
			later: "your booking QZXKTB",
			forms: []string{"QZXKTB"}},
		// a login name first.last in a sensitiveHint output — docs: within the documented word shape (a point between letters); a name of two words joins, the same name as a login does not — kept open by design: a login of two ordinary words cannot be told from a word with a point (db.internal, e.g.); docs/agent-view.md, rule (d), says so
		{name: "UsernameWithPoint", whole: true, data: "{\"username\": \"ada.lovelace\"}", secret: "ada.lovelace", kind: engine.Text,
			later: "login ada.lovelace",
			forms: []string{"ada.lovelace"}},
		// a sensitiveHint tool without a schema returns a string (MCP's usual text), withheld whole; only its words that look like keys join — docs: rule (d) says so, the Not matched list does not — kept open by design: a name of ordinary words cannot be told from United States or Free trial; docs/agent-view.md, rule (d), says so
		{name: "HintTextName", whole: true, data: "Customer Ada Lovelace, SSN 123-45-6789, card 4111 1111 1111 1111, PIN 4821, one-time code 482193.", text: true, secret: "Ada Lovelace", kind: engine.Text,
			later: "Ada Lovelace logged in"},
		// a sensitiveHint tool without a schema returns a string (MCP's usual text), withheld whole; only its words that look like keys join — docs: rule (d) says so, the Not matched list does not — kept open by design: a passphrase of ordinary words cannot be told from a phrase whoever writes the output chose to censor; docs/agent-view.md, rule (d), says so
		{name: "HintTextPassphrase", whole: true, data: "DATABASE_URL=postgres://app:S3cr3tPassw0rd@db.internal:5432/app\nADMIN_PASSWORD=correct horse battery staple\n", text: true, secret: "correct horse battery staple", kind: engine.Text,
			later: "admin pw correct horse battery staple"},
	})
}
