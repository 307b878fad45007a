package engine

import (
	"encoding/base64"
	"hash/maphash"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file keeps the values rule (d) removes, as it looks for them: a
// scrubSet. A set keeps no value. Each value becomes needles, each kept
// as the keyed hash of the four bytes it starts with, its length and the
// keyed hash of all its bytes:
//
//   - its skeleton (fold.go), for a value whose skeleton has
//     minSkeleton bytes or more: found in another case, with separators
//     or invisible characters inside, in another Unicode form;
//   - its bytes as written, ASCII letters in lower case, for a shorter
//     one ("tok>91");
//   - a number by its value (number.go).
//
// The session's set (session.go) holds every value a view withheld for
// the life of the page, past the hold of the vault, which is why it holds
// hashes: what it keeps cannot be read back.

// hashSeed keys every hash of the package's sets; mixKey keys the bloom
// filters' index.
var (
	hashSeed = maphash.MakeSeed()
	mixKey   = uint32(maphash.String(hashSeed, "bloom"))
)

// minSkeleton is the fewest skeleton bytes a value needs to be found by
// its skeleton: "hunter-2" and "Ada Lovelace" are, "tok>91" (tok91) only
// as written.
const minSkeleton = 6

// scrubSet collects what rule (d) removes: the strings and numbers a view
// withholds, and, in the session's set, every one withheld before.
type scrubSet struct {
	exact, skel needleTable
	numbers     map[uint64]struct{} // keyed hashes of numberKey
	// digits are numbers found as written (sign aside) only: those whose
	// value is shorter than their text. Keyed hashes of the digits.
	digits map[uint64]struct{}
	// short are values under four bytes, of a set for one string only
	// (noMin), which live as long as its view.
	short []string
	// noMin: values of any length join (a set for one string only).
	noMin bool
	// plus: a value holds a space, so a plus sign in a query string can
	// stand for it. escapy: a value holds a byte that starts an escape, so
	// decodeAll cannot stand in for decodings past their bounds.
	plus, escapy bool
	// shadow, when set, gets every value added too.
	shadow *scrubSet
	// pieces counts the exact needles that are pieces of a key
	// (pieces.go), which the set's bound does not count.
	pieces int
}

// empty reports whether the set has nothing to look for.
func (s *scrubSet) empty() bool {
	return s == nil || s.exact.n == 0 && s.skel.n == 0 && len(s.numbers) == 0 && len(s.digits) == 0 && len(s.short) == 0
}

// values counts what the set holds, pieces of keys aside.
func (s *scrubSet) values() int { return s.needles() - s.pieces }

// needles counts what the set holds.
func (s *scrubSet) needles() int {
	return s.exact.n + s.skel.n + len(s.numbers) + len(s.digits) + len(s.short)
}

// addString adds a withheld string: as a number when it is written as
// one, else as itself.
func (s *scrubSet) addString(v string) {
	if s.shadow != nil {
		s.shadow.addString(v)
	}
	if v == "" || v == referenceType {
		return
	}
	if t := strings.TrimSpace(v); t != v {
		// A value read from a file ("4471\n") is quoted without its
		// white space.
		s.addString(t)
	}
	if !s.noMin && (len(v) < minScrubLength || utf8.RuneCountInString(v) < minScrubLength) {
		// Too short to be specific, or the protocol's own word, which
		// rule (c) looks after.
		return
	}
	if isNumber(v) {
		s.addNumber(v)
		s.addPieces(v)
		return
	}
	s.addText(v)
	// A PEM block's lines and a URL's paths add no pieces (pieces.go).
	pem, link := strings.Contains(v, "-----BEGIN"), isLink(v)
	if link {
		s.addURLPieces(v)
	} else if pem {
		s.addPEMPieces(v)
	} else {
		s.addPieces(v)
	}
	var ids []string
	if link {
		ids, _ = slackWebhook(v)
	}
	toks := tokens(v)
	var described, inPath map[string]bool
	if len(toks) > 0 {
		described, inPath = descriptorWords(v), pathWords(v)
	}
	for _, tok := range toks {
		// A descriptor (a version, a commit, a build, a region) or a
		// webhook's ids join with the text, not on their own
		// (descriptors.go, pieces.go).
		if ordinaryValue(tok) || described[tok] || labelledDescriptor(tok, described) || slices.Contains(ids, tok) {
			continue
		}
		s.addText(tok)
		if !pem && !link && !inPath[tok] {
			s.addPieces(tok)
		}
	}
	s.addKeyParts(v)
}

// addAsWritten adds a withheld string that is found as written, ASCII
// case aside, and never by its skeleton: a value whose skeleton is an
// ordinary word (wordSkeleton).
func (s *scrubSet) addAsWritten(v string) {
	if s.shadow != nil {
		s.shadow.addAsWritten(v)
	}
	v = strings.TrimSpace(v)
	if len(v) < minScrubLength || utf8.RuneCountInString(v) < minScrubLength {
		return
	}
	s.plus = s.plus || strings.IndexByte(v, ' ') >= 0
	s.escapy = s.escapy || hasEscapes(v, true)
	s.exact.add(appendLower(nil, v), boundOf(appendSkeleton(nil, v)), 0, 0)
}

// addText adds one text: by its skeleton when that is long enough to be
// specific, else as written.
func (s *scrubSet) addText(v string) {
	s.plus = s.plus || strings.IndexByte(v, ' ') >= 0
	s.escapy = s.escapy || hasEscapes(v, true)
	var buf [128]byte
	if len(v) >= 4 && len(v) <= maxShortBase64 {
		// The base64 of a short value alone is a word-like run of six to
		// eight characters ("Qjcweg"), which binary.go does not decode:
		// it is found as written instead, for the value as written and in
		// lower and upper case (the value itself is found in any case, and
		// backends write it lowered or raised: "Yjcweg" is "b70z").
		forms := []string{v}
		for _, f := range []string{strings.ToLower(v), strings.ToUpper(v)} {
			if !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
		for _, f := range forms {
			for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
				b := enc.AppendEncode(buf[:0], []byte(f))
				s.exact.add(lowerBytes(b), boundNone, 0, 0)
			}
		}
	}
	if sk := appendSkeleton(buf[:0], v); len(sk) >= minSkeleton {
		s.skel.add(sk, boundOf(sk), edge(v, false), edge(v, true))
		return
	}
	if len(v) < 4 {
		s.short = append(s.short, v)
		return
	}
	s.exact.add(appendLower(buf[:0], v), boundOf(appendSkeleton(make([]byte, 0, 16), v)), 0, 0)
}

// addNumber adds a withheld number, written as isNumber accepts.
func (s *scrubSet) addNumber(text string) {
	if s.shadow != nil {
		s.shadow.addNumber(text)
	}
	digits := len(text)
	if text != "" && text[0] == '-' {
		digits--
	}
	if digits < minScrubLength && !s.noMin {
		return
	}
	if plain := strings.TrimPrefix(text, "-"); len(plain) >= minSkeleton && allDigits(plain) {
		// A long integer is found with its digits grouped, too: a card
		// number as "4111 1111 1111 1111".
		s.skel.add([]byte(plain), boundDigits, 0, 0)
	}
	var buf [64]byte
	key := numberKey(buf[:0], text)
	if plainLength(key) < minScrubLength && !s.noMin {
		if s.digits == nil {
			s.digits = map[uint64]struct{}{}
		}
		s.digits[maphash.String(hashSeed, strings.TrimPrefix(text, "-"))] = struct{}{}
		return
	}
	if s.numbers == nil {
		s.numbers = map[uint64]struct{}{}
	}
	s.numbers[maphash.Bytes(hashSeed, key)] = struct{}{}
}

// bytes estimates the memory the set takes.
func (s *scrubSet) bytes() int {
	const mapEntry = 24 // a uint64 key and the map's own share, about
	return s.exact.bytes() + s.skel.bytes() + mapEntry*(len(s.numbers)+len(s.digits))
}

// plainLength is how many characters the number of key takes written
// plainly, as JavaScript writes it (exponents from 1e21 on).
func plainLength(key []byte) int {
	e := strings.IndexByte(string(key), 'e')
	if e < 0 {
		return 1 // zero
	}
	digits := e
	exp := 0
	neg := false
	for _, c := range key[e+1:] {
		if c == '-' {
			neg = true
			continue
		}
		exp = min(exp*10+int(c-'0'), 1<<20)
	}
	switch {
	case neg || exp == 0:
		return 2 + exp + digits // 0.000ddd
	case exp > 21:
		return digits + 4 // d.ddde+NN, at least
	case digits <= exp:
		return exp
	default:
		return digits + 1
	}
}

// edge counts the characters at the start of v (or its end) whose
// skeleton is empty.
func edge(v string, end bool) int {
	n := 0
	for len(v) > 0 {
		c := v[0]
		if end {
			c = v[len(v)-1]
		}
		if c < utf8.RuneSelf {
			if foldASCII[c] != 0 {
				break
			}
			if end {
				v = v[:len(v)-1]
			} else {
				v = v[1:]
			}
			n++
			continue
		}
		var r string
		if end {
			_, k := utf8.DecodeLastRuneInString(v)
			r, v = v[len(v)-k:], v[:len(v)-k]
		} else {
			_, k := utf8.DecodeRuneInString(v)
			r, v = v[:k], v[k:]
		}
		if skeleton(r) != "" {
			break
		}
		n++
	}
	return n
}

func allDigits[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return len(s) > 0
}

// lowerASCII maps each byte to itself, ASCII capitals to lower case.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = byte(c - 'A' + 'a')
	}
	return t
}()

// maxShortBase64 is the longest value whose base64 alone (eight
// characters at most) is a needle of its own.
const maxShortBase64 = 6

func lowerBytes(b []byte) []byte {
	for i, c := range b {
		b[i] = lowerASCII[c]
	}
	return b
}

func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		b = append(b, lowerASCII[s[i]])
	}
	return b
}
