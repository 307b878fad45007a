package engine

import (
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEachEncoded: the runs real encoders write are decoded to what they
// encode, from some phase; words, paths and numbers are not base64.
func TestEachEncoded(t *testing.T) {
	const secret = "user:sk_live_9f8e7d6c"
	decodesTo := func(text, want string) bool {
		budget := decodeBudget(text)
		found := false
		eachEncoded(text, &budget, func(a, b int, decoded []byte) bool {
			found = found || strings.Contains(string(decoded), want)
			return !found
		})
		return found
	}
	tests := []struct {
		name, text string
		want       bool
	}{
		{"std, padded", "Basic " + base64.StdEncoding.EncodeToString([]byte(secret)), true},
		{"url, raw", "t=" + base64.RawURLEncoding.EncodeToString([]byte("\xfb\xff"+secret)), true},
		{"std at an offset", "x" + base64.StdEncoding.EncodeToString([]byte("ab"+secret)), true},
		{"wrapped at 64", wrap(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("p", 60)+secret)), 64, "\n"), true},
		{"wrapped at 76 with CRLF", wrap(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("p", 70)+secret)), 76, "\r\n"), true},
		{"hex", "0x" + hex.EncodeToString([]byte(secret)), true},
		{"hex upper", strings.ToUpper(hex.EncodeToString([]byte(secret))), true},
		{"hex with colons", colonHex(hex.EncodeToString([]byte(secret))), true},
		{"hex with dashes", strings.ReplaceAll(colonHex(hex.EncodeToString([]byte(secret))), ":", "-"), true},
		{"the secret itself", secret, false},
		{"a path", "/records/1234/ssn/user/sk_live_9f8e7d6c", false},
		{"words", "Seen on visit 123; follow-up in two weeks", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, decodesTo(tt.text, secret), "%s: %q", tt.name, tt.text)
	}
}

// TestEachEncodedBudget: a text of runs that would cost more to decode
// than the budget reports false, so the caller fails closed.
func TestEachEncodedBudget(t *testing.T) {
	text := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("Xy12", 1000)))
	budget := 100
	assert.False(t, eachEncoded(text, &budget, func(int, int, []byte) bool { return true }))
}

// encodedNoted checks, for one text, the two shortcuts that spare the
// search of a text its decodings: the skeleton scan's note that the text
// may hold a run (scanSkeleton's runs) is set whenever eachEncoded decodes
// one, and eachEncoded's skipping of runs with too few hex digits changes
// nothing it gives (eachEncodedEveryHex).
func encodedNoted(t *testing.T, text string) {
	t.Helper()
	set := &scrubSet{}
	set.addString("zzzzqqqqvvvv")
	s := newScrubber(set)
	budget := matchBudget*len(text) + matchSlack
	ok, runs, whole := s.scanSkeleton(text, &budget, func(int, int) bool { return true })
	if !ok || !whole {
		t.Fatalf("scanSkeleton(%q) did not read the whole text", text)
	}
	type run struct {
		a, b    int
		decoded string
	}
	each := func(each func(string, *int, func(int, int, []byte) bool) bool) (out []run, ok bool) {
		budget := decodeBudget(text)
		ok = each(text, &budget, func(a, b int, decoded []byte) bool {
			out = append(out, run{a, b, string(decoded)})
			return true
		})
		return out, ok
	}
	got, gotOK := each(eachEncoded)
	want, wantOK := each(eachEncodedEveryHex)
	if len(got) > 0 && !runs {
		t.Fatalf("eachEncoded decodes %q at %v, but the skeleton scan notes no run", text, got)
	}
	if gotOK != wantOK || !slices.Equal(got, want) {
		t.Fatalf("eachEncoded(%q) = %v, %v; looking for hex everywhere gives %v, %v", text, got, gotOK, want, wantOK)
	}
}

