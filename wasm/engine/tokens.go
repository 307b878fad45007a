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

// secretLikeNumber reports whether a JSON number withheld only because
// its whole output was may be a secret or an identifier, and so joins the
// session's set: an integer of four digits or more (a PIN, an account
// number written as a number), also when written with a fraction of
// zeros (88231907.0, as a float column writes it), but for a year (four
// digits from 1900 to 2099, yearValue); not an amount or a measure with
// a fraction or an exponent.
func secretLikeNumber(text string) bool {
	plain := strings.TrimPrefix(text, "-")
	if whole, fraction, ok := strings.Cut(plain, "."); ok && fraction != "" && strings.Trim(fraction, "0") == "" {
		plain = whole
	}
	return len(plain) >= minScrubLength && allDigits(plain) && !yearValue(plain)
}

// ordinaryValue reports whether v is plainly ordinary, one of the shapes
// docs/agent-view.md lists and nothing more: a word (ordinaryWord), a
// date with or without a time (dateValue), a time with or without a zone
// (clockZoneValue), a zone's offset (zoneValue), a version
// (versionValue), an amount (amountValue), a percentage (percentValue),
// a MIME type (mimeValue), a time zone's name (zoneIDValue) or a cloud
// region's (regionValue, descriptors.go). Digits are
// ASCII digits; anything else fails closed, and joins the session's set.
func ordinaryValue(v string) bool {
	return v != "" && (ordinaryWord(v) || dateValue(v) || clockZoneValue(v) || zoneValue(v) || versionValue(v) ||
		amountValue(v) || percentValue(v) || mimeValue(v) || zoneIDValue(v) || regionValue(v))
}

// ordinaryWord reports whether v is a word of letters (and the marks
// that go on them), with apostrophes, points and one hyphen or underscore
// between letters, and a point at its end: active, English, São, O'Brien,
// well-known, Inc., in_progress, pt_PT. Each part between those is
// written as words are: in small letters, or a capital then small
// letters, or in capitals, up to maxAcronym of them (NASA) unless the
// word is two parts an underscore alone joins (PENDING_REVIEW); a part
// that mixes them otherwise (kQzXvB, a key of letters) is no word. Two
// hyphens or underscores make a passphrase (qwhz-mtkr-plsn-bvcx,
// unsaid-unreal-flask), not a word; so does a run of ten ASCII letters or
// more with fewer than one vowel (a, e, i, o, u, y) in five
// (qwhzmtkrplsnbvcx). At most maxWordLetters letters in all.
func ordinaryWord(v string) bool {
	body := strings.TrimSuffix(v, ".")
	if body == "" || strings.Count(body, "-")+strings.Count(body, "_") > 1 {
		return false
	}
	snake := strings.Contains(body, "_") && !strings.ContainsAny(body, "'’.-")
	letters := 0
	for _, part := range strings.FieldsFunc(body, func(r rune) bool { return strings.ContainsRune("'’.-_", r) }) {
		n, ok := wordPart(part, snake)
		if !ok {
			return false
		}
		letters += n
	}
	// FieldsFunc drops empty parts: a separator at an end or two in a
	// row is no word.
	for k, r := range body {
		if strings.ContainsRune("'’.-_", r) {
			next, _ := utf8.DecodeRuneInString(body[k+utf8.RuneLen(r):])
			if k == 0 || k+utf8.RuneLen(r) == len(body) || strings.ContainsRune("'’.-_", next) {
				return false
			}
		}
	}
	return letters <= maxWordLetters
}

