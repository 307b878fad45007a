//go:build attack

package engine_test

// What did not hold when the engine was attacked with inputs written apart
// from its tests. Each case asserts the secure behaviour and fails on the
// engine as it is; what is left is kept open by design, each case saying
// why (docs/agent-view.md, rule (d), lists them). Run them with
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
