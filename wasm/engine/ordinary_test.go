package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// The tools of the tests of what whole-output withholding gives the
// session: one whose output is withheld whole (sensitiveHint without a
// schema), one that declares a PIN x-sensitive, and a later one that
// declares nothing.
const (
	readProfileDef = `{"name":"read_profile","description":"d","annotations":{"sensitiveHint":true}}`
	setPinDef      = `{"name":"set_pin","description":"d","outputSchema":{"type":"object","properties":{"ok":{"type":"boolean"},"pin":{"type":"string","x-sensitive":true}}}}`
	laterToolDef   = `{"name":"later_tool","description":"d"}`
)

// hintProfile is a profile read_profile returns: ordinary words, a date,
// an amount, and secrets and identifiers beside them.
var hintProfile = map[string]any{
	"status":   "active",
	"language": "English",
	"country":  "Portugal",
	"city":     "Lisbon",
	"since":    "2026-03-14",
	"plan":     "19.99",
	"balance":  1520.75,
	"pin":      "2026",
	"apiKey":   "sk_live_Zq81vT0pLm42",
	"email":    "ada@example.com",
	"card":     "4111 1111 1111 1111",
	"ssn":      "123-45-6789",
	"account":  88231907,
	"password": "Tr0ub4dor&3",
	"phrase":   "correct horse battery",
	"notes":    "Call back on Friday about the renewal; token ghp_8fK2mQ9xLp4Rt7Vw1Zy3 is attached",
}

// ordinaryCorpus is what ordinary tools return after a profile was
// withheld whole: dates, times, prices, order ids, addresses, versions
// and prose, in which the profile's ordinary words and its PIN's digits
// stand as parts of other things. None of it repeats a secret.
var ordinaryCorpus = []string{
	`{"order":"ORD-2026-0314","placed":"2026-03-14","total":"€19.99","status":"active"}`,
	`{"events":[{"at":"2026-03-14T10:20:26Z","what":"login"},{"at":"14/03/2026 09:15","what":"logout"}]}`,
	`{"shipTo":{"street":"Rua Augusta 112","city":"Lisbon","country":"Portugal"},"eta":"2026/03/20"}`,
	`{"release":"v1.2026.3","notes":"Released 14.03.2026 at 10:20:26; see the changelog."}`,
	`{"prices":[{"sku":"A-2031","price":19.99},{"sku":"B-17","price":1520.75}],"currency":"EUR"}`,
	`{"text":"The English edition ships to Portugal on 2026-03-14; active subscribers pay 19.99."}`,
	`{"language":"English","status":"active","updatedAt":"2026-03-14T08:00:00.000Z"}`,
	`{"items":[{"id":1,"title":"Portugal travel guide, 2nd edition"},{"id":2,"title":"English for travellers"}]}`,
	`{"meeting":"10:30-11:00","room":"Lisbon 4","date":"2026-03-14"}`,
	`{"invoice":"INV/2026/03/0042","due":"2026-04-13","amount":"1,520.75"}`,
	`{"comment":"Friday was busy; the renewal call went well and the account stays active."}`,
	`{"ip":"10.20.26.1","port":8080,"uptime":"3:20:26"}`,
}

// pinTokenCorpus are ordinary outputs in which the profile's PIN, 2026,
// stands as a token of its own (a house number, the end of an SKU): a
// withheld four-digit value cannot be told from them, so it goes, and
// only it.
var pinTokenCorpus = []string{
	`{"shipTo":{"street":"Rua Augusta 2026","city":"Lisbon","country":"Portugal"},"eta":"2026/03/20"}`,
	`{"prices":[{"sku":"A-2026","price":19.99},{"sku":"B-17","price":1520.75}],"currency":"EUR"}`,
	`{"text":"The 2026 English edition ships on 2026-03-14."}`,
}

