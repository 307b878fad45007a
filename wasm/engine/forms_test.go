package engine

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// The forms below are what backends do to a value besides escaping it:
// change its case, Unicode form or grouping, put invisible characters in
// it, or encode its bytes as base64 or hex, alone or inside a longer
// plaintext. FuzzEchoes and FuzzSession write values through them
// (backendEncode). A form draws its choices with pick.
type form struct {
	name   string
	encode func(s string, pick func(n int) int) string
}

// foldForms write a value with the same letters and digits: the engine
// finds them by the value's skeleton, so they apply only to a value it
// finds so (bySkeleton), and before any encoding (an escape in upper case
// or in fullwidth forms is no longer one).
var foldForms = []form{
	{"strings.ToUpper", func(s string, _ func(int) int) string { return strings.ToUpper(s) }},
	{"strings.ToLower", func(s string, _ func(int) int) string { return strings.ToLower(s) }},
	{"NFD", func(s string, _ func(int) int) string { return norm.NFD.String(s) }},
	{"NFKD", func(s string, _ func(int) int) string { return norm.NFKD.String(s) }},
	{"fullwidth", func(s string, _ func(int) int) string { return toFullwidth(s) }},
	{"a soft hyphen inside", insideForm("\u00ad")},
	{"a zero-width space inside", insideForm("\u200b")},
	{"groups split by spaces", groupedForm(" ")},
	{"groups split by dashes", groupedForm("-")},
}

// zwspReference puts a zero-width space inside a value as an HTML
// reference, as a mail template does to stop a link. It is an escape
// itself: it comes after the other fold forms.
var zwspReference = form{"&#8203; inside", insideForm("&#8203;")}

// caseForms are the fold forms that apply to a value found as written
// too, when it is ASCII: the engine compares ASCII letters in any case.
var caseForms = foldForms[:2]

// cuts returns the offsets inside s at which a character may be put or s
// cut without parting a character from the marks on it.
func cuts(s string) []int {
	var at []int
	for i, r := range s {
		if i > 0 && !unicode.Is(unicode.M, r) {
			at = append(at, i)
		}
	}
	return at
}

// insideForm puts x between two characters of s, somewhere inside it.
func insideForm(x string) func(string, func(int) int) string {
	return func(s string, pick func(int) int) string {
		at := cuts(s)
		if len(at) == 0 {
			return s
		}
		i := at[pick(len(at))]
		return s[:i] + x + s[i:]
	}
}

// groupedForm writes s in groups split by sep: of four characters, as
// card numbers are, of three, or three, two and four, as an SSN is
// (123-45-6789).
func groupedForm(sep string) func(string, func(int) int) string {
	return func(s string, pick func(int) int) string {
		sizes := [][]int{{4}, {3}, {3, 2, 4}}[pick(3)]
		var b strings.Builder
		n, k := 0, 0
		for i, r := range s {
			if n == sizes[min(k, len(sizes)-1)] && i > 0 && !unicode.Is(unicode.M, r) {
				b.WriteString(sep)
				n, k = 0, k+1
			}
			b.WriteRune(r)
			n++
		}
		return b.String()
	}
}

// base64s are the four base64 encodings of encoding/base64.
var base64s = []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding}

// plaintext puts s inside a longer plaintext, at an offset pick draws,
// as a credential, a token's claims or a stored record hold it. Nothing
// around it is a letter or digit that runs on into it.
func plaintext(s string, pick func(int) int) string {
	prefixes := []string{"", "user:", "ada@example.org:", "key: ", "{\"k\":\"", "Lorem ipsum dolor sit amet, consectetur adipiscing elit: "}
	suffixes := []string{"", "\n", ";exp=later", "\"}", " -- sed do eiusmod tempor incididunt ut labore et dolore magna aliqua."}
	return prefixes[pick(len(prefixes))] + strings.Repeat(" ", pick(4)) + s + suffixes[pick(len(suffixes))]
}

