package engine

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// This file folds a text to its skeleton: what a reader compares when
// case, accents, compatibility forms, separators and invisible characters
// do not matter. The skeleton of "4111-1111 1111\u00ad1111" is
// "4111111111111111", of "Müller#4471" "muller4471", of "ＡＢＣ１２"
// "abc12". Rule (d) finds a withheld value wherever its skeleton stands in
// another text's skeleton (match.go): another case, digits grouped by
// spaces or dashes, a soft hyphen or zero-width space a mail template put
// in, NFD against NFC, fullwidth forms.
//
// A character's skeleton is its NFKD decomposition less everything but
// letters and digits (marks, format characters, spaces, punctuation and
// symbols go), each letter in the lower case of its upper case.
// Every character folds on its own, so the skeleton of a text is the
// skeletons of its characters one after the other, and a span of the
// skeleton maps back to a span of the text.

// foldASCII is the skeleton of each ASCII byte: a lower-case letter or a
// digit, or 0 when the byte has none.
var foldASCII = func() (t [utf8.RuneSelf]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(c)
		t[c-'a'+'A'] = byte(c)
	}
	return t
}()

// appendFoldRune appends to b the skeleton of the character that starts
// at s[i], which is not ASCII, and returns the index just past it.
func appendFoldRune(b []byte, s string, i int) ([]byte, int) {
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n <= 1 {
		return b, i + 1 // a byte that is no character has no skeleton
	}
	if r < twoByteEnd {
		// The characters of two bytes, which decoded binary is full of,
		// are looked up, not decomposed again each time.
		return append(b, twoByteSkeletons()[r-utf8.RuneSelf]...), i + n
	}
	return appendFoldSlow(b, s[i:i+n], r), i + n
}

// twoByteEnd is the first character UTF-8 writes in three bytes.
const twoByteEnd = 0x800

// twoByteSkeletons is the skeleton of every character UTF-8 writes in two
// bytes (U+0080 to U+07FF), made when first needed.
var twoByteSkeletons = sync.OnceValue(func() []string {
	t := make([]string, twoByteEnd-utf8.RuneSelf)
	var buf [32]byte
	for r := rune(utf8.RuneSelf); r < twoByteEnd; r++ {
		t[r-utf8.RuneSelf] = string(appendFoldSlow(buf[:0], string(r), r))
	}
	return t
})

// appendFoldSlow appends the skeleton of character r, written ch, to b,
// from Unicode's tables.
func appendFoldSlow(b []byte, ch string, r rune) []byte {
	if r >= hangulFirst && r <= hangulLast {
		// Hangul syllables decompose by rule, not by table, into the
		// jamo their NFD form writes.
		k := r - hangulFirst
		b = utf8.AppendRune(b, 0x1100+k/(21*28))
		b = utf8.AppendRune(b, 0x1161+k%(21*28)/28)
		if t := k % 28; t != 0 {
			b = utf8.AppendRune(b, 0x11a7+t)
		}
		return b
	}
	d := norm.NFKD.PropertiesString(ch).Decomposition()
	if d == nil {
		return appendFoldChar(b, ch)
	}
	for k := 0; k < len(d); {
		r, m := utf8.DecodeRune(d[k:])
		if r < utf8.RuneSelf {
			if c := foldASCII[r]; c != 0 {
				b = append(b, c)
			}
		} else {
			b = appendFoldChar(b, string(d[k:k+m]))
		}
		k += m
	}
	return b
}

// appendFoldChar appends the skeleton of one decomposed character: the
// letter or digit with its case folded, or nothing.
func appendFoldChar(b []byte, ch string) []byte {
	r, _ := utf8.DecodeRuneInString(ch)
	if r < utf8.RuneSelf {
		if c := foldASCII[r]; c != 0 {
			b = append(b, c)
		}
		return b
	}
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		return b
	}
	if r == 'ß' || r == 'ẞ' {
		// Its upper case is SS, which other case mappings write.
		return append(b, "ss"...)
	}
	if d, ok := digitValue(r); ok {
		// A digit of another script (Arabic-Indic, Devanagari) is the
		// digit it stands for.
		return append(b, '0'+d)
	}
	return utf8.AppendRune(b, caseFold(r))
}

// The Hangul syllables, which NFD decomposes by rule.
const (
	hangulFirst = 0xac00
	hangulLast  = 0xd7a3
)

// digitValue returns the value of a decimal digit of any script: the
// digits of each script stand in a run of ten from zero, as Unicode's
// table of decimal digits (Nd) lists them.
func digitValue(r rune) (byte, bool) {
	if !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	for _, rg := range unicode.Nd.R16 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi {
			return byte((r - lo) % 10), true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi {
			return byte((r - lo) % 10), true
		}
	}
	return 0, false
}

// caseFold folds r's case: σ, ς and Σ to σ, ſ to s, as the lower case
// of its upper case.
func caseFold(r rune) rune { return unicode.ToLower(unicode.ToUpper(r)) }

// skeleton returns the skeleton of s.
func skeleton(s string) string {
	return string(appendSkeleton(make([]byte, 0, len(s)), s))
}

// appendSkeleton appends the skeleton of s to b.
func appendSkeleton(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if f := foldASCII[c]; f != 0 {
				b = append(b, f)
			}
			i++
			continue
		}
		b, i = appendFoldRune(b, s, i)
	}
	return b
}

// letterBefore and isLetterRune are digitBefore and isDigitRune for
// letters of any script.
func letterBefore(s string, i int) bool {
	if i <= 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r)
}

func isLetterRune(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

// isDigitRune reports whether the character at s[i:] is a decimal digit
// of any script (fullwidth digits are too).
func isDigitRune(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	if s[i] < utf8.RuneSelf {
		return isDigit(s[i])
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsDigit(r)
}

// digitBefore reports whether the character that ends at s[i] is a
// decimal digit.
func digitBefore(s string, i int) bool {
	if i <= 0 {
		return false
	}
	if s[i-1] < utf8.RuneSelf {
		return isDigit(s[i-1])
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsDigit(r)
}
