package engine

import "strconv"

// Numbers are matched by value: a withheld 4471 is found in the text
// "4471.0", the string "4471", the number 4.471e3, and a withheld string
// "4471" in the number 4471. A number is found only where it stands
// whole: 4471 is not in 144712 or 3.4471, so a visible value that merely
// holds a withheld number's digits keeps them.

// isNumber reports whether s is written as a number: digits, an optional
// fraction and exponent, and an optional minus sign. Leading zeros are
// allowed ("007" is seven), and so is a fraction without its leading zero
// (".5").
func isNumber(s string) bool {
	start, end := 0, len(s)
	if start < end && s[start] == '-' {
		start++
	}
	return start < end && numberStart(s, start) && numberEnd(s, start) == end
}

// numberStart reports whether a number's digits can start at s[i]: a
// digit, or a point before one.
func numberStart(s string, i int) bool {
	return isDigit(s[i]) || s[i] == '.' && i+1 < len(s) && isDigit(s[i+1])
}

// numberEnd returns the end of the number whose digits start at s[i]:
// digits, then "." and digits, then an exponent, each part taken only
// when whole.
func numberEnd(s string, i int) int {
	i = digitsEnd(s, i)
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i = digitsEnd(s, i+1)
	}
	if i+1 < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if s[j] == '+' || s[j] == '-' {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			i = digitsEnd(s, j)
		}
	}
	return i
}

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// numberKey appends to b the key of the number written s (as isNumber
// accepts it): its value's significant digits and the power of ten
// after the first, so that 4471, 4471.0, 4.471e3 and 0004471 share one.
// The sign is left out: a withheld -4471 is found in "4471" too.
func numberKey(b []byte, s string) []byte {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	intEnd := digitsEnd(s, 0)
	fracStart, fracEnd := intEnd, intEnd
	if intEnd < len(s) && s[intEnd] == '.' {
		fracStart = intEnd + 1
		fracEnd = digitsEnd(s, fracStart)
	}
	exp := int64(0)
	if fracEnd < len(s) {
		// The exponent, saturated: 1e999999999999 is one key, not a
		// failure.
		j := fracEnd + 1
		neg := s[j] == '-'
		if s[j] == '+' || s[j] == '-' {
			j++
		}
		for ; j < len(s); j++ {
			if exp < 1e12 {
				exp = exp*10 + int64(s[j]-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	// The digits of the value, int then fraction, with the power of ten
	// that the first of them stands at.
	digit := func(k int) byte {
		if k < intEnd {
			return s[k]
		}
		return s[fracStart+k-intEnd]
	}
	n := intEnd + fracEnd - fracStart
	first := 0
	for first < n && digit(first) == '0' {
		first++
	}
	last := n
	for last > first && digit(last-1) == '0' {
		last--
	}
	if first == last {
		return append(b, '0')
	}
	for k := first; k < last; k++ {
		b = append(b, digit(k))
	}
	b = append(b, 'e')
	return strconv.AppendInt(b, exp+int64(intEnd-first), 10)
}

// numbers calls f with the span of every number written in text: a run
// of digits, or a point and digits (.5), not preceded by a digit or a
// point, with its fraction and exponent, and the minus sign before it. f
// returns false to stop.
func numbers(text string, f func(start, end int) bool) {
	for i := 0; i < len(text); i++ {
		if !numberStart(text, i) {
			continue
		}
		if i > 0 && (isDigit(text[i-1]) || text[i-1] == '.') {
			continue
		}
		start, end := i, numberEnd(text, i)
		if start > 0 && text[start-1] == '-' {
			start--
		}
		if !f(start, end) {
			return
		}
		i = end - 1
	}
}
