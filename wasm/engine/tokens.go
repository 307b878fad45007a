package engine

import (
	"slices"
	"strings"
	"unicode"
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

// ordinaryValue reports whether v is a single word of letters (with the
// apostrophes, hyphens and points words and names have: "active",
// "English", "O'Brien", "well-known"), or a date, a time, a version or an
// amount: digits with points, commas, colons, slashes or a currency sign,
// or a date of dashes (2026-03-14, 10:30, 1.4.2, €19.99, 1,520.75), of
// fewer than twelve digits (a card number written with points is not).
func ordinaryValue(v string) bool {
	if v == "" {
		return false
	}
	word, number := true, true
	digits, marked := 0, false
	for i, r := range v {
		switch {
		case unicode.IsLetter(r) || unicode.Is(unicode.Mn, r):
			number = number && (r == 'T' || r == 'Z') && i > 0
		case unicode.IsDigit(r):
			word = false
			digits++
		case strings.ContainsRune("'’-.", r) && i > 0:
			marked = marked || r == '.'
		case strings.ContainsRune(",:/", r) || unicode.Is(unicode.Sc, r):
			word = false
			marked = true
		case r == ' ' || r == '+' || r == '-' && i == 0:
			word = false
		default:
			return false
		}
	}
	if word {
		return true
	}
	return number && digits > 0 && (dateLike(v) || marked && digits < 12)
}

// dateLike reports whether v, digits and separators, reads as a date: a
// year of four digits and two groups of one or two, in either order
// (2026-03-14, 14 03 2026), and a time after it.
func dateLike(v string) bool {
	var groups []int
	n := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && isDigit(v[i]) {
			n++
			continue
		}
		if n > 0 {
			groups = append(groups, n)
		}
		n = 0
	}
	if len(groups) < 3 {
		return false
	}
	return groups[0] == 4 && groups[1] <= 2 && groups[2] <= 2 || groups[2] == 4 && groups[0] <= 2 && groups[1] <= 2
}
