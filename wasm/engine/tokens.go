package engine

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file finds, in a long withheld text, the words that a later output
// may quote alone: keys, ids, addresses.

// A long withheld text (minTokened bytes or more) gives tokens too: its
// words of minToken bytes or more that are specific enough to find alone.
const (
	minToken   = 8
	minTokened = 24
)

// fewTokens is how many tokens are de-duplicated by a look at each; past
// it, through a set.
const fewTokens = 8

// tokens returns the words of a long withheld text (a paragraph, a .env
// file, a URL, a line of CSV) that look like what a later output may
// quote alone: runs of letters, digits and the punctuation keys and
// addresses are made of, minToken bytes or more, that look like a key
// (keyLike). They are read twice, with and without base64's / and =, so that both
// a key in a path and a base64 key are found. A key, an id, an e-mail
// address or a card number in a text is found by itself; ordinary words
// are not, so that withholding a paragraph does not strip them from every
// later output.
func tokens(v string) []string {
	if len(v) < minTokened {
		return nil
	}
	var out []string
	// seen keeps the de-duplication linear: a text of tens of thousands
	// of words is read in one pass, not one per word found. It is made
	// once there are more than a few: most texts have one or two.
	var seen map[string]struct{}
	for _, extra := range []string{"_-.@+~", "_-.@+~/="} {
		start := -1
		for i := 0; i <= len(v); i++ {
			if i < len(v) && (isAlnum(v[i]) || strings.IndexByte(extra, v[i]) >= 0) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start < 0 {
				continue
			}
			w := strings.Trim(v[start:i], ".-_~+/=")
			start = -1
			if len(w) < minToken || len(w) >= len(v) || !keyLike(w) {
				continue
			}
			if seen == nil && len(out) >= fewTokens {
				seen = make(map[string]struct{}, 2*len(out))
				for _, o := range out {
					seen[o] = struct{}{}
				}
			}
			if seen == nil {
				if !slices.Contains(out, w) {
					out = append(out, w)
				}
			} else if _, dup := seen[w]; !dup {
				seen[w] = struct{}{}
				out = append(out, w)
			}
		}
	}
	return out
}

// keyLike reports whether a word looks like a key, an id or an address
// rather than a word, a file name or a timestamp: eight characters or
// more, with a letter beside a digit and two of each at least
// (sk_live_9f…, DE8937…, not 2024-01-15T10), an @ with a dot after it, or
// eight digits in a row.
func keyLike(w string) bool {
	if len(w) < minToken {
		return false
	}
	run, digits, letters, beside := 0, 0, 0, false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case isDigit(c):
			digits++
			if run++; run >= 8 {
				return true
			}
		case isLetter(c):
			letters++
			run = 0
		default:
			run = 0
		}
		if i > 0 && (isDigit(c) && isLetter(w[i-1]) || isLetter(c) && isDigit(w[i-1])) {
			beside = true
		}
	}
	if beside && digits >= 2 && letters >= 2 {
		return true
	}
	at := strings.IndexByte(w, '@')
	return at > 0 && strings.IndexByte(w[at:], '.') > 0
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// secretLike reports whether a value withheld only because its whole
// output was (a sensitiveHint without a schema says nothing of which of it
// is sensitive) may be a secret or an identifier, and so joins the
// session's set. It fails closed: every value does but what is plainly
// ordinary (ordinaryValue), so that withholding a profile whole does not
// strip "active", "English" or "Portugal" from every later output, nor let
// whoever writes into such an output choose words to censor, while a key,
// a PIN, a card number, an address, a name or a passphrase still joins.
func secretLike(v string) bool { return !ordinaryValue(strings.TrimSpace(v)) }

// secretLikeNumber is secretLike for a JSON number: an integer of four
// digits or more (a PIN, an account number written as a number), not an
// amount or a measure with a fraction or an exponent.
func secretLikeNumber(text string) bool {
	plain := strings.TrimPrefix(text, "-")
	return len(plain) >= minScrubLength && allDigits(plain)
}