// laterView returns the view of data returned by the later tool.
func laterView(t *testing.T, e *Engine, data string) Result {
	t.Helper()
	res := e.OutputOf("later_tool", Outcome{Kind: Returned, Data: data})
	require.Nil(t, res.Err)
	return res
}

// profileEngine returns an engine whose session withheld hintProfile
// whole.
func profileEngine(t *testing.T) *Engine {
	t.Helper()
	e := newTestEngine(t)
	mustRegister(t, e, readProfileDef)
	mustRegister(t, e, laterToolDef)
	res := e.OutputOf("read_profile", Outcome{Kind: Returned, Data: jsonText(hintProfile)})
	require.Nil(t, res.Err)
	require.Positive(t, res.Held)
	require.NotContains(t, res.Agent, "Portugal", "the profile itself is withheld whole")
	return e
}

// TestWholeWithholdingKeepsOrdinaryOutputs: after a sensitiveHint output
// is withheld whole, its ordinary words, date and amounts (active,
// English, Portugal, 2026-03-14, 19.99) and its PIN's digits inside dates,
// times and versions stay in every later output: each of the corpus
// passes byte for byte.
func TestWholeWithholdingKeepsOrdinaryOutputs(t *testing.T) {
	e := profileEngine(t)
	for _, data := range ordinaryCorpus {
		res := laterView(t, e, data)
		assert.Equal(t, data, res.Agent, "an ordinary later output was changed")
	}
}

// TestWholeWithholdingScrubsSecretsFromLaterEchoes: what looks like a
// secret or an identifier in the same withheld profile still joins the
// session's set, and a later output that echoes it loses it; what is
// around it stays.
func TestWholeWithholdingScrubsSecretsFromLaterEchoes(t *testing.T) {
	e := profileEngine(t)
	tests := []struct {
		name, secret, data, keep string
	}{
		{"a key in a log line", "sk_live_Zq81vT0pLm42", `{"log":["GET /keys Authorization: Bearer sk_live_Zq81vT0pLm42"]}`, "GET /keys"},
		{"an e-mail address", "ada@example.com", `{"to":"ada@example.com","subject":"Renewal"}`, "Renewal"},
		{"a card number grouped otherwise", "4111111111111111", `{"card":"4111-1111-1111-1111","brand":"visa"}`, "visa"},
		{"an SSN without dashes", "123456789", `{"tax":123456789,"country":"Portugal"}`, "Portugal"},
		{"an account number as a string", "88231907", `{"acct":"Account 88231907 is active"}`, "is active"},
		{"a PIN standing alone", "2026", `{"msg":"Your PIN 2026 was confirmed on 2026-03-14."}`, "2026-03-14"},
		{"a PIN as a number", "2026", `{"pin":2026,"date":"2026-03-14"}`, "2026-03-14"},
		{"a password", "Tr0ub4dor&3", `{"echo":"pw=Tr0ub4dor&3"}`, "echo"},
		{"a token from a withheld paragraph", "ghp_8fK2mQ9xLp4Rt7Vw1Zy3", `{"audit":"token ghp_8fK2mQ9xLp4Rt7Vw1Zy3 used on Friday"}`, "used on Friday"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := laterView(t, e, tt.data)
			// The PIN's digits stay in the dates beside it.
			agent := strings.ReplaceAll(res.Agent, "2026-03-14", "")
			if where, found := leakcheck.Find(agent, tt.secret); found {
				t.Errorf("%q, withheld earlier, is in %s\nview: %s", tt.secret, where, res.Agent)
			}
			assert.Contains(t, res.Agent, tt.keep)
		})
	}
}

// TestWholeWithholdingTakesOnlyThePinToken: in a later output where the
// withheld PIN stands as a token of its own, it goes, and every other
// word and date stays.
func TestWholeWithholdingTakesOnlyThePinToken(t *testing.T) {
	e := profileEngine(t)
	for _, data := range pinTokenCorpus {
		res := laterView(t, e, data)
		assert.NotEqual(t, data, res.Agent, "the PIN standing alone was kept")
		for _, w := range corpusWords(data) {
			if w != "2026" && !strings.HasSuffix(w, "-2026") {
				assert.Contains(t, res.Agent, w)
			}
		}
	}
}

