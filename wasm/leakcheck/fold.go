package leakcheck

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// minBare is the fewest letters and digits a value must have for Find to
// look for it with separators ignored: fewer would be found by chance in
// unrelated text ("abc" in "a-b-c").
const minBare = 6

// fold writes s as a reader reads it when how it is written does not
// matter: without its invisible characters, in Unicode's compatibility
// composed form (NFKC: é one character, fullwidth ４ as 4, the ligature ﬁ
// as fi), and case folded (see foldRune: k, K and the Kelvin sign K all as
// K). Bytes that are not UTF-8 are kept as they are, so decoded bytes fold
// too.
//
// Find folds the value and the text alike, so the form either side is
// written in does not matter.
func fold(s string) string {
	if ascii(s) {
		// Nothing to take out or compose: only the case to fold.
		b := []byte(s)
		for i, c := range b {
			if 'a' <= c && c <= 'z' {
				b[i] = c - 'a' + 'A'
			}
		}
		return string(b)
	}
	if strings.IndexFunc(s, invisible) >= 0 {
		b := make([]byte, 0, len(s))
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			// Taken out before composing: a mark after a zero-width
			// space still belongs to the letter before it, for a reader.
			if r == utf8.RuneError && n == 1 || !invisible(r) {
				b = append(b, s[i:i+n]...)
			}
			i += n
		}
		s = string(b)
	}
	s = norm.NFKC.String(s)
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c = c - 'a' + 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, c)
		} else {
			b = utf8.AppendRune(b, foldRune(r))
		}
		i += n
	}
	return string(b)
}

// foldRune is one rune for every case of a letter: the least member of
// the simple case folding orbit (as strings.EqualFold compares) of the
// upper case of its lower case. Through its lower and upper case, a
// letter meets those simple folding leaves apart: the Turkish dotless ı
// and dotted İ meet I and i.
func foldRune(r rune) rune {
	r = unicode.ToUpper(unicode.ToLower(r))
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < least {
			least = f
		}
	}
	return least
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// invisible reports whether r is a character a reader does not see: a
// format character (category Cf: the soft hyphen, zero-width space,
// joiners, word joiner, byte order mark, bidirectional controls, tags), a
// variation selector, or another default-ignorable code point (the
// combining grapheme joiner, Hangul fillers).
func invisible(r rune) bool {
	return r >= 0xAD && unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// separator reports whether r is what a reader skips between the groups
// of a number or code: white space and Unicode spaces, dashes, and . _ / :.
func separator(r rune) bool {
	switch r {
	case '.', '_', '/', ':', '-', ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return r >= utf8.RuneSelf && (unicode.IsSpace(r) || unicode.In(r, unicode.Zs, unicode.Pd))
}

// unseparated is s without its separators; s is folded, so it has no
// invisible characters left either.
func unseparated(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if !separator(rune(c)) {
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !separator(r) {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// unseparatedAt is unseparated(s), and for each of its bytes the offset
// of the byte in s it comes from.
func unseparatedAt(s string) (u string, at []int) {
	b := make([]byte, 0, len(s))
	at = make([]int, 0, len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !separator(r) {
			b = append(b, s[i:i+n]...)
			for k := range n {
				at = append(at, i+k)
			}
		}
		i += n
	}
	return string(b), at
}

// holdsUnseparated reports whether the folded text t, its separators
// taken out, holds any of forms where it stands whole: not run on, with
// no separator between, into more letters (where the form begins or ends
// with a letter) or more digits (with a digit). So the word "redeem" is
// not /redeem/ found in "redeemUrl", nor a card number in the first
// sixteen of twenty digits, as a number is found whole.
func holdsUnseparated(t string, forms ...string) bool {
	u := unseparated(t)
	var at []int
	for _, form := range forms {
		if !strings.Contains(u, form) {
			continue
		}
		if at == nil {
			u, at = unseparatedAt(t)
		}
		first, _ := utf8.DecodeRuneInString(form)
		last, _ := utf8.DecodeLastRuneInString(form)
		for i := 0; i <= len(u); {
			k := strings.Index(u[i:], form)
			if k < 0 {
				break
			}
			a, b := i+k, i+k+len(form)
			before, _ := utf8.DecodeLastRuneInString(t[:at[a]])
			after, _ := utf8.DecodeRuneInString(t[at[b-1]+1:])
			if !runOn(before, first) && !runOn(last, after) {
				return true
			}
			i = a + 1
		}
	}
	return false
}

// runOn reports whether b next to a continues a's word or number.
func runOn(a, b rune) bool {
	letter := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsMark(r) }
	return letter(a) && letter(b) || unicode.IsNumber(a) && unicode.IsNumber(b)
}

// bare is s's letters and digits (and the marks on them), and how many
// letters and digits there are.
func bare(s string) (string, int) {
	n := 0
	b := strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			n++
			return r
		case unicode.IsMark(r):
			return r
		}
		return -1
	}, s)
	return b, n
}
