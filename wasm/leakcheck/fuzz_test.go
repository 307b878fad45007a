package leakcheck_test

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// FuzzFind: Find never misses a value written as it is in a text that is
// not JSON, nor the value encoded whole in base64, base64url or hex, nor
// upper-cased; and whatever the text, it returns.
func FuzzFind(f *testing.F) {
	f.Add("the pw is", "Müller#4471")
	f.Add(`{"a":"b"}`, "4471")
	f.Add("x\u200b", "sk_live_9f8e7d6c")
	f.Add("=4=\n%41\\x41&#65;", "0420")
	f.Fuzz(func(t *testing.T, text, value string) {
		start := time.Now()
		leakcheck.Find(text, value)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("Find(%q, %q) took %v", text, value, d)
		}
		// A value that is itself a JSON text is read, decoded, as the
		// values it holds.
		if v := strings.TrimSpace(value); v == "" || strings.ContainsAny(v[:1], `{["`) || !utf8.ValidString(value) {
			return
		}
		forms := map[string]string{
			"base64":    base64.StdEncoding.EncodeToString([]byte(value)),
			"base64url": base64.RawURLEncoding.EncodeToString([]byte(value)),
			"hex":       hex.EncodeToString([]byte(value)),
		}
		if !leakcheck.IsNumber(value) {
			forms["as it is"] = value
			forms["upper-cased"] = strings.ToUpper(value)
		}
		for name, form := range forms {
			in := "x " + form + " | " + text
			if _, found := leakcheck.Find(in, value); !found {
				t.Fatalf("%s: Find(%q, %q) found nothing, want it found", name, in, value)
			}
		}
	})
}
