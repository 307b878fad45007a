package engine

import (
	"math"
	"strings"
)

// This file finds a piece of a withheld key. A tool that reads by offset
// and length (read_log({offset, length})) hands a key back in slices, and
// no slice is the whole value, so the value's own needles find none. A
// key-like value therefore adds needles of its own pieces: from each of its
// characters, the shortest run that carries minPieceBits bits and mixes
// letters with digits. A later output that holds a piece that long, as a
// whole string or inside one, loses it, as it would lose the key.
//
// What is not a piece: a run of letters alone or of punctuation (a key's
// "sk_live_" prefix, which every key of its kind shares), a run shorter
// than minPiece characters, and pieces of a value too long to be one key
// (a text's tokens are, each, when the text is short), of a JWT's header
// and claims (which other tokens share; its signature is the secret), and of
// a PEM block's lines (whose first bytes every key of its kind shares,
// and whose public half a certificate repeats).

const (
	// minPiece is the fewest characters a piece has: an agent needs a
	// key of 32 characters in at least five reads.
	minPiece = 8
	// maxPiece is the most: a run that needs more to reach minPieceBits
	// is not random enough to be told from what other values hold.
	maxPiece = 16
	// minPieceBits is the fewest bits of a piece, counted by its alphabet
	// (pieceBits): eight letters and digits, ten hexadecimal digits,
	// thirteen decimal ones. A run that specific does not appear by
	// chance in an output: one in 2⁴⁰.
	minPieceBits = 40
	// maxPieced is the longest value whose pieces are added: a key, a
	// token's signature, a password; not a text or a certificate.
	maxPieced = 256
	// maxSetPieces bounds the pieces a set holds, about 64 bytes each:
	// 1 MiB, the pieces of five hundred keys of 40 characters. Past it,
	// the pieces of later keys are not added (agent-view.md says so);
	// their values still are, to the set's own bound.
	maxSetPieces = 1 << 14
)

// addPieces adds the pieces of v, when v is a key-like value (keyLike)
// written in key characters alone (keyChars), as exact needles.
func (s *scrubSet) addPieces(v string) {
	v = keyPart(v)
	if len(v) <= minPiece || len(v) > maxPieced || !keyLike(v) || !keyChars(v) {
		return
	}
	var buf [maxPiece]byte
	for i := 0; i+minPiece <= len(v) && s.pieces < maxSetPieces; i++ {
		n := pieceAt(v[i:])
		if n == 0 || n == len(v) {
			continue
		}
		p := appendLower(buf[:0], v[i:i+n])
		before := s.exact.n
		s.exact.add(p, boundNone, 0, 0)
		s.pieces += s.exact.n - before
	}
}

// keyChars reports whether v is written the way keys are: letters,
// digits and pieceMarks alone, and not as a path (a leading / or ., or
// //), whose parts other paths share.
func keyChars(v string) bool {
	if v[0] == '/' || v[0] == '.' || strings.Contains(v, "//") {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isDigit(c) && !isLetter(c) && strings.IndexByte(pieceMarks, c) < 0 {
			return false
		}
	}
	return true
}

// keyPart is the part of v that is secret: a JWT's signature (its header
// and claims are base64 of JSON that other tokens share), else v.
func keyPart(v string) string {
	if strings.HasPrefix(v, "eyJ") && strings.Count(v, ".") == 2 {
		return v[strings.LastIndexByte(v, '.')+1:]
	}
	return v
}

// pieceAt returns the length of the shortest piece that starts v: at
// least minPiece characters and at most maxPiece, of the characters keys
// are made of, that carries minPieceBits bits (pieceBits). It returns 0
// when no run does.
func pieceAt(v string) int {
	for n := 1; n <= min(len(v), maxPiece); n++ {
		if c := v[n-1]; !isDigit(c) && !isLetter(c) && strings.IndexByte(pieceMarks, c) < 0 {
			return 0
		}
		if n >= minPiece && pieceBits(v[:n]) >= minPieceBits {
			return n
		}
	}
	return 0
}

// pieceMarks are the marks keys are written with besides letters and
// digits; they carry no bits of their own.
const pieceMarks = "_-.+/=~"

// pieceBits is how many bits a run of key characters carries. It counts
// the characters of its random-looking parts between marks (randomPart),
// by their alphabet, letters in either case alike (the exact needles find
// them in any case): 3.3 a decimal digit, 4 a hexadecimal one, 4.7 a
// letter of parts of letters, 5.2 a letter or digit of any other. What an
// issuer writes in every key (sk_live_, ghp_, AKIA) counts nothing.
func pieceBits(p string) float64 {
	n, decimal, hex, letters := 0, true, true, true
	for part := range strings.FieldsFuncSeq(p, func(r rune) bool { return strings.ContainsRune(pieceMarks, r) }) {
		if !randomPart(part) {
			continue
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; isDigit(c) {
				letters = false
			} else {
				decimal = false
				hex = hex && c|0x20 <= 'f'
			}
		}
		n += len(part)
	}
	per := math.Log2(36)
	switch {
	case decimal:
		per = math.Log2(10)
	case hex:
		per = 4
	case letters:
		per = math.Log2(26)
	}
	return per * float64(n)
}

// randomPart reports whether a part of a key between marks looks random
// rather than like a word: it has a digit, or its letters are not all of
// one case, nor one capital and then small letters (xKqPmZtR, WBODJPpafk;
// not live, PASSWORD or Password).
func randomPart(part string) bool {
	upper := 0
	for i := 0; i < len(part); i++ {
		if isDigit(part[i]) {
			return true
		}
		if part[i] < 'a' {
			upper++
		}
	}
	capital := upper == 1 && part[0] < 'a'
	return upper > 0 && upper < len(part) && !capital
}
