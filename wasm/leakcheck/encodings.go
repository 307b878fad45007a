package leakcheck

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The decodings of this file read bytes a backend wrote in an encoding
// of binary data (base64, base64url, hex) or of raw e-mail
// (quoted-printable).

// unescapeQuotedPrintable decodes quoted-printable (RFC 2045) as raw
// e-mail holds it: =XX as the byte XX, and an = ending a line (a soft
// line break, perhaps with the spaces a mail relay left before the line
// break) as nothing. Unlike mime/quotedprintable it takes what it can of
// a malformed text, and lower-case hex too.
func unescapeQuotedPrintable(s string) string {
	if !strings.Contains(s, "=") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] == '=' {
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
				i += 3
				continue
			}
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j < len(s) && s[j] == '\r' {
				j++
			}
			if j < len(s) && s[j] == '\n' {
				i = j + 1
				continue
			}
		}
		b = append(b, s[i])
		i++
	}
	return string(b)
}

// decodeBase64 decodes the runs of the base64 and base64url alphabets in
// s long enough to hold the value (see base64Runs), each from each of its
// first four characters: a run may begin with characters that are not of
// its encoding ("x-" before a token, "KEY-----" before a PEM body), and
// one of the four starts where the encoding's groups of four do. Where in
// the encoded bytes the value stands (its byte alignment, as in
// base64("user:" + value)) does not matter: a run is decoded whole.
//
// It returns what reads as text in the decoded bytes (see textIn).
func (f *finder) decodeBase64(s string) []string {
	runs := base64Runs(s, max(2, (4*f.minLen+2)/3))
	var texts decodedTexts
	var buf []byte
	for _, run := range runs {
		for start := 0; start < 4 && len(run)-start >= 2; start++ {
			c := run[start:]
			if len(c)%4 == 1 {
				c = c[:len(c)-1] // a character short of a byte
			}
			buf = sized(buf, base64.RawStdEncoding.DecodedLen(len(c)))
			// The decoder is not strict: the bits past the last byte
			// need not be zero, as a run cut short leaves them.
			n, _ := base64.RawStdEncoding.Decode(buf, []byte(c))
			f.textIn(buf[:n], &texts)
		}
	}
	return f.decoded(texts)
}

// base64Runs returns the runs of the base64 and base64url alphabets in s
// at least min characters long, written in the standard alphabet: their
// padding, which ends a run, taken out, and the line breaks inside them,
// where MIME (76 columns) and PEM (64) wrap them, with the indentation
// after a break. A '.' ends a run, so each segment of a JWT is a run of
// its own.
func base64Runs(s string, min int) []string {
	var runs []string
	var b []byte
	flush := func() {
		if len(b) >= min {
			runs = append(runs, string(b))
		}
		b = b[:0]
	}
	for i := 0; i < len(s); {
		c := s[i]
		if d := base64Std(c); d != 0 {
			b = append(b, d)
			i++
			continue
		}
		if c == '\r' || c == '\n' {
			j := i + 1
			if c == '\r' && j < len(s) && s[j] == '\n' {
				j++
			}
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if len(b) > 0 && j < len(s) && base64Std(s[j]) != 0 {
				i = j // the run goes on on the next line
				continue
			}
			flush()
			i = j
			continue
		}
		flush()
		i++
	}
	flush()
	return runs
}

// base64Std is c in the standard base64 alphabet, from either alphabet;
// 0 when c is of neither.
func base64Std(c byte) byte {
	switch {
	case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/':
		return c
	case c == '-':
		return '+'
	case c == '_':
		return '/'
	}
	return 0
}