// ordinaryValue reports whether v is plainly ordinary, one of the shapes
// docs/agent-view.md lists and nothing more: a word (ordinaryWord), a
// date with or without a time (dateValue), a time (clockValue), a
// version (versionValue) or an amount (amountValue). Digits are ASCII
// digits; anything else fails closed, and joins the session's set.
func ordinaryValue(v string) bool {
	return v != "" && (ordinaryWord(v) || dateValue(v) || clockValue(v) || versionValue(v) || amountValue(v))
}

// ordinaryWord reports whether v is a word of letters (and the marks
// that go on them), with one apostrophe, hyphen or point between letters
// and a point at its end: active, English, São, O'Brien, well-known,
// Inc. Each part between those is written as words are: in small
// letters, or a capital then small letters, or in capitals up to
// maxAcronym of them (NASA); a part that mixes them otherwise (kQzXvB, a
// key of letters) is no word. At most maxWordLetters letters in all.
func ordinaryWord(v string) bool {
	const start, letter, sep = 0, 1, 2
	prev, letters, part, capitals := start, 0, 0, 0
	for _, r := range v {
		switch {
		case unicode.IsLetter(r):
			if unicode.IsUpper(r) || unicode.IsTitle(r) {
				capitals++
				if part > 0 && capitals <= part { // a capital after a small letter
					return false
				}
			} else if capitals > 1 { // a small letter after two capitals
				return false
			}
			part++
			letters++
			prev = letter
		case unicode.Is(unicode.Mn, r) && prev == letter:
		case strings.ContainsRune("'’-.", r) && prev == letter:
			if capitals > 1 && capitals > maxAcronym {
				return false
			}
			prev, part, capitals = sep, 0, 0
		default:
			return false
		}
	}
	if capitals > 1 && capitals > maxAcronym || letters > maxWordLetters {
		return false
	}
	return prev == letter || prev == sep && strings.HasSuffix(v, ".")
}

// maxAcronym is the most capitals a part of an ordinary word holds when
// it is written in capitals alone; maxWordLetters the most letters an
// ordinary word holds.
const maxAcronym, maxWordLetters = 6, 24

// digitRun returns how many ASCII digits v starts with.
func digitRun(v string) int {
	n := 0
	for n < len(v) && isDigit(v[n]) {
		n++
	}
	return n
}

// dateValue reports whether v is a date: a year of four digits, then a
// month and a day of one or two, or a day and a month then the year,
// joined by -, / or . (2026-03-14, 14/03/2026, 14.03.2026); then, after a
// T or a space, a time (clockValue) and a zone: Z, or + or - and hours
// and minutes (2026-03-14T10:20:26Z, 2026-03-14 10:20:26+01:00).
func dateValue(v string) bool {
	var groups [3]int
	rest := v
	for k := range groups {
		n := digitRun(rest)
		if n == 0 {
			return false
		}
		groups[k], rest = n, rest[n:]
		if k < 2 {
			if rest == "" || !strings.ContainsRune("-/.", rune(rest[0])) {
				return false
			}
			rest = rest[1:]
		}
	}
	short := func(n int) bool { return n == 1 || n == 2 }
	if !(groups[0] == 4 && short(groups[1]) && short(groups[2]) || short(groups[0]) && short(groups[1]) && groups[2] == 4) {
		return false
	}
	if rest == "" {
		return true
	}
	if rest[0] != 'T' && rest[0] != ' ' {
		return false
	}
	rest = rest[1:]
	if z := strings.IndexAny(rest, "Z+-"); z >= 0 {
		zone := rest[z:]
		rest = rest[:z]
		if zone != "Z" && !zoneOffset(zone[1:]) {
			return false
		}
	}
	return clockValue(rest)
}

