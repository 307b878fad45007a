package engine

import "strings"

// This file reads the binary-to-text encodings that backends write a
// value in (and the encoded-words of a mail header, which join base64 or
// quoted-printable pieces): base64 and base64url (an Authorization: Basic header, a JWT's
// segments, a Kubernetes secret, a KMS ciphertext's plaintext), padded or
// not and wrapped at MIME's or PEM's width, and hex in either case, with
// or without a separator between bytes. Rule (d) decodes every run of
// text that may be one and searches what it decodes to; a run that holds
// a withheld value goes whole, since no part of an encoding can be
// removed without the rest.
//
// The value may stand anywhere in the encoded bytes (after "user:" in a
// Basic credential, inside a JWT's JSON), so a base64 run is decoded from
// each of its first four characters: one of them is where its groups
// start.

// maxBinaryDepth is how often an encoded run is looked into within one
// another (base64 of JSON text holding base64).
const maxBinaryDepth = 2

// minEncoded is the fewest characters of a hex run worth decoding (four
// bytes), and minBase64 of a base64 run (four bytes, unpadded): as short
// as the shortest value rule (d) removes.
const (
	minEncoded = 8
	minBase64  = 6
)

// b64 maps the characters of base64 and base64url to their six bits, and
// everything else to -1.
var b64 = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	const std = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range len(std) {
		t[std[i]] = int8(i)
	}
	t['-'], t['_'] = 62, 63
	return t
}()

// eachEncoded calls f with each run of text that may be base64 or hex
// and a decoding of it; f returns false to stop. It reports false when
// the decodings would cost more than budget bytes.
func eachEncoded(text string, budget *int, f func(a, b int, decoded []byte) bool) bool {
	return eachEncodedOutside(text, budget, nil, f)
}

