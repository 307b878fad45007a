package engine_test

// Red-team cases that did not hold when they were written and hold now
// (attack_red_test.go says how they were written; the open ones are in
// attack_red_open_test.go). Each asserts the secure or the ordinary
// behaviour.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/veilmcp/veil/wasm/engine"
)

// TestRedLeaksEncodedAgain: a piece of a key written by an encoding the whole key
// is read back from, and a slice of a key that is not key-like in a URL.
func TestRedLeaksEncodedAgain(t *testing.T) {
	runRedLeakCases(t, []redLeakCase{
		// node: Buffer.from(slice, "utf16le").toString("base64"): base64 of
		// UTF-16 of a piece of 16 is not read back (of the whole key it is).
		{name: "SliceInBase64OfUTF16LE", keys: []string{redStripeSecret}, kind: engine.Text, laters: []string{"dABUADEAegBkAHAANwBkAGMAWABrADQAUgBtADkAUQA="}, gone: []string{"dABUADEAegBkAHAANwBkAGMAWABrADQAUgBtADkAUQA="}},
		// python3: urllib.parse.quote(slice, safe=""): a slice of AWS's
		// documented secret (not key-like) in a search link comes back.
		{name: "DocumentedAWSSecretSliceInAQuery", keys: []string{redAWSSecret}, kind: engine.Text,
			laters: []string{"https://logs.example/search?q=FEMI%2FK7MDENG%2FbPx&from=0"}, gone: []string{"FEMI/K7MDENG/bPx", "FEMI%2FK7MDENG%2FbPx"}},
		// python3: slice.encode("utf-16-le").hex(): hex of UTF-16 of a
		// piece of 16 is not read back either.
		{name: "SliceInHexOfUTF16LE", keys: []string{redStripeSecret}, kind: engine.Text,
			laters: []string{"7400540031007a006400700037006400630058006b00340052006d0039005100"}, gone: []string{"7400540031007a006400700037006400630058006b00340052006d0039005100"}},
	})
}

// TestRedListingOptions: a form's <select> whose options the page asks
// about (Withheld) before it lists them in a tool's input schema. An
// option holding a piece of the withheld key is left out (that holds);
// the same account's publishable key is left out too, though it is
// public, because it shares the account part.
func TestRedListingOptions(t *testing.T) {
	e := redSession(t)
	redWithhold(t, e, redStripeSecret)
	opts := []string{"key ending …" + redStripeSecret[len(redStripeSecret)-16:], redStripePublishable, "pro-2026"}
	got, err := e.Withheld(opts)
	if err != nil {
		t.Fatalf("Withheld: %v", err)
	}
	if want := []bool{true, false, false}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("Withheld(%q) = %v, want %v", opts, got, want)
	}
}

// TestRedSlicesOfAURLsPassword: a connection URL withheld at an
// x-sensitive member (DATABASE_URL, REDIS_URL, a git remote): its
// password, 20 random letters and digits, comes back in reads of 16 at
// every offset, since a value with // adds no pieces and its userinfo's
// password is not taken apart (a query's api_key is, and holds).
func TestRedSlicesOfAURLsPassword(t *testing.T) {
	runRedSliceCases(t, []redSliceCase{
		{"Postgres", "postgres://app:" + redDBPassword + "@db.internal:5432/orders", redDBPassword},
		{"Redis", "redis://:" + redDBPassword + "@cache.internal:6379/0", redDBPassword},
		{"MongoDBSRV", "mongodb+srv://app:" + redDBPassword + "@cluster0.ab1cd.mongodb.net/prod?retryWrites=true", redDBPassword},
		{"GitRemote", "https://app:" + redDBPassword + "@git.example/acme/api.git", redDBPassword},
	})
}

// TestRedSlicesOfADigitKey: a secret of digits alone (a recovery
// code of 20 digits, python3: secrets.randbelow per digit; a card number,
// Luhn-valid, python3 likewise) comes back in reads of 13 and 15 digits,
// though the docs count thirteen decimal digits as a piece: its pieces
// are not found, alone, in a text or as a JSON number.
func TestRedSlicesOfADigitKey(t *testing.T) {
	for _, c := range []struct{ name, key string }{
		{"RecoveryCode", "83717192122275918953"},
		{"CardNumber", "4698862535881132"},
	} {
		for _, n := range []int{13, 15} {
			t.Run(fmt.Sprintf("%sIn%dDigitReads", c.name, n), func(t *testing.T) {
				e := redSession(t)
				redWithhold(t, e, c.key)
				redSliceReads(t, e, c.key, n)
			})
		}
	}
	runRedLeakCases(t, []redLeakCase{
		{name: "PieceAsAJSONNumber", keys: []string{"83717192122275918953"}, kind: engine.Returned, laters: []string{`{"n":8371719212227591}`}, gone: []string{"8371719212227591"}},
		{name: "PieceInALogLine", keys: []string{"83717192122275918953"}, kind: engine.Text, laters: []string{"recovery code starts 8371719212227"}, gone: []string{"8371719212227"}},
	})
}