// wordPart reports whether part is written as a word's part is, and how
// many letters it holds. snake: the word is two parts an underscore
// alone joins, whose capitals are not counted.
func wordPart(part string, snake bool) (int, bool) {
	letters, capitals := 0, 0
	// run and vowels: the run of ASCII letters that ends here, and its
	// vowels.
	run, vowels := 0, 0
	prevLetter := false
	endRun := func() bool {
		ok := run < 10 || 5*vowels >= run
		run, vowels = 0, 0
		return ok
	}
	for _, r := range part {
		switch {
		case unicode.IsLetter(r):
			if unicode.IsUpper(r) || unicode.IsTitle(r) {
				if letters > capitals { // a capital after a small letter
					return 0, false
				}
				capitals++
			} else if capitals > 1 { // a small letter after two capitals
				return 0, false
			}
			if r < utf8.RuneSelf {
				run++
				if strings.ContainsRune("aeiouyAEIOUY", r) {
					vowels++
				}
			} else if !endRun() {
				return 0, false
			}
			letters++
			prevLetter = true
		case unicode.Is(unicode.Mn, r) && prevLetter:
			if !endRun() {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	if !endRun() || capitals > 1 && capitals > maxAcronym && !snake {
		return 0, false
	}
	return letters, letters > 0
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
// and hours, or hours and minutes (2026-03-14T10:20:26Z,
// 2026-03-14 10:20:26+01:00, 2026-03-14 10:20:26.123456+01). The month
// is 1 to 12 and the day 1 to 31.
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
	// A month and a day: 1 to 12 and 1 to 31, in either order when the
	// year is last (14/03/2026, 03/14/2026); 4821-93-07 is no date.
	num := func(s string) int {
		n := 0
		for i := 0; i < len(s) && isDigit(s[i]); i++ {
			n = 10*n + int(s[i]-'0')
		}
		return n
	}
	a := num(v[groups[0]+1:])
	b := num(v[groups[0]+groups[1]+2:])
	if groups[0] != 4 {
		x, y := num(v), a
		if x < 1 || y < 1 || !(x <= 12 && y <= 31 || y <= 12 && x <= 31) {
			return false
		}
	} else if a < 1 || a > 12 || b < 1 || b > 31 {
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
		if zone != "Z" && !zoneValue(zone) {
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

// clockValue reports whether v is a time: hours of one or two digits up
// to 23, and minutes, and seconds with a fraction of up to nine digits,
// each of two up to 59 (10:30, 9:15:00, 10:20:26.125).
func clockValue(v string) bool {
	h := digitRun(v)
	if h < 1 || h > 2 || len(v) < h+3 || v[h] != ':' || digitRun(v[h+1:]) != 2 || atoiDigits(v[:h]) > 23 || v[h+1] > '5' {
		return false
	}
	rest := v[h+3:]
	if rest == "" {
		return true
	}
	if rest[0] != ':' || digitRun(rest[1:]) != 2 || rest[1] > '5' {
		return false
	}
	rest = rest[3:]
	if rest == "" {
		return true
	}
	f := digitRun(rest[1:])
	return rest[0] == '.' && f >= 1 && f <= 9 && len(rest) == f+1
}

// atoiDigits returns the value of the ASCII digits d.
func atoiDigits(d string) int {
	n := 0
	for i := 0; i < len(d); i++ {
		n = 10*n + int(d[i]-'0')
	}
	return n
}

// versionValue reports whether v is a version: two or three groups of one
// to three digits joined by points, after a v or not (1.4.2, v2.10), and
// after a hyphen a pre-release, identifiers of letters (up to ten) or of
// digits (up to three) joined by points (1.4.2-beta.1, 2.0.0-rc.2). Four
// groups are an IPv4 address as often as a version, and are none.
func versionValue(v string) bool {
	v = strings.TrimPrefix(v, "v")
	v, pre, hasPre := strings.Cut(v, "-")
	groups := strings.Split(v, ".")
	if len(groups) < 2 || len(groups) > 3 {
		return false
	}
	for _, g := range groups {
		if n := digitRun(g); n < 1 || n > 3 || n != len(g) {
			return false
		}
	}
	if !hasPre {
		return true
	}
	for _, id := range strings.Split(pre, ".") {
		letters := 0
		for letters < len(id) && isLetter(id[letters]) {
			letters++
		}
		if !(letters == len(id) && letters >= 1 && letters <= 10) && !(digitRun(id) == len(id) && len(id) >= 1 && len(id) <= 3) {
			return false
		}
	}
	return true
}

// clockZoneValue reports whether v is a time (clockValue), then Z or a
// zone's offset (zoneValue) or none: 10:20:26Z, 10:20:26.123456+01.
func clockZoneValue(v string) bool {
	if z := strings.IndexAny(v, "Z+-"); z >= 0 {
		return clockValue(v[:z]) && (v[z:] == "Z" || zoneValue(v[z:]))
	}
	return clockValue(v)
}

// zoneValue reports whether v is a zone's offset: + or -, then hours of
// two digits up to 14, and minutes 00, 15, 30 or 45 after a colon or not
// (+01, +0000, -03:30).
func zoneValue(v string) bool {
	if len(v) < 3 || v[0] != '+' && v[0] != '-' {
		return false
	}
	v = v[1:]
	if digitRun(v) < 2 || (v[0]-'0')*10+(v[1]-'0') > 14 {
		return false
	}
	if len(v) == 2 {
		return true
	}
	if !zoneOffset(v) {
		return false
	}
	m := v[len(v)-2:]
	return m == "00" || m == "15" || m == "30" || m == "45"
}

// percentValue reports whether v is a percentage: one to three digits, a
// fraction of one or two after a point or none, and % (12.5%, 100%).
func percentValue(v string) bool {
	v, ok := strings.CutSuffix(v, "%")
	if !ok {
		return false
	}
	whole, fraction, hasFraction := strings.Cut(v, ".")
	if n := digitRun(whole); n < 1 || n > 3 || n != len(whole) {
		return false
	}
	n := digitRun(fraction)
	return !hasFraction || n >= 1 && n <= 2 && n == len(fraction)
}

// mimeTops are the top-level types of MIME types.
var mimeTops = []string{"application", "audio", "font", "image", "message", "model", "multipart", "text", "video"}

// mimeValue reports whether v is a MIME type: a top-level type IANA
// registers, then a subtype of small letters, digits, points, hyphens and
// plus signs (application/json, image/svg+xml).
func mimeValue(v string) bool {
	top, sub, ok := strings.Cut(v, "/")
	if !ok || sub == "" || !slices.Contains(mimeTops, top) {
		return false
	}
	for i := 0; i < len(sub); i++ {
		if c := sub[i]; !(c >= 'a' && c <= 'z' || isDigit(c) || c == '.' || c == '-' || c == '+') {
			return false
		}
	}
	return true
}

// zoneAreas are the areas of the time zone database's names.
var zoneAreas = []string{"Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific"}

// zoneIDValue reports whether v is a time zone's name: an area of the
// time zone database, then one or two places, each a capital then
// letters with underscores or hyphens between words (Europe/Lisbon,
// America/Argentina/Buenos_Aires, America/Port-au-Prince).
func zoneIDValue(v string) bool {
	parts := strings.Split(v, "/")
	if len(parts) < 2 || len(parts) > 3 || !slices.Contains(zoneAreas, parts[0]) {
		return false
	}
	for _, p := range parts[1:] {
		if p == "" || !isUpper(p[0]) {
			return false
		}
		for _, w := range strings.FieldsFunc(p, func(r rune) bool { return r == '_' || r == '-' }) {
			if n, ok := wordPart(w, false); !ok || n > maxWordLetters {
				return false
			}
		}
		if strings.Contains(p, "__") || strings.HasSuffix(p, "_") || strings.HasSuffix(p, "-") {
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