// TestDeclaredPinKeepsLaterDates: a PIN withheld by an explicit
// declaration still joins the session's set, and is found later where it
// stands as a token of its own, but not as the year of a date, a time's
// digits or a version's part.
func TestDeclaredPinKeepsLaterDates(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, setPinDef)
	mustRegister(t, e, laterToolDef)
	res := e.OutputOf("set_pin", Outcome{Kind: Returned, Data: `{"ok":true,"pin":"2026"}`})
	require.Nil(t, res.Err)
	require.Equal(t, 1, res.Held)
	tests := []struct {
		name, data string
		gone       bool
	}{
		{"an ISO date", `{"d":"2026-03-14"}`, false},
		{"a date with slashes", `{"d":"14/03/2026"}`, false},
		{"a date with points", `{"d":"14.03.2026"}`, false},
		{"a time", `{"t":"10:20:26"}`, false},
		{"a version", `{"v":"1.2026.3"}`, false},
		{"a timestamp", `{"at":"2026-03-14T10:20:26Z"}`, false},
		{"the PIN in a sentence", `{"msg":"PIN 2026."}`, true},
		{"the PIN after a name", `{"msg":"pin:2026"}`, true},
		{"the PIN glued to letters", `{"msg":"ID2026"}`, true},
		{"the PIN as a number", `{"n":2026}`, true},
		{"the PIN as a float", `{"n":2026.0}`, true},
		{"the PIN between dashes of words", `{"msg":"code-2026-ok"}`, true},
		{"a date in words", `{"d":"Invoice dated March 14, 2026."}`, false},
		{"a date with the month abbreviated", `{"d":"Sat, 14 Mar 2026 10:20:26 GMT"}`, false},
		{"a month and a year", `{"d":"since Sept. 2026"}`, false},
		{"a Japanese date", `{"d":"2026年3月14日"}`, false},
		{"a range of years", `{"d":"the 2025–2026 season"}`, false},
		{"an ISO week", `{"d":"2026-W11"}`, false},
		{"a year member", `{"year":2026,"month":3}`, false},
		{"a year label", `{"d":"Year: 2026"}`, false},
		{"the PIN after a label that is no year", `{"msg":"Code: 2026"}`, true},
		{"the PIN after a word that is no month", `{"msg":"Mayor 2026"}`, true},
		{"the PIN as a number named otherwise", `{"pin":2026,"month":3}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := laterView(t, e, tt.data)
			if tt.gone {
				_, found := leakcheck.Find(res.Agent, "2026")
				assert.False(t, found, "the PIN reached the agent: %s", res.Agent)
			} else {
				assert.Equal(t, tt.data, res.Agent)
			}
		})
	}
}

// TestOrdinaryValue: what withholding a whole output keeps out of the
// session's set, and what it lets in, by the engine's test (hintedParts)
// and by the shapes of the docs that FuzzSession's oracle reads.
func TestOrdinaryValue(t *testing.T) {
	tests := []struct {
		v        string
		ordinary bool
	}{
		{"active", true}, {"English", true}, {"Portugal", true}, {"O'Brien", true}, {"well-known", true}, {"São", true},
		{"2026-03-14", true}, {"2026-03-14T10:20:26Z", true}, {"14/03/2026", true}, {"10:30", true},
		{"1.4.2", true}, {"19.99", true}, {"€19.99", true}, {"1,520.75", true}, {"-5.00", true},
		{"2026", false}, {"0420", false}, {"sk_live_Zq81vT0pLm42", false}, {"4111 1111 1111 1111", false},
		{"4111.1111.1111.1111", false}, {"123-45-6789", false}, {"+1 555 010 9999", false},
		{"ada@example.com", false}, {"Tr0ub4dor&3", false},
		{"f%d0;%h", false}, {"", false},
		{"58.3", true}, {"Inc.", true}, {"v1.2.3", true}, {"1.520,75 €", true},
		{"19,99", true}, {"2026-03-14 10:20:26+01:00", true}, {"9:15:00.125", true}, {"$ 5", true},
		{"123.45.6789", false}, {"555.123.4567", false}, {"12 34:56", false}, {"a..b", false},
		{"-word", false}, {"4,4711", false}, {"123456789.12", true}, {"1234567890.12", false}, {"123456789012.5", false},
		{"NASA", true}, {"iPhone", false}, {"McDonald", false}, {"kQzXvBnMaSdFgHjK", false}, {"ABCDEFG", false},
		{"NASAs", false}, {"Donaudampfschifffahrt", true}, {"abcdefghijklmnopqrstuvwxy", false}, {"Jean-Luc", true},
		{"2026-03-14T", false}, {"10:3", false}, {"€€55", false}, {"1.2.3.4.5", false}, {"٤٤٧١.5", false},
		// Words of a value are read one by one: a value of ordinary words
		// stays out, whoever wrote it; a name or a passphrase of ordinary
		// words cannot be told from them.
		{"is not", true}, {"Do not", true}, {"unverified!", true}, {"(suspicious)", true}, {`"blocked"`, true},
		{"United States", true}, {"Free trial", true}, {"Ada Lovelace", true}, {"correct horse battery", true},
		{"Rua Augusta 12", true}, {"Rua Augusta 2026", true}, {"PIN 4821", false}, {"card 4111 1111 1111 1111 on file", false},
		{"IBAN DE89 3704 0044 0532 0130 00", false}, {"DATABASE_URL=postgres://app:S3cr3tPassw0rd@db.internal:5432/app", false},
		{"SSN 123-45-6789.", false}, {"2025 2026", false}, {"10 20", false}, {"1 2", true},
		// Shapes benign software writes.
		{"in_progress", true}, {"PENDING_REVIEW", true}, {"pt_PT", true}, {"Europe/Lisbon", true},
		{"America/Argentina/Buenos_Aires", true}, {"March 14, 2026", true}, {"Sat, 14 Mar 2026 10:20:26 GMT", true},
		{"2026-03-14 10:20:26.123456+01", true}, {"2026-03-14 10:20:26.125 +0000 UTC", true}, {"USD 19.99", true},
		{"12.5%", true}, {"100%", true}, {"1.4.2-beta.1", true}, {"2.0.0-rc.2", true}, {"application/json", true},
		{"image/svg+xml", true}, {"10:30 AM", true}, {"+01:00", true},
		// Shapes that look ordinary and are not.
		{"10.20.26.1", false}, {"203.0.113.42", false}, {"4821-93-07", false}, {"2026-13-01", false}, {"25:61", false},
		{"qwhz-mtkr-plsn-bvcx", false}, {"unsaid-unreal-flask", false}, {"qwhzmtkrplsnbvcx", false},
		{"ACCOUNT_NOT_FOUND", false}, {"1.4.2-sk8Live", false}, {"Europe/kQzXvB", false}, {"foo/bar", false},
		{"+23:00", false}, {"mother-in-law", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.ordinary, len(hintedParts(tt.v)) == 0 && tt.v != "", "the engine on %q", tt.v)
		// FuzzSession's oracle reads the docs' shapes on its own.
		assert.Equal(t, tt.ordinary, docOrdinary(tt.v), "the docs' shapes on %q", tt.v)
	}
}

// TestHintedPartsJoinsWhatIsNotOrdinary: of a text withheld whole, what
// joins the session's set is each word or group of digits that is not
// ordinary, the value of KEY=value and a URL's password, and the text.
func TestHintedPartsJoinsWhatIsNotOrdinary(t *testing.T) {
	tests := []struct {
		v    string
		want []string
	}{
		{"Customer Ada Lovelace, SSN 123-45-6789, card 4111 1111 1111 1111, PIN 4821, one-time code 482193.",
			[]string{"4111 1111 1111 1111", "123-45-6789", "4821", "482193"}},
		{"DATABASE_URL=postgres://app:S3cr3tPassw0rd@db.internal:5432/app", []string{"postgres://app:S3cr3tPassw0rd@db.internal:5432/app", "S3cr3tPassw0rd"}},
		{"Please pay to IBAN DE89 3704 0044 0532 0130 00 by Friday.", []string{"DE89 3704 0044 0532 0130 00"}},
		{"pin=4821 ok", []string{"pin=4821", "4821"}},
		{"pin:4821 ok, SSN:123-45-6789", []string{"pin:4821", "4821", "123-45-6789"}},
	}
	for _, tt := range tests {
		got := hintedParts(tt.v)
		require.NotEmpty(t, got, tt.v)
		assert.Equal(t, strings.TrimSpace(tt.v), got[len(got)-1], "the value itself joins")
		for _, w := range tt.want {
			assert.Contains(t, got, w, "of %q", tt.v)
		}
		for _, p := range got[:len(got)-1] {
			for _, ordinary := range []string{"Customer", "Ada", "Lovelace", "card", "PIN", "Friday", "IBAN"} {
				assert.NotEqual(t, ordinary, p, "an ordinary word joined, of %q", tt.v)
			}
		}
	}
}

// TestOrdinaryCorpusCount counts the later outputs that a profile
// withheld whole changes, and their words that vanish: of ordinaryCorpus,
// and of pinTokenCorpus, where the PIN stands alone. Run against the
// engine before whole withholding kept ordinary values out of the set, it
// counts what that cost; now ordinaryCorpus passes whole.
func TestOrdinaryCorpusCount(t *testing.T) {
	e := profileEngine(t)
	count := func(corpus []string) (changed, words, lost int) {
		for _, data := range corpus {
			res := laterView(t, e, data)
			if res.Agent != data {
				changed++
			}
			for _, w := range corpusWords(data) {
				words++
				if !strings.Contains(res.Agent, w) {
					lost++
				}
			}
		}
		return changed, words, lost
	}
	changed, words, lost := count(ordinaryCorpus)
	t.Logf("ordinary: %d of %d outputs changed; %d of %d words and dates lost", changed, len(ordinaryCorpus), lost, words)
	assert.Zero(t, changed)
	assert.Zero(t, lost)
	changed, words, lost = count(pinTokenCorpus)
	t.Logf("the PIN alone: %d of %d outputs changed; %d of %d words and dates lost", changed, len(pinTokenCorpus), lost, words)
	assert.Equal(t, len(pinTokenCorpus), changed)
}

// corpusWords returns the strings of a JSON text, cut at white space and
// the punctuation of prose.
func corpusWords(data string) []string {
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		panic(err)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(" ,;", r) })...)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

// TestDeclaredWordJoinsTheSession: a word withheld by a declaration
// (x-sensitive) joins the session's set whatever it looks like: the
// ordinary-word rule is for outputs withheld whole only.
func TestDeclaredWordJoinsTheSession(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"read_origin","description":"d","outputSchema":{"type":"object","properties":{"id":{"type":"string"},"country":{"type":"string","x-sensitive":true}}}}`)
	mustRegister(t, e, laterToolDef)
	res := e.OutputOf("read_origin", Outcome{Kind: Returned, Data: `{"id":"u1","country":"Portugal"}`})
	require.Nil(t, res.Err)
	require.Equal(t, 1, res.Held)
	view := laterView(t, e, `{"shipTo":"Portugal","eta":"2026-03-20"}`)
	_, found := leakcheck.Find(view.Agent, "Portugal")
	assert.False(t, found, "a declared word came back: %s", view.Agent)
	assert.Contains(t, view.Agent, "2026-03-20")
}