// TestRedDatesAfterAnAzureSASToken: a SAS token's shape (from Azure's
// docs) withheld at an x-sensitive member; later timestamps of the same
// day and hour as its start and expiry lose their date
// ("uploaded 07:30:45Z"). The service version 2022-11-02 survives (in
// attack_red_test.go).
func TestRedDatesAfterAnAzureSASToken(t *testing.T) {
	runRedOrdinaryCases(t, []redOrdinaryCase{
		{name: "Expiry", keys: []string{redSAS}, later: "link expires 2026-03-14T15:30:45Z"},
		{name: "Start", keys: []string{redSAS}, later: "uploaded 2026-03-14T07:30:45Z"},
	})
}

// TestRedKeyWithoutItsPrefixReshaped: the whole key is found as a
// list of its characters, in chunks of 7, spaced letter by letter and in
// groups (attack_red_test.go), but the key without its issuer's prefix
// (sk_live_), which is all its secret (41 characters, a read from offset
// 8), comes back in each of those shapes, the view unchanged: pieces are
// exact needles, and the neighbour and separator readings look for whole
// values only. (gone lists a part of the view that holds the secret.)
func TestRedKeyWithoutItsPrefixReshaped(t *testing.T) {
	runRedLeakCases(t, []redLeakCase{
		// python3: json.dumps(list(key[8:]))
		{name: "ListOfCharacters", keys: []string{redStripeSecret}, kind: engine.Returned, laters: []string{`["5", "1", "H", "q", "L", "y", "j", "W", "D", "a", "r", "j", "t", "T", "1", "z", "d", "p", "7", "d", "c", "X", "k", "4", "R", "m", "9", "Q", "v", "B", "2", "s", "L", "w", "8", "T", "n", "J", "3", "y", "E"]`}, gone: []string{`"j", "t", "T", "1", "z"`}},
		// python3: json.dumps([s[i:i+7] for i in range(0, len(s), 7)])
		{name: "ChunksOfSeven", keys: []string{redStripeSecret}, kind: engine.Returned, laters: []string{`["51HqLyj", "WDarjtT", "1zdp7dc", "Xk4Rm9Q", "vB2sLw8", "TnJ3yE"]`}, gone: []string{"1zdp7dc"}},
		// python3: " ".join(key[8:])
		{name: "LetterSpaced", keys: []string{redStripeSecret}, kind: engine.Text, laters: []string{"5 1 H q L y j W D a r j t T 1 z d p 7 d c X k 4 R m 9 Q v B 2 s L w 8 T n J 3 y E"}, gone: []string{"5 1 H q L y j W D a r j t T 1 z d p 7 d c X k 4 R m 9 Q v B 2 s L w 8 T n J 3 y E"}},
		// python3: "-".join(s[i:i+4] for i in range(0, len(s), 4)), a key
		// shown in groups as licence keys are
		{name: "GroupsOfFour", keys: []string{redStripeSecret}, kind: engine.Text, laters: []string{"key: 51Hq-LyjW-Darj-tT1z-dp7d-cXk4-Rm9Q-vB2s-Lw8T-nJ3y-E"}, gone: []string{"51Hq-LyjW-Darj-tT1z-dp7d-cXk4-Rm9Q-vB2s-Lw8T-nJ3y-E"}},
	})
}

// TestRedOrdinaryOutputsBesideAKey: ids and dates that share a run of 8 to 16
// characters with a key the session withheld (or are a word of a
// withheld URL) lost it, though they are not secret; they pass now.
func TestRedOrdinaryOutputsBesideAKey(t *testing.T) {
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

// TestRedDescriptorsOfAWithheldDotEnv: the key-like words of a withheld .env
// text (rule (d)'s "each word that looks like a key") include what is not
// secret, and later outputs lost it: a release version ("myapp "), the
// deployed commit that git log shows ("commit "), a build number (the
// text was emptied) and an expiry's date, cut to "23:59:59Z". They are
// descriptors now (descriptors.go), and pass.
func TestRedDescriptorsOfAWithheldDotEnv(t *testing.T) {
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

// TestRedSlicesOfAPasswordAndALetterToken: read_log({offset, length})
// over a withheld password with symbols and a token of letters alone, in
// reads of 16 characters at every offset, gave every slice back: neither
// added pieces. A generated password's symbols are marks, and random
// letters are pieced, now.
func TestRedSlicesOfAPasswordAndALetterToken(t *testing.T) {
	runRedSliceCases(t, []redSliceCase{
		// A generated password with # $ @ ! & %.
		{"PasswordWithSymbols", redPassword, redPassword},
		// A token of 32 random letters.
		{"LettersOnlyToken", redLettersToken, redLettersToken},
	})
}

// TestRedPrivateExponentReadByOffset: read_file({offset, length}) over
// openssl's dump of a withheld private key's exponent d, in reads of 32
// hexadecimal digits, gave every read back; the secret numbers of a PEM
// key are pieced in hexadecimal now.
func TestRedPrivateExponentReadByOffset(t *testing.T) {
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
}
