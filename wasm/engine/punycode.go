package engine

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// This file reads the labels of internationalized domain names written
// in ASCII (xn--mnchen-3ya for münchen, RFC 3492's Punycode), as e-mail
// and URL software writes them, back as the Unicode they stand for.

// maxLabel is the longest label of a domain name (RFC 1035).
const maxLabel = 63

// Punycode's parameters (RFC 3492, section 5).
const (
	punyBase        = 36
	punyTMin        = 1
	punyTMax        = 26
	punySkew        = 38
	punyDamp        = 700
	punyInitialBias = 72
	punyInitialN    = 128
)

// punyAdapt is RFC 3492's bias adaptation (section 6.1).
func punyAdapt(delta, points int, first bool) int {
	if first {
		delta /= punyDamp
	} else {
		delta /= 2
	}
	delta += delta / points
	k := 0
	for delta > ((punyBase-punyTMin)*punyTMax)/2 {
		delta /= punyBase - punyTMin
		k += punyBase
	}
	return k + (punyBase-punyTMin+1)*delta/(delta+punySkew)
}

// punyDigit is the value of a Punycode digit, or -1.
func punyDigit(c byte) int {
	switch {
	case c >= 'a' && c <= 'z':
		return int(c - 'a')
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= '0' && c <= '9':
		return int(c-'0') + 26
	}
	return -1
}

// punyDecode decodes the Punycode s (a label without its xn--), at most
// maxLabel characters in and out. It reports false for what is no
// Punycode.
func punyDecode(s string) (string, bool) {
	out, _, ok := punyDecodeFrom(s)
	return string(out), ok
}

// punyDecodeFrom is punyDecode, with the index in s of each character
// decoded that s holds as it is (its basic code points), or -1 for one
// its digits insert.
func punyDecodeFrom(s string) (out []rune, from []int, ok bool) {
	if s == "" || len(s) > maxLabel {
		return nil, nil, false
	}
	p := 0
	if b := strings.LastIndexByte(s, '-'); b >= 0 {
		for k := 0; k < b; k++ {
			out = append(out, rune(s[k]))
			from = append(from, k)
		}
		p = b + 1
	}
	i, n, bias := 0, punyInitialN, punyInitialBias
	for p < len(s) {
		oldi, w := i, 1
		for k := punyBase; ; k += punyBase {
			if p >= len(s) {
				return nil, nil, false
			}
			d := punyDigit(s[p])
			p++
			if d < 0 || d > (1<<30-i)/w {
				return nil, nil, false
			}
			i += d * w
			t := k - bias
			if t < punyTMin {
				t = punyTMin
			} else if t > punyTMax {
				t = punyTMax
			}
			if d < t {
				break
			}
			if w > (1<<30)/(punyBase-t) {
				return nil, nil, false
			}
			w *= punyBase - t
		}
		bias = punyAdapt(i-oldi, len(out)+1, oldi == 0)
		n += i / (len(out) + 1)
		i %= len(out) + 1
		if n > utf8.MaxRune || len(out) >= maxLabel {
			return nil, nil, false
		}
		out = slices.Insert(out, i, rune(n))
		from = slices.Insert(from, i, -1)
		i++
	}
	return out, from, true
}

// isLabelByte reports whether c may stand in a domain name's label.
func isLabelByte(c byte) bool { return isAlnum(c) || c == '-' }

// hasPunycode reports whether str holds a label that starts xn--, in any
// case.
func hasPunycode(str string) bool {
	for i := 0; i+4 <= len(str); i++ {
		if (str[i] == 'x' || str[i] == 'X') && strings.EqualFold(str[i:i+4], "xn--") && (i == 0 || !isLabelByte(str[i-1])) {
			return true
		}
	}
	return false
}

// withPunycode reads str with each of its xn-- labels as the Unicode it
// stands for: a character the label holds as it is is read from itself,
// and one its digits insert from the whole label. It reports whether a
// label was read.
func (r *reading) withPunycode(str string) bool {
	r.reset()
	if !hasPunycode(str) {
		return false
	}
	read := false
	for i := 0; i < len(str); {
		if i+4 <= len(str) && strings.EqualFold(str[i:i+4], "xn--") && (i == 0 || !isLabelByte(str[i-1])) {
			j := i + 4
			for j < len(str) && isLabelByte(str[j]) {
				j++
			}
			if u, from, ok := punyDecodeFrom(str[i+4 : j]); ok {
				var buf [utf8.UTFMax]byte
				for k, c := range u {
					n := utf8.EncodeRune(buf[:], c)
					a, b := i, j
					if from[k] >= 0 {
						a = i + 4 + from[k]
						b = a + 1
					}
					for _, x := range buf[:n] {
						r.add(x, a, b)
					}
				}
				read = true
				i = j
				continue
			}
		}
		r.add(str[i], i, i+1)
		i++
	}
	return read
}