// longPlaintext is plaintext made long enough that its base64 is wrapped.
func longPlaintext(s string, pick func(int) int) string {
	return "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " + plaintext(s, pick) + ". Ut enim ad minim veniam."
}

// binaryForms encode a value's bytes, as backends carry a credential or
// a secret's plaintext: the engine decodes every run of text that may be
// one (binary.go).
var binaryForms = []form{
	{"base64", func(s string, _ func(int) int) string { return base64.StdEncoding.EncodeToString([]byte(s)) }},
	{"base64url", func(s string, _ func(int) int) string { return base64.URLEncoding.EncodeToString([]byte(s)) }},
	{"base64 without padding", func(s string, _ func(int) int) string { return base64.RawStdEncoding.EncodeToString([]byte(s)) }},
	{"base64url without padding", func(s string, _ func(int) int) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }},
	{"base64 of a longer plaintext", func(s string, pick func(int) int) string {
		return base64s[pick(len(base64s))].EncodeToString([]byte(plaintext(s, pick)))
	}},
	{"an Authorization: Basic credential", func(s string, pick func(int) int) string {
		user := []string{"user", "ada", "api"}[pick(3)]
		return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+s))
	}},
	{"base64 wrapped at 64 or 76 columns", func(s string, pick func(int) int) string {
		enc := base64s[pick(2)].EncodeToString([]byte(longPlaintext(s, pick)))
		return wrap(enc, []int{64, 76}[pick(2)], []string{"\n", "\r\n"}[pick(2)])
	}},
	{"PEM", func(s string, pick func(int) int) string {
		typ := []string{"ENCRYPTED PRIVATE KEY", "MESSAGE", "CERTIFICATE"}[pick(3)]
		return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: []byte(longPlaintext(s, pick))}))
	}},
	{"a JWT whose payload holds it", func(s string, pick func(int) int) string {
		claims := map[string]any{"sub": "ada", "iat": 1700000000}
		claims[[]string{"api_key", "pw", "data"}[pick(3)]] = s
		return jwt(claims)
	}},
	{"hex", func(s string, pick func(int) int) string {
		h := hex.EncodeToString([]byte(s))
		if pick(2) == 0 {
			h = strings.ToUpper(h)
		}
		switch pick(4) {
		case 0:
			return sepHex(h, ":")
		case 1:
			return sepHex(h, "-")
		case 2:
			return "0x" + h
		}
		return h
	}},
}

// quotedPrintable is mime/quotedprintable's Writer, as raw e-mail holds
// a text. The engine reads it with the escapes (decode.go).
var qpForm = form{"quoted-printable", func(s string, _ func(int) int) string { return qp(s) }}

// hexForm is the index of the hex form in binaryForms; the others are
// base64.
const hexForm = 9

