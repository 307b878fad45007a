package leakcheck_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// bigView is an agent view of about size bytes, as large tool outputs
// are: prose, records as JSON text, base64 attachments, hex digests,
// JWTs, escapes, numbers.
func bigView(tb testing.TB, size int) string {
	tb.Helper()
	var content []any
	n := 0
	for i := 0; n < size; i++ {
		digest := sha256.Sum256([]byte(fmt.Sprint(i)))
		record := mustJSON(tb, map[string]any{
			"id":     fmt.Sprintf("ORD-%06d", i),
			"user":   "Ada Lovelace <ada@example.org>",
			"note":   "Thé quick brown fox; 50% off & free shipping → soon\n\tsee https://example.org/a?b=c%20d",
			"total":  float64(i) * 1.25,
			"digest": hex.EncodeToString(digest[:]),
			"token":  jwt(tb, map[string]any{"sub": fmt.Sprintf("user-%d", i), "scope": "read write"}),
		})
		attachment := base64.StdEncoding.EncodeToString([]byte(strings.Repeat(record, 2)))
		for _, text := range []string{record, "Attachment:\n" + insertEvery(attachment, 76, "\r\n"), "It is &lt;b&gt;done&lt;/b&gt; \\u00e9 " + record} {
			content = append(content, map[string]any{"type": "text", "text": text})
			n += len(text)
		}
	}
	b, err := json.Marshal(map[string]any{"content": content})
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// BenchmarkFind searches outputs of a few hundred KB, as the fuzz
// targets do, for values they do not hold: the whole search, every
// decoding. Beside a view of records, the worst cases of the decodings of
// binary data: an image in base64, whose bytes are noise, and noise
// itself, which every decoding changes a little.
func BenchmarkFind(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 300_000)
	for i := range noise {
		noise[i] = byte(rng.IntN(256))
	}
	views := []struct{ name, text string }{
		{"records", bigView(b, 300_000)},
		{"base64 image", "data:image/png;base64," + base64.StdEncoding.EncodeToString(noise[:225_000])},
		{"noise", string(noise)},
	}
	for _, view := range views {
		for _, value := range []string{"Müller#4471", "4471", "sk_live_9f8e7d6c"} {
			b.Run(view.name+"/"+value, func(b *testing.B) {
				b.SetBytes(int64(len(view.text)))
				for range b.N {
					if where, found := leakcheck.Find(view.text, value); found {
						b.Fatalf("found %q in %s", value, where)
					}
				}
			})
		}
	}
}