// eachEncodedOutside is eachEncoded for a text of which the spans gone,
// sorted and apart (mergeSpans), are removed already: a base64 run inside
// one of them is charged to budget as eachEncoded charges it, but neither
// decoded nor given to f.
func eachEncodedOutside(text string, budget *int, gone [][2]int, f func(a, b int, decoded []byte) bool) bool {
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
		a, hexes := i, 0
		for i < len(text) && b64[text[i]] >= 0 {
			hexes += int(hexOrSeparator[text[i]] >> 1)
			i++
		}
		short := i-a < minBase64
		if short && !mayBeHex(text, a) {
			continue
		}
		runEnd := i
		body, end, looks := base64Run(text, a)
		i = max(i, end)
		// Four bytes of hex take eight digits: a run with fewer holds
		// none, unless it goes on past a ':' or a space, or onto the
		// next line.
		hexInRun := hexes >= 8 || i > runEnd+2 || runEnd < len(text) && (text[runEnd] == ':' || text[runEnd] == ' ')
		// Hex wherever a run of hex digits starts in the run (after a
		// path's slash, a prefix's underscore, an 0x), from its first or
		// second digit, unless hex decoded already reaches it.
		for p := max(a, hexDone); hexInRun && p < i; p++ {
			if hexDigit(text[p]) < 0 || p > a && hexDigit(text[p-1]) >= 0 {
				continue
			}
			for _, at := range [2]int{p, p + 1} {
				if !mayBeHex(text, at) {
					continue
				}
				var n int
				if buf, n = decodeHex(buf[:0], text[at:]); len(buf) >= 4 {
					// Each byte of hex after a separator may start a
					// decoding that reads to the run's end ("12-34-56-…"):
					// past the budget the text fails closed, as base64's
					// does, rather than being decoded again and again.
					if *budget -= n; *budget < 0 {
						return false
					}
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

// base64Run reads the run of base64 at text[i]: its characters (a line
// break inside a long run, as MIME and PEM wrap it, and the indentation
// after it, are skipped), where it
// ends (its padding taken), and whether it looks like an encoding rather
// than a word: a capital after its first character, or letters and
// digits both.
func base64Run(text string, i int) (body string, end int, looks bool) {
	var b []byte
	start, line := i, 0
	upper, digit, letter := false, false, false
	for i < len(text) {
		c := text[i]
		if b64[c] >= 0 {
			switch {
			case c >= 'A' && c <= 'Z':
				upper = upper || i > start
				letter = true
			case c >= 'a' && c <= 'z':
				letter = true
			case c >= '0' && c <= '9':
				digit = true
			}
			i++
			line++
			continue
		}
		// A line break continues a run wrapped at 64 or 76 columns, or
		// narrower, indented (a YAML block, an indented PEM) or quoted
		// ("> ") on the next line.
		if k := lineBreak(text, i); k > 0 && line >= 16 {
			for i+k < len(text) && (text[i+k] == ' ' || text[i+k] == '\t' || text[i+k] == '>') {
				k++
			}
			if i+k >= len(text) || b64[text[i+k]] < 0 {
				break
			}
			if b == nil {
				b = []byte(text[start:i])
			} else {
				b = append(b, text[start:i]...)
			}
			i += k
			start, line = i, 0
			continue
		}
		break
	}
	end = i
	for n := 0; n < 2 && end < len(text) && text[end] == '='; n++ {
		end++
	}
	looks = upper || digit && letter
	if b == nil {
		return text[start:i], end, looks
	}
	return string(append(b, text[start:i]...)), end, looks
}

func lineBreak(s string, i int) int {
	switch {
	case s[i] == '\n':
		return 1
	case s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n':
		return 2
	}
	return 0
}

// decodeBase64 appends the bytes that s, base64 or base64url without its
// padding, encodes; a last partial group gives what bits it has.
func decodeBase64(b []byte, s string) []byte {
	var acc uint32
	bits := 0
	for i := 0; i < len(s); i++ {
		acc = acc<<6 | uint32(b64[s[i]])
		bits += 6
		if bits >= 8 {
			bits -= 8
			b = append(b, byte(acc>>bits))
		}
	}
	return b
}

// mayBeHex reports whether four bytes of hex may start at s[i]: four
// pairs of hex digits, with separators between them as decodeHex reads
// them.
func mayBeHex(s string, i int) bool {
	if i >= len(s) || hexDigit(s[i]) < 0 {
		return false
	}
	var buf [4]byte
	b, _ := decodeHex(buf[:0], s[i:min(len(s), i+11)])
	return len(b) >= 4
}

// decodeHex appends the bytes that the hex at the start of s encodes:
// pairs of hex digits, with a separator (':', '-' or a space, the same
// one) between any two pairs or none, and returns how many bytes of s it
// read.
func decodeHex(b []byte, s string) ([]byte, int) {
	sep := byte(0)
	i, end := 0, 0
	for i+1 < len(s) {
		hi, lo := hexDigit(s[i]), hexDigit(s[i+1])
		if hi < 0 || lo < 0 {
			break
		}
		b = append(b, byte(hi<<4|lo))
		i += 2
		end = i
		// One separator, the same each time, may stand between pairs:
		// between every two, or every two bytes (bytes.hex(' ', 2)),
		// or as a UUID groups them.
		if i+2 < len(s) && (s[i] == ':' || s[i] == '-' || s[i] == ' ') && (sep == 0 || s[i] == sep) && hexDigit(s[i+1]) >= 0 && hexDigit(s[i+2]) >= 0 {
			sep = s[i]
			i++
		}
	}
	return b, end
}

// encodedWords reads the run of MIME encoded-words (RFC 2047) at
// text[i], =?charset?B?…?= or =?charset?Q?…?=, with only white space
// between them, as a mail reader joins them: where the run ends and the
// bytes it encodes, whatever the charset (UTF-8, or Latin-1 read as such
// later). end is i when there is none.
func encodedWords(text string, i int) (end int, decoded []byte) {
	end = i
	for j := i; ; {
		if !strings.HasPrefix(text[j:], "=?") {
			break
		}
		rest := text[j+2:]
		q1 := strings.IndexByte(rest, '?')
		if q1 < 0 || q1+2 >= len(rest) || rest[q1+2] != '?' {
			break
		}
		enc := rest[q1+1]
		payload := rest[q1+3:]
		stop := strings.Index(payload, "?=")
		if stop < 0 {
			break
		}
		word := payload[:stop]
		switch enc {
		case 'B', 'b':
			decoded = decodeBase64(decoded, strings.TrimRight(word, "="))
		case 'Q', 'q':
			for k := 0; k < len(word); k++ {
				switch c := word[k]; {
				case c == '_':
					decoded = append(decoded, ' ')
				case c == '=' && k+2 < len(word) && hexDigit(word[k+1]) >= 0 && hexDigit(word[k+2]) >= 0:
					decoded = append(decoded, byte(hexDigit(word[k+1])<<4|hexDigit(word[k+2])))
					k += 2
				default:
					decoded = append(decoded, c)
				}
			}
		default:
			return end, decoded
		}
		end = j + 2 + q1 + 3 + stop + 2
		j = end
		for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' || text[j] == '\n') {
			j++
		}
	}
	return end, decoded
}