// wordLike reports whether the base64 forms' output s has a run of eight
// or more base64 characters with no capital after its first character,
// or with no small letter or digit, but for the words around the
// encoding.
func wordLike(s string) bool {
	for _, run := range strings.FieldsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf || b64[r] < 0 }) {
		if run == "Authorization" || strings.HasPrefix(run, "-----") || strings.HasSuffix(run, "-----") {
			continue
		}
		if len(run) >= 8 && (!strings.ContainsAny(run[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") || !strings.ContainsAny(run, "abcdefghijklmnopqrstuvwxyz0123456789")) {
			return true
		}
	}
	return false
}

// splitsChar reports whether the quoted-printable q has a soft line
// break between two bytes of one character: an escape of a byte that
// starts or continues a UTF-8 sequence before it, and of a continuation
// byte after it.
func splitsChar(q string) bool {
	for i := strings.Index(q, "=\r\n"); i >= 0; {
		if i >= 3 && q[i-3] == '=' && i+6 <= len(q) && q[i+3] == '=' {
			before, err1 := strconv.ParseUint(q[i-2:i], 16, 8)
			after, err2 := strconv.ParseUint(q[i+4:i+6], 16, 8)
			if err1 == nil && err2 == nil && before >= 0x80 && after&0xc0 == 0x80 {
				return true
			}
		}
		j := strings.Index(q[i+1:], "=\r\n")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// sepHex writes hex digits in pairs separated by sep.
func sepHex(h, sep string) string {
	var pairs []string
	for i := 0; i+2 <= len(h); i += 2 {
		pairs = append(pairs, h[i:i+2])
	}
	return strings.Join(pairs, sep)
}

// bySkeleton reports whether the engine finds v by its skeleton (fold.go):
// a string whose skeleton has minSkeleton bytes or more, or a number
// written as a long run of digits. Any other value is found as written
// only (ASCII letters in any case), or a number by its value.
func bySkeleton(v string) bool {
	if isNumber(v) {
		plain := trimMinus(v)
		return len(plain) >= minSkeleton && allDigits(plain)
	}
	return len(skeleton(v)) >= minSkeleton
}

// avoiding reports whether the fuzz targets keep off a family of engine
// leaks, so that fuzzing finds others while one is being fixed:
// VEIL_FUZZ_AVOID lists the families' names, separated by commas. Unset,
// as in an ordinary test run, the generators write them all. The
// families, each found by fuzzing and each read by the engine since (the
// corpus keeps a case of each):
//
//   - short-base64: a value of four or five bytes written in base64
//     alone, six or seven characters and its padding (binary.go's
//     minBase64).
//   - qp-split-char: quoted-printable whose soft line break falls between
//     the bytes of one character, as mime/quotedprintable's Writer breaks
//     lines at 76 columns (unescape.go's qpByte).
//   - base64-word: a run of base64 with capitals only ("ODJYMDBB", the
//     base64 of "82X00A"), once taken for a word (binary.go's base64Run).
//   - hangul-nfd: a Hangul syllable in NFD or NFKD, as conjoining jamo
//     (a Korean name in a macOS file path), which Unicode decomposes by
//     rule rather than by table (fold.go).
//   - reference-in-value: a value that holds what reads as an HTML
//     reference without its semicolon ("&#8e7€b7Z8e5") with another
//     reference put inside it ("&#8203;"), read since with references
//     that end in a semicolon alone too (decode.go's strictCharRefs).
//
// Their cases in testdata/fuzz/FuzzSession: 68ec3c05a4648b3e
// (qp-split-char), 3bf178cc6b9261a9 (base64-word), 0c83ce343934abd3
// (hangul-nfd), e8a96877c805c6c5 (reference-in-value); short-base64 is
// in a seed of FuzzSession and in FuzzEchoes' corpus. To keep off some:
//
//	VEIL_FUZZ_AVOID=short-base64,hangul-nfd go test ./wasm/engine/ -run '^$' -fuzz '^FuzzSession$'
func avoiding(family string) bool {
	return slices.Contains(strings.Split(os.Getenv("VEIL_FUZZ_AVOID"), ","), family)
}

// maxBinary is how many binary encodings within one another the engine
// reads (binary.go): base64 of JSON text holding hex, say.
const maxBinary = 2

// backendEncode writes v as a backend might: first, for a value the
// engine finds by its skeleton, up to two fold forms (and sometimes a
// zero-width space as an HTML reference), or for an ASCII value another
// case; then up to three encodings one after the other, escapes of
// encoders, quoted-printable or binary forms, at most maxBinary of them
// binary.
func (g *echoGen) backendEncode(v string) string {
	apply := func(f form) {
		if out := f.encode(v, g.intn); !(decomposesHangul(f, v) && avoiding("hangul-nfd")) {
			g.mark(f.name)
			v = out
		}
	}
	switch {
	case bySkeleton(v):
		for n := g.intn(3); n > 0; n-- {
			apply(foldForms[g.intn(len(foldForms))])
		}
		if g.intn(6) == 0 && !(strings.Contains(v, "&") && avoiding("reference-in-value")) {
			apply(zwspReference)
		}
	case isASCII(v) && g.intn(3) == 0:
		apply(caseForms[g.intn(len(caseForms))])
	}
	binary := 0
	for n := g.intn(4); n > 0; n-- {
		switch k := g.intn(4); {
		case k == 0 && binary < maxBinary, k == 1 && binary == 0:
			f := g.intn(len(binaryForms))
			if f <= 4 && len(v) < 6 && avoiding("short-base64") {
				f = 5 // a Basic credential, five bytes or more around it
			}
			if out := binaryForms[f].encode(v, g.intn); !(f != hexForm && wordLike(out) && avoiding("base64-word")) {
				g.mark(binaryForms[f].name)
				v = out
			}
			binary++
		case k == 2:
			if q := qpForm.encode(v, g.intn); !(splitsChar(q) && avoiding("qp-split-char")) {
				g.mark(qpForm.name)
				v = q
			}
		default:
			v = encoders[g.intn(len(encoders))].encode(v)
		}
	}
	return v
}

// foldOnly writes v in fold forms only, as a value split across strings
// is written: the engine joins strings by their skeletons, and decodes
// each on its own.
func (g *echoGen) foldOnly(v string) string {
	if !bySkeleton(v) {
		return v
	}
	for n := g.intn(2); n > 0; n-- {
		f := foldForms[g.intn(len(foldForms))]
		if out := f.encode(v, g.intn); !(decomposesHangul(f, v) && avoiding("hangul-nfd")) {
			g.mark(f.name)
			v = out
		}
	}
	return v
}

// decomposesHangul reports whether form f writes a Hangul syllable of v
// as conjoining jamo.
func decomposesHangul(f form, v string) bool {
	return (f.name == "NFD" || f.name == "NFKD") && strings.ContainsFunc(v, func(r rune) bool { return r >= 0xac00 && r <= 0xd7a3 })
}

// split cuts v into two or three parts between characters, or returns
// nil when it is too short.
func (g *echoGen) split(v string) []string {
	at := cuts(v)
	if len(at) == 0 {
		return nil
	}
	i := at[g.intn(len(at))]
	parts := []string{v[:i], v[i:]}
	if g.intn(2) == 0 {
		if rest := cuts(v[i:]); len(rest) > 0 {
			j := rest[g.intn(len(rest))]
			parts = []string{v[:i], v[i : i+j], v[i+j:]}
		}
	}
	return parts
}

// splitEcho writes v in fold forms split across two or three strings,
// or returns nil when the engine would not find it so (joins.go): it
// finds split values by their skeletons, where they start in the last
// joinReach bytes of a string.
func (g *echoGen) splitEcho(v string) []string {
	if !bySkeleton(v) {
		return nil
	}
	parts := g.split(g.foldOnly(v))
	if parts == nil || len(parts[0]) > joinReach {
		return nil
	}
	return parts
}

// TestFormsKeepTheValue: the oracle finds a value in every form the fuzz
// targets write it in, for every choice a form draws; a form that lost
// the value would make the targets test nothing.
func TestFormsKeepTheValue(t *testing.T) {
	require.Equal(t, "hex", binaryForms[hexForm].name)
	values := []string{"Müller#4471", "sk_live_Zq81vT0pLm42", "4111111111111111", "123-45-6789", "Ωμέγα🐎x", "p&<w>d/'\\9876"}
	for _, v := range values {
		require.True(t, bySkeleton(v), v)
		var forms []form
		forms = append(forms, foldForms...)
		forms = append(forms, zwspReference, qpForm)
		forms = append(forms, binaryForms...)
		for _, f := range forms {
			for choice := range 16 {
				k := choice
				pick := func(n int) int { r := k % n; k /= n; return r }
				out := f.encode(v, pick)
				_, found := leakcheck.Find(out, v)
				assert.True(t, found, "%s of %q: %q", f.name, v, out)
			}
		}
	}
	for _, v := range []string{"tok>91", "4471", "1234.5"} {
		require.False(t, bySkeleton(v), v)
	}
}