// zoneOffset reports whether v is a zone's hours and minutes: 0100 or
// 01:00.
func zoneOffset(v string) bool {
	return len(v) == 4 && digitRun(v) == 4 || len(v) == 5 && digitRun(v) == 2 && v[2] == ':' && digitRun(v[3:]) == 2
}

// clockValue reports whether v is a time: hours of one or two digits, and
// minutes, and seconds with a fraction of up to nine digits, each of two
// (10:30, 9:15:00, 10:20:26.125).
func clockValue(v string) bool {
	h := digitRun(v)
	if h < 1 || h > 2 || len(v) < h+3 || v[h] != ':' || digitRun(v[h+1:]) != 2 {
		return false
	}
	rest := v[h+3:]
	if rest == "" {
		return true
	}
	if rest[0] != ':' || digitRun(rest[1:]) != 2 {
		return false
	}
	rest = rest[3:]
	if rest == "" {
		return true
	}
	f := digitRun(rest[1:])
	return rest[0] == '.' && f >= 1 && f <= 9 && len(rest) == f+1
}

// versionValue reports whether v is a version: two to four groups of one
// to three digits joined by points, after a v or not (1.4.2, v2.10,
// 10.20.26.1).
func versionValue(v string) bool {
	v = strings.TrimPrefix(v, "v")
	groups := strings.Split(v, ".")
	if len(groups) < 2 || len(groups) > 4 {
		return false
	}
	for _, g := range groups {
		if n := digitRun(g); n < 1 || n > 3 || n != len(g) {
			return false
		}
	}
	return true
}

// amountValue reports whether v is an amount of fewer than twelve digits:
// a sign, a currency sign (and a space) before or after, and digits
// grouped by thousands with commas and a fraction of up to four digits
// after a point (1,520.75, 19.99, €19.99, -5.00), or grouped with points
// and a fraction of one or two after a comma (1.520,75 €, 19,99). It has a
// currency sign, a group or a fraction: digits alone (a PIN) are not an
// amount.
func amountValue(v string) bool {
	if len(v) > 0 && (v[0] == '+' || v[0] == '-') {
		v = v[1:]
	}
	marked := false
	currency := func(s string, atStart bool) string {
		var r rune
		var n int
		if atStart {
			r, n = utf8.DecodeRuneInString(s)
		} else {
			r, n = utf8.DecodeLastRuneInString(s)
		}
		if n == 0 || !unicode.Is(unicode.Sc, r) {
			return s
		}
		marked = true
		if atStart {
			return strings.TrimPrefix(s[n:], " ")
		}
		return strings.TrimSuffix(s[:len(s)-n], " ")
	}
	v = currency(v, true)
	if !marked {
		v = currency(v, false)
	}
	digits := 0
	for i := 0; i < len(v); i++ {
		if isDigit(v[i]) {
			digits++
		}
	}
	if digits >= 12 {
		return false
	}
	return groupedNumber(v, ',', '.', 4, &marked) || groupedNumber(v, '.', ',', 2, &marked)
}

// groupedNumber reports whether v is digits, grouped by thousands with
// group between them or not, then a fraction of one to maxFraction digits
// after point or none, and that v has a group, a fraction or *marked
// already set.
func groupedNumber(v string, group, point byte, maxFraction int, marked *bool) bool {
	whole, fraction, hasFraction := v, "", false
	if i := strings.IndexByte(v, point); i >= 0 {
		whole, fraction, hasFraction = v[:i], v[i+1:], true
		if n := digitRun(fraction); n < 1 || n > maxFraction || n != len(fraction) {
			return false
		}
	}
	parts := strings.Split(whole, string(group))
	if n := digitRun(parts[0]); n < 1 || n != len(parts[0]) || len(parts) > 1 && n > 3 {
		return false
	}
	for _, p := range parts[1:] {
		if len(p) != 3 || digitRun(p) != 3 {
			return false
		}
	}
	return *marked || hasFraction || len(parts) > 1
}