// TestEncodedRunsNoted: every kind of run eachEncoded decodes is noted by
// the skeleton scan, and no hex is skipped, whatever separates its pairs;
// words, dates and identifiers with few hex digits need no decoding.
func TestEncodedRunsNoted(t *testing.T) {
	for _, text := range []string{
		"0xdeadbeef", "de:ad:be:ef", "de ad be ef", "de-ad-be-ef", "dead beef", "deadbe:ef:01",
		"key_ab:cd:ef:01", "123-45-6789", "550e8400-e29b-41d4-a716-446655440000",
		"QmFzaWMgdXNlcjpwYXNz", "dXNlcjpwYXNzd29yZA==", "abcdefghijklmnop\nQRSTUVWXYZ012345",
		"abcdefghijklmnop\r\n  qrstuvwxyzabcdef", "=?utf-8?B?c2VjcmV0?=", "=?utf-8?Q?secret?=",
		"Seen on visit 12; follow-up in two weeks.", "item number 12 of the benchmark",
		"sk-bench-12-xxxxxxxxxxxxxxxxxxxxxxxx", "made 12 beds", "café ab:cd:ef:01",
	} {
		encodedNoted(t, text)
	}
}

// FuzzEncodedRunsNoted is TestEncodedRunsNoted on any text.
func FuzzEncodedRunsNoted(f *testing.F) {
	for _, s := range []string{"de:ad:be:ef", "ab cd ef 01", "0123456789abcdef", "QmFzaWMgdXNlcjpwYXNz", "a-b-c", "=?x?B?YWJj?="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		encodedNoted(t, text)
	})
}

// eachEncodedEveryHex is eachEncoded as it was before it skipped runs
// with too few hex digits to hold four bytes: it looks for hex from every
// digit that starts one in every run.
func eachEncodedEveryHex(text string, budget *int, f func(a, b int, decoded []byte) bool) bool {
	var gone [][2]int
	var buf []byte
	hexDone := 0 // where the hex decoded last ends
	for i := 0; i < len(text); {
		if b64[text[i]] < 0 {
			if text[i] == '=' && i+1 < len(text) && text[i+1] == '?' {
				if end, decoded := encodedWords(text, i); end > i {
					*budget -= end - i
					if !f(i, end, decoded) {
						return true
					}
					i = end
					continue
				}
			}
			i++
			continue
		}
		// Most runs are words: one look at each byte says whether the
		// run is long enough, or a byte of hex before a separator.
		a := i
		for i < len(text) && b64[text[i]] >= 0 {
			i++
		}
		short := i-a < minBase64
		if short && !mayBeHex(text, a) {
			continue
		}
		body, end, looks := base64Run(text, a)
		i = max(i, end)
		// Hex wherever a run of hex digits starts in the run (after a
		// path's slash, a prefix's underscore, an 0x), from its first or
		// second digit, unless hex decoded already reaches it.
		for p := max(a, hexDone); p < i; p++ {
			if hexDigit(text[p]) < 0 || p > a && hexDigit(text[p-1]) >= 0 {
				continue
			}
			for _, at := range [2]int{p, p + 1} {
				if !mayBeHex(text, at) {
					continue
				}
				var n int
				if buf, n = decodeHex(buf[:0], text[at:]); len(buf) >= 4 {
					*budget -= n
					if !f(at, at+n, buf) {
						return true
					}
					hexDone = max(hexDone, at+n)
				}
			}
		}
		if short || len(body) < minBase64 || !looks {
			continue
		}
		*budget -= 5 * len(body)
		if *budget < 0 {
			return false
		}
		for len(gone) > 0 && gone[0][1] < end {
			gone = gone[1:]
		}
		if len(gone) > 0 && gone[0][0] <= a {
			continue // inside gone[0]
		}
		for phase := range 4 {
			buf = decodeBase64(buf[:0], body[phase:])
			if len(buf) >= 4 && !f(a, end, buf) {
				return true
			}
		}
	}
	return true
}
