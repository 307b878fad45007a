package engine

import (
	"slices"
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
//   - in such a word, the value of KEY=value or label:value and the
//     user and password of a URL (postgres://app:S3cr3t@db/app), when
//     they are not ordinary.
func hintedParts(v string) []string {
	// Where a descriptor stands is read in v as written: its lines'
	// indents tell its context.
	var described map[string]bool
	raw := v
	v = strings.TrimSpace(v)
	// No ordinary shape is longer than maxOrdinary bytes; a long text is
	// read by its words alone.
	if v == "" || len(v) <= maxOrdinary && ordinaryValue(v) {
		return nil
	}
	var parts []string
	add := func(p string) {
		if utf8.RuneCountInString(p) >= minScrubLength && !ordinaryValue(p) {
			parts = append(parts, p)
		}
	}
	// several: v has more than one word, so a year in it is a date's.
	several := strings.IndexFunc(v, unicode.IsSpace) >= 0
	// A long text repeats its words: each is read once.
	var seen map[string]struct{}
	if len(v) > 64*fewTokens {
		seen = make(map[string]struct{}, 64)
	}
	for i := 0; ; {
		w, a, e := nextWord(v, i)
		if w == "" {
			break
		}
		if g := digitGroupEnd(v, a, e); g > e {
			group := trimProse(v[a:g])
			digits := 0
			for x := 0; x < len(group); x++ {
				if isDigit(group[x]) {
					digits++
				}
			}
			if digits >= minScrubLength {
				parts = append(parts, group)
			}
			i = g
			continue
		}
		i = e
		if seen != nil {
			if _, dup := seen[w]; dup {
				continue
			}
			seen[w] = struct{}{}
		}
		w = trimProse(w)
		// A year is ordinary as a word of a text, not as a value of its
		// own (a PIN 2026).
		// A descriptor (descriptors.go) is a word of its own, or with its
		// label (GIT_SHA=3f9a…, region: eu-west-1).
		if utf8.RuneCountInString(w) < minScrubLength || ordinaryValue(w) || several && yearValue(w) {
			continue
		}
		if described == nil {
			described = descriptorWords(raw)
			if described == nil {
				described = map[string]bool{}
			}
		}
		if described[w] || labelledDescriptor(w, described) {
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
	// A long text repeats its values (an id on every line): each joins
	// once.
	slices.Sort(parts)
	return append(slices.Compact(parts), v)
}

// nextWord returns the first word of v at or after byte i that white
// space ends, and where it starts and ends; "" at the end of v.
func nextWord(v string, i int) (string, int, int) {
	for i < len(v) {
		r, n := utf8.DecodeRuneInString(v[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	a := i
	for i < len(v) {
		r, n := utf8.DecodeRuneInString(v[i:])
		if unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return v[a:i], a, i
}

// digitGroupEnd returns where the group of digits whose first word is
// v[a:e] ends, or e when there is none: words of one to six digits (the
// first may be an IBAN's country and check digits, DE89, and the others
// then capitals too), one space between each, none but the last with
// punctuation after it.
func digitGroupEnd(v string, a, e int) int {
	first := v[a:e]
	iban := len(first) == 4 && isUpper(first[0]) && isUpper(first[1]) && isDigit(first[2]) && isDigit(first[3])
	block := func(w string) bool {
		if len(w) < 1 || len(w) > 6 {
			return false
		}
		for x := 0; x < len(w); x++ {
			if !isDigit(w[x]) && !(iban && len(w) <= 4 && isUpper(w[x])) {
				return false
			}
		}
		return true
	}
	if !iban && !block(first) {
		return e
	}
	end := e
	for end < len(v) && v[end] == ' ' {
		w, wa, we := nextWord(v, end)
		if w == "" || wa != end+1 {
			break
		}
		t := trimProse(w)
		if !block(t) {
			break
		}
		end = we
		if t != w {
			break // punctuation after it ends the group
		}
	}
	return end
}

// maxOrdinary bounds the length of an ordinary value: a word of
// maxWordLetters letters, a MIME type or a date with a time and a zone
// are far shorter.
const maxOrdinary = 256

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

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// innerValues returns the values inside one word: what follows the first
// = of KEY=value or the first : of a label of letters (pin:4821,
// SSN:123-45-6789), and the user and password of a URL's authority.
func innerValues(w string) []string {
	var out []string
	if i := strings.IndexByte(w, '='); i > 0 && i < len(w)-1 && !strings.Contains(w[:i], "://") {
		out = append(out, w[i+1:])
		w = w[i+1:]
	} else if i := strings.IndexByte(w, ':'); i > 0 && i < len(w)-1 && w[i+1] != '/' && ordinaryWord(w[:i]) {
		out = append(out, w[i+1:])
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