// decodeHex decodes the runs of hex digits in s long enough to hold the
// value, lower or upper case, with or without one separator (':', '-',
// a space) between digits, as KMS and Kubernetes APIs and tools that
// print key fingerprints write bytes ("9f:8e:7d"). Each run is decoded
// from its first digit and from its second, for a run that begins with a
// digit not of the encoding.
//
// It returns what reads as text in the decoded bytes (see textIn).
func (f *finder) decodeHex(s string) []string {
	var texts decodedTexts
	var buf []byte
	for _, run := range hexRuns(s, 2*f.minLen) {
		for start := 0; start < 2 && len(run)-start >= 2; start++ {
			c := run[start:]
			c = c[:len(c)&^1]
			buf = sized(buf, hex.DecodedLen(len(c)))
			n, _ := hex.Decode(buf, []byte(c))
			f.textIn(buf[:n], &texts)
		}
	}
	return f.decoded(texts)
}

// sized is buf n bytes long, reusing its array when it is big enough.
func sized(buf []byte, n int) []byte {
	if cap(buf) < n {
		return make([]byte, n)
	}
	return buf[:n]
}

// hexRuns returns the runs of hex digits in s at least min digits long,
// without the separators between their digits.
func hexRuns(s string, min int) []string {
	var runs []string
	var b []byte
	flush := func() {
		if len(b) >= min {
			runs = append(runs, string(b))
		}
		b = b[:0]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isHex(c):
			b = append(b, c)
		case len(b) > 0 && (c == ':' || c == '-' || c == ' ') && i+1 < len(s) && isHex(s[i+1]):
			// A separator between digits.
		default:
			flush()
		}
	}
	flush()
	return runs
}

// decodedTexts is what reads as text in decoded bytes: texts to search
// and decode further, and scraps, only to search.
type decodedTexts struct{ texts, scraps []string }

// minText is the length from which a stretch of decoded bytes that reads
// as text is searched and decoded further wherever it stands: bytes that
// were never encoded (a base64 image, a hash's hex) read as text only
// briefly.
const minText = 16

// textIn adds to d the stretches of the decoded bytes b that read as text
// and are long enough to hold the value: valid UTF-8 without control
// characters, but for tabs, line breaks and those the value holds. The
// value, encoded, is decoded whole into one: the bytes from where its
// encoding starts read as text up to the value and past it.
//
// A stretch at least minText long, or one that begins or ends b (text
// encoded after or before bytes not of its encoding), is a text; any
// other is a scrap, searched as it is but not decoded further. Bytes
// decoded from where their encoding does not start, or that were never
// encoded (a base64 image), are many, and what of them reads as text is
// short and amid them: scraps.
func (f *finder) textIn(b []byte, d *decodedTexts) {
	if !utf8.ValidString(f.value) {
		// A value of arbitrary bytes is searched in all the bytes.
		if len(b) >= f.minLen {
			d.texts = append(d.texts, string(b))
		}
		return
	}
	start := 0
	flush := func(end int) {
		switch n := end - start; {
		case n < max(1, f.minLen):
		case n >= minText || start == 0 || end == len(b):
			d.texts = append(d.texts, string(b[start:end]))
		default:
			d.scraps = append(d.scraps, string(b[start:end]))
		}
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 || unicode.IsControl(r) && !strings.ContainsRune("\t\n\r", r) && !strings.ContainsRune(f.value, r) {
			flush(i)
			start = i + n
		}
		i += n
	}
	flush(len(b))
}

// decoded is the layers of d: its texts as one text, each apart from the
// next (a NUL between them: no separator, no letter nor digit), and each
// that is a JSON object or array as a text of its own too, so it is read
// as JSON (the payload of a JWT); and its scraps as one text, recorded
// as scraps, not to decode further.
func (f *finder) decoded(d decodedTexts) []string {
	var out []string
	if len(d.texts) > 0 {
		out = append(out, strings.Join(d.texts, "\x00"))
	}
	if len(d.texts) > 1 {
		for _, t := range d.texts {
			if t := strings.TrimSpace(t); t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
				out = append(out, t)
			}
		}
	}
	if len(d.scraps) > 0 {
		scraps := strings.Join(d.scraps, "\x00")
		if f.scraps == nil {
			f.scraps = map[string]bool{}
		}
		f.scraps[scraps] = true
		out = append(out, scraps)
	}
	return out
}
