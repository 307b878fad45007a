package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file says which of a value withheld only because its whole output
// was (a sensitiveHint tool without a schema) joins the session's set: a
// value is read as the words white space separates, and only what is not
// ordinary joins, so that a profile or a paragraph withheld whole keeps
// its words, dates and prices in later outputs, and whoever writes into
// such an output cannot choose words to censor later, while an SSN, a
// card number, a PIN or a password in it still joins.

// hintedParts returns what of v, withheld only because its whole output
// was, joins the session's set: nothing when each of its words is
// ordinary (ordinaryValue, or in a text of several words a year,
// yearValue); else v itself, and each word or group of
// words that is not ordinary:
//
//   - digits grouped by single spaces, four of them or more in all, as
//     one value (4111 1111 1111 1111, an IBAN DE89 3704 0044 …), its
//     groups not on their own;
//   - any other word of four characters or more that is not ordinary,
//     the punctuation of prose around it aside (123-45-6789, 4821,
//     sk_live_…);
//   - in such a word, the value of KEY=value and the user and password
//     of a URL (postgres://app:S3cr3t@db/app), when they are not
//     ordinary.
func hintedParts(v string) []string {
	v = strings.TrimSpace(v)
	if v == "" || ordinaryValue(v) {
		return nil
	}
	words, at := fieldsAt(v)
	var parts []string
	add := func(p string) {
		if utf8.RuneCountInString(p) >= minScrubLength && !ordinaryValue(p) {
			parts = append(parts, p)
		}
	}
	grouped := make([]bool, len(words))
	for i := 0; i < len(words); {
		j := digitGroupEnd(v, words, at, i)
		if j-i < 2 {
			i++
			continue
		}
		var b strings.Builder
		digits := 0
		for k := i; k < j; k++ {
			w := trimProse(words[k])
			if k > i {
				b.WriteByte(' ')
			}
			b.WriteString(w)
			for x := 0; x < len(w); x++ {
				if isDigit(w[x]) {
					digits++
				}
			}
			grouped[k] = true
		}
		if digits >= minScrubLength {
			parts = append(parts, b.String())
		}
		i = j
	}
	for k, w := range words {
		if grouped[k] {
			continue
		}
		w = trimProse(w)
		// A year is ordinary as a word of a text, not as a value of its
		// own (a PIN 2026).
		if utf8.RuneCountInString(w) < minScrubLength || ordinaryValue(w) || len(words) > 1 && yearValue(w) {
			continue
		}
		parts = append(parts, w)
		for _, in := range innerValues(w) {
			add(in)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return append(parts, v)
}

// yearValue reports whether v is a year: four digits from 1900 to 2099.
func yearValue(v string) bool {
	return len(v) == 4 && allDigits(v) && (v[:2] == "19" || v[:2] == "20")
}

// trimProse returns w without the punctuation prose puts around a word:
// quotes, brackets, and , ; : ! ? at its end, and a point at its end
// when what is before it is no ordinary word with a point (Inc.).
func trimProse(w string) string {
	w = strings.TrimLeft(w, "\"'“‘«([{<")
	w = strings.TrimRight(w, "\"'”’»)]}>,;:!?…")
	if strings.HasSuffix(w, ".") && !ordinaryValue(w) {
		w = strings.TrimRight(w, ".")
	}
	return w
}

// digitGroupEnd returns where the group of digits that starts at
// words[i] ends: words of one to six digits (the first may be an IBAN's
// country and check digits, DE89, and the next then capitals too), one
// space between each, none but the last with punctuation after it.
func digitGroupEnd(v string, words []string, at []int, i int) int {
	iban := len(words[i]) == 4 && isUpper(words[i][0]) && isUpper(words[i][1]) && isDigit(words[i][2]) && isDigit(words[i][3])
	block := func(w string, first bool) bool {
		if len(w) < 1 || len(w) > 6 {
			return false
		}
		if first && iban {
			return true
		}
		for x := 0; x < len(w); x++ {
			if !isDigit(w[x]) && !(iban && len(w) <= 4 && isUpper(w[x])) {
				return false
			}
		}
		return true
	}
	if !block(words[i], true) {
		return i
	}
	j := i + 1
	for ; j < len(words); j++ {
		w := trimProse(words[j])
		if !block(w, false) || at[j] != at[j-1]+len(words[j-1])+1 || v[at[j]-1] != ' ' {
			break
		}
		if w != words[j] {
			return j + 1 // punctuation after it ends the group
		}
	}
	return j
}

// fieldsAt returns the words of v that white space separates, and where
// each starts.
func fieldsAt(v string) (words []string, at []int) {
	start := -1
	for i, r := range v {
		if unicode.IsSpace(r) {
			if start >= 0 {
				words, at = append(words, v[start:i]), append(at, start)
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words, at = append(words, v[start:]), append(at, start)
	}
	return words, at
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// innerValues returns the values inside one word: what follows the first
// = of KEY=value, and the user and password of a URL's authority.
func innerValues(w string) []string {
	var out []string
	if i := strings.IndexByte(w, '='); i > 0 && i < len(w)-1 && !strings.Contains(w[:i], "://") {
		out = append(out, w[i+1:])
		w = w[i+1:]
	}
	if i := strings.Index(w, "://"); i > 0 {
		auth := w[i+3:]
		if j := strings.IndexAny(auth, "/?#"); j >= 0 {
			auth = auth[:j]
		}
		if at := strings.LastIndexByte(auth, '@'); at > 0 {
			user, pass, _ := strings.Cut(auth[:at], ":")
			out = append(out, user, pass)
		}
	}
	return out
}

// wordSkeleton reports whether the skeleton of v is an ordinary word:
// such a value is found as written, never by its skeleton, or a value
// written around a word (unverified!, (suspicious), "blocked") would
// remove the word itself from later outputs.
func wordSkeleton(v string) bool {
	var buf [128]byte
	sk := appendSkeleton(buf[:0], v)
	if len(sk) == 0 {
		return false
	}
	for _, c := range string(sk) {
		if !unicode.IsLetter(c) {
			return false
		}
	}
	return ordinaryWord(string(sk))
}
