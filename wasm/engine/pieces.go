package engine

import (
	"bytes"
	"encoding/hex"
	"math"
	"net/url"
	"slices"
	"strings"
)

// This file finds a piece of a withheld key. A tool that reads by offset
// and length (read_log({offset, length})) hands a key back in slices, and
// no slice is the whole value, so the value's own needles find none. A
// key-like value therefore adds needles of its own pieces: from each of its
// characters, the shortest run that carries minPieceBits bits. A later
// output that holds a piece that long, as a whole string or inside one,
// loses it, as it would lose the key.
//
// What is not a piece: a run of words or marks (a key's "sk_live_"
// prefix, which every key of its kind shares), a run shorter than
// minPiece characters, a run that holds a date, and what a key shares
// with other values by its design (secretPart): a JWT's header and
// claims, a Stripe key's account, a ULID's time, a UUID v1 and an
// ObjectId, whose parts are the time, the host and the process. Nor are
// the pieces of a PEM block's lines (whose first bytes every key of its
// kind shares, and whose public half a certificate repeats), or of a
// text's tokens when it is a URL, whose paths other URLs share; a URL's
// password and query values are pieced instead.

const (
	// minPiece is the fewest characters a piece has: an agent needs a
	// key of 32 characters in at least five reads.
	minPiece = 8
	// maxPiece is the most: a run that needs more to reach minPieceBits
	// is not random enough to be told from what other values hold.
	maxPiece = 16
	// minPieceBits is the fewest bits of a piece, counted by its alphabet
	// (pieceBits): eight letters and digits, ten hexadecimal digits,
	// thirteen decimal ones. A run that specific does not appear by
	// chance in an output: one in 2⁴⁰.
	minPieceBits = 40
	// maxPieced is the longest value whose pieces are added: a key, a
	// token's signature (an RS512 one has 683 characters), a session
	// token; not a text or a certificate.
	maxPieced = 1024
	// maxSetPieces bounds the pieces a set holds, about 64 bytes each:
	// 1 MiB, the pieces of five hundred keys of 40 characters. Past it,
	// the pieces of later keys are not added (agent-view.md says so);
	// their values still are, to the set's own bound.
	maxSetPieces = 1 << 14
)

// addPieces adds the pieces of v's secret part (secretPart), when that is
// key-like (pieceable) and written in key characters alone (keyChars), as
// exact needles.
func (s *scrubSet) addPieces(v string) {
	v = secretPart(v)
	if len(v) <= minPiece || len(v) > maxPieced || !keyChars(v) || !pieceable(v) {
		return
	}
	var buf [4 * maxPiece]byte
	for i := 0; i+minPiece <= len(v) && s.pieces < maxSetPieces; i++ {
		if strings.IndexByte(passwordMarks, v[i]) >= 0 {
			continue
		}
		n := pieceAt(v[i:])
		if n == 0 || n == len(v) || holdsDate(v[i:i+n]) {
			continue
		}
		// As written, and by its skeleton: spaced, grouped or listed
		// one character a string as the key itself would be found.
		before := s.exact.n + s.skel.n
		s.exact.add(appendLower(buf[:0], v[i:i+n]), boundNone, 0, 0)
		if sk := appendSkeleton(buf[:0], v[i:i+n]); len(sk) >= minSkeleton {
			s.skel.add(sk, boundNone, 0, 0)
		}
		s.pieces += s.exact.n + s.skel.n - before
	}
}

// addPEMPieces adds the pieces of what a PEM private key's text holds of
// its secret numbers (privateKeyParts): the base64 characters of each
// line that encode a secret number's bytes alone, and each number in
// hexadecimal. A read by offset of the key's lines or of openssl's dump
// of a number holds one; the lines of the key's header and its public
// half (a modulus, a public point), which a certificate or the public
// key repeats, add none.
func (s *scrubSet) addPEMPieces(v string) {
	for rest := v; ; {
		i := strings.Index(rest, "-----BEGIN ")
		if i < 0 || len(rest) > maxPEMKey {
			return
		}
		block := rest[i:]
		end := strings.Index(block, "-----END ")
		if end < 0 {
			return
		}
		if k := strings.Index(block[end+len("-----END "):], "-----"); k >= 0 {
			end += len("-----END ") + k + len("-----")
		}
		rest = block[end:]
		block = block[:end]
		parts := privateKeyParts(block)
		_, body, _ := strings.Cut(block[len("-----BEGIN "):], "-----")
		body = body[:max(0, strings.Index(body, "-----END "))]
		der, ok := pemBody(body)
		if !ok {
			continue
		}
		lines := strings.Fields(body)
		for _, p := range parts {
			s.addPieces(hex.EncodeToString(p))
			a := bytes.Index(der, p)
			if a < 0 {
				continue
			}
			// The characters that encode bytes of p alone: whole groups
			// of four within its bytes.
			c0, c1 := (a+2)/3*4, (a+len(p))/3*4
			at := 0
			for _, line := range lines {
				lo, hi := max(c0, at), min(c1, at+len(line))
				if hi-lo > minPiece {
					s.addPieces(line[lo-at : hi-at])
				}
				at += len(line)
			}
		}
	}
}

// pieceable reports whether v is random enough to piece: key-like
// (keyLike), or twenty characters or more with a digit that carry twice
// minPieceBits (an AWS secret key with one digit), or random letters
// (randomLetters); and not an e-mail address, whose name and domain are
// words other addresses share.
func pieceable(v string) bool {
	if mailAddress(v) {
		return false
	}
	return keyLike(v) || len(v) >= 20 && strings.ContainsAny(v, "0123456789") && pieceBits(v) >= 2*minPieceBits || randomLetters(v)
}

// mailAddress reports whether v ends in @ and a domain: labels of
// letters, digits and hyphens, a point between them.
func mailAddress(v string) bool {
	at := strings.LastIndexByte(v, '@')
	if at < 0 {
		return false
	}
	d := v[at+1:]
	if !strings.Contains(d, ".") || strings.HasPrefix(d, ".") || strings.HasSuffix(d, ".") {
		return false
	}
	for i := 0; i < len(d); i++ {
		if c := d[i]; !isAlnum(c) && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// randomLetters reports whether v is a token of letters alone drawn at
// random (BSTJnQgZpRlCdNXzDOULFqEBsNjTZKEC) rather than words: twenty
// letters or more, between a quarter and three quarters of them
// capitals (words in CamelCase have one a word, words in capitals all),
// and fewer than one in three vowels (a e i o u y: English words have
// two in five, random letters about one in four).
func randomLetters(v string) bool {
	if len(v) < 20 {
		return false
	}
	capitals, vowels := 0, 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isLetter(c) {
			return false
		}
		if isUpper(c) {
			capitals++
		}
		if strings.IndexByte("aeiouyAEIOUY", c) >= 0 {
			vowels++
		}
	}
	return 4*capitals >= len(v) && 4*capitals <= 3*len(v) && 3*vowels < len(v)
}

// addURLPieces adds the pieces of what in a withheld URL is secret: its
// password and its query's values.
func (s *scrubSet) addURLPieces(v string) {
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || u.Scheme == "" {
		return
	}
	if pw, ok := u.User.Password(); ok {
		s.addPieces(pw)
	}
	if _, secret := slackWebhook(v); secret != "" {
		s.addPieces(secret)
	}
	for name, vs := range u.Query() {
		// An access key's id (X-Amz-Credential), which its owner's
		// listings show, is no secret.
		if n := strings.ToLower(name); strings.Contains(n, "credential") || strings.Contains(n, "keyid") || strings.Contains(n, "key_id") {
			continue
		}
		for _, x := range vs {
			s.addPieces(x)
		}
	}
}

// isLink reports whether v is a URL alone: a scheme, ://, and no white
// space.
func isLink(v string) bool {
	v = strings.TrimSpace(v)
	i := strings.Index(v, "://")
	return i > 0 && i <= 16 && !strings.ContainsAny(v, " \t\r\n") && isLetter(v[0])
}

// slackWebhook returns the ids a Slack incoming webhook's URL carries
// and its secret, or nothing when v is no such URL
// (https://hooks.slack.com/services/T…/B…/secret). The ids are the
// workspace's (T…, which every link into the workspace and every answer
// of Slack's API shows) and the webhook's (B…, which the workspace's app
// settings list): identifiers, which grant nothing without the secret.
func slackWebhook(v string) (ids []string, secret string) {
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || u.Scheme != "https" || !strings.EqualFold(u.Host, "hooks.slack.com") {
		return nil, ""
	}
	seg := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	if len(seg) != 4 || seg[0] != "services" || !slackID(seg[1], 'T') || !slackID(seg[2], 'B') || seg[3] == "" {
		return nil, ""
	}
	return seg[1:3], seg[3]
}

// slackID reports whether id is a Slack id of the kind its first letter
// says: that capital, then eight to twelve capitals and digits.
func slackID(id string, kind byte) bool {
	if len(id) < 9 || len(id) > 13 || id[0] != kind {
		return false
	}
	for i := 1; i < len(id); i++ {
		if !isUpper(id[i]) && !isDigit(id[i]) {
			return false
		}
	}
	return true
}

// pathWords returns the words of text, read as tokens first reads them,
// each mapped to whether it first stands as a segment of a path (after a
// slash), which other paths share: a webhook's ids. One pass over text;
// nil when text has no slash.
func pathWords(text string) map[string]bool {
	if strings.IndexByte(text, '/') < 0 {
		return nil
	}
	m := map[string]bool{}
	eachWord(text, func(w string, at int) {
		if _, seen := m[w]; !seen && len(w) >= minToken {
			m[w] = at > 0 && text[at-1] == '/'
		}
	})
	return m
}

// eachWord calls f with each word of text as tokens first reads them (a
// run of letters, digits and _-.@+~, its leading and trailing .-_~+
// trimmed) and the offset where it starts, in one pass over text.
func eachWord(text string, f func(w string, at int)) {
	start := -1
	for i := 0; i <= len(text); i++ {
		if i < len(text) && (isAlnum(text[i]) || strings.IndexByte("_-.@+~", text[i]) >= 0) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start < 0 {
			continue
		}
		w := strings.TrimLeft(text[start:i], ".-_~+")
		at := i - len(w) // where w starts, its marks trimmed
		start = -1
		f(strings.TrimRight(w, ".-_~+"), at)
	}
}

// secretPart is the part of v that is secret, or "" when none is: the
// value of NAME=value; a JWT's signature and the last of any such three
// dotted parts (SendGrid's SG.id.secret), since the others are base64 of
// JSON other tokens share, or an id an API lists; a Stripe key past its
// account; a ULID past its time; none of a UUID v1, an ObjectId, or a
// value that starts with a date.
func secretPart(v string) string {
	if i := strings.IndexByte(v, '='); i > 0 && i < len(v)-1 && v[i+1] != '=' && isLetter(v[0]) && strings.Trim(v[:i], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.") == "" {
		if descriptor(v[:i], v[i+1:]) {
			// GIT_SHA=3f9a…: a commit, a version, a build, a region.
			return ""
		}
		v = v[i+1:]
	}
	if strings.Count(v, ".") == 2 {
		// Not a host's name and a path after it (hooks.slack.com/…):
		// a token's last part is base64url, which has no slash.
		if last := v[strings.LastIndexByte(v, '.')+1:]; len(last) >= 16 && !strings.Contains(last, "/") {
			return last
		}
	}
	switch {
	case holdsDate(v[:min(len(v), 7)]):
		// A time (X-Amz-Date=20260314T153045Z), which another value
		// of the same minute shares.
		return ""
	case stripeKey(v):
		return v[min(len(v), stripeAccountEnd):]
	case ulid(v):
		return v[10:]
	case uuidV1(v), objectID(v):
		return ""
	}
	return v
}

// stripeAccountEnd is where a Stripe key's account ends: sk_live_5, then
// the 16 characters that end the account's id (acct_1HqLyjWDarjtT1zd).
const stripeAccountEnd = len("sk_live_5") + 16

// stripeKey reports whether v is a Stripe key that carries its account.
func stripeKey(v string) bool {
	for _, p := range []string{"sk_", "pk_", "rk_"} {
		for _, m := range []string{"live_5", "test_5"} {
			if strings.HasPrefix(v, p+m) {
				return true
			}
		}
	}
	return false
}

// ulid reports whether v is a ULID: 26 characters of Crockford's base32,
// the first ten the time.
func ulid(v string) bool {
	if len(v) != 26 || v[0] > '7' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i] | 0x20; !isDigit(v[i]) && (c < 'a' || c > 'z' || c == 'i' || c == 'l' || c == 'o' || c == 'u') {
			return false
		}
	}
	return true
}

// uuidV1 reports whether v is a UUID of version 1 (time, clock and host).
func uuidV1(v string) bool {
	return len(v) == 36 && v[14] == '1' && hexDashes(v, 8, 13, 18, 23)
}

// objectID reports whether v is a MongoDB ObjectId: 24 hexadecimal digits
// of time, process and counter.
func objectID(v string) bool {
	return len(v) == 24 && hexDashes(v)
}

// hexDashes reports whether v is hexadecimal digits but for dashes at the
// offsets given.
func hexDashes(v string, dashes ...int) bool {
	for i := 0; i < len(v); i++ {
		if slices.Contains(dashes, i) {
			if v[i] != '-' {
				return false
			}
		} else if c := v[i] | 0x20; !isDigit(v[i]) && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// holdsDate reports whether p holds a date: a year from 1900 to 2099
// followed by a month, with a mark between (2026-12) or none (202612).
func holdsDate(p string) bool {
	for i := 0; i+6 <= len(p); i++ {
		if !(p[i] == '1' && p[i+1] == '9' || p[i] == '2' && p[i+1] == '0') || !allDigits(p[i+2:i+4]) {
			continue
		}
		m := p[i+4:]
		if m[0] == '-' || m[0] == '/' || m[0] == '.' || m[0] == '_' {
			m = m[1:]
		}
		if len(m) >= 2 && allDigits(m[:2]) && (m[0] == '0' && m[1] != '0' || m[0] == '1' && m[1] <= '2') {
			return true
		}
	}
	return false
}

// keyChars reports whether v is written the way keys and generated
// passwords are: letters, digits and pieceMarks alone, and not as a
// file's name or a URL (a leading ., or //), whose parts others share. A
// leading / is base64's as often as a path's.
func keyChars(v string) bool {
	if v[0] == '.' || strings.Contains(v, "//") {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isDigit(c) && !isLetter(c) && strings.IndexByte(pieceMarks, c) < 0 {
			return false
		}
	}
	return true
}

// keyPart is the part of v that is secret: a JWT's signature (its header
// and claims are base64 of JSON that other tokens share), else v.
func keyPart(v string) string {
	if strings.HasPrefix(v, "eyJ") && strings.Count(v, ".") == 2 {
		return v[strings.LastIndexByte(v, '.')+1:]
	}
	return v
}

// pieceAt returns the length of the shortest piece that starts v: at
// least minPiece characters and at most maxPiece, of the characters keys
// are made of, that carries minPieceBits bits (pieceBits). It returns 0
// when no run does.
func pieceAt(v string) int {
	for n := 1; n <= min(len(v), maxPiece); n++ {
		if c := v[n-1]; !isDigit(c) && !isLetter(c) && strings.IndexByte(pieceMarks, c) < 0 {
			return 0
		}
		if n >= minPiece && pieceBits(v[:n]) >= minPieceBits {
			return n
		}
	}
	return 0
}

// pieceMarks are the marks keys are written with besides letters and
// digits, and the symbols a password generator adds to them
// (xK9#mP2$vL8@qR4!); they carry no bits of their own, so a piece of a
// password is counted by its letters and digits alone. Quotes,
// backslashes and white space are no key's: a value that holds them is a
// text, not a key.
const pieceMarks = keyMarks + passwordMarks

// keyMarks are the marks of keys; passwordMarks those a password
// generator adds. No piece starts with one of passwordMarks: the piece
// from the next character holds as many bits, and a later text keeps
// the mark (a # before a token, a bracket around it).
const keyMarks, passwordMarks = "_-.+/=~", "!#$%&*?@^|:;,()[]{}<>"

// pieceBits is how many bits a run of key characters carries. It counts
// the characters of its random-looking parts between marks (randomPart):
// 3.3 bits a digit of a part of digits, and each character of the other
// parts by their alphabet, letters in either case alike (the exact
// needles find them in any case): 4 bits when they are all hexadecimal,
// 4.7 when letters alone, 5.2 otherwise. What an issuer writes in every
// key (sk_live_, ghp_, AKIA) counts nothing, and a date's digits count
// as few as they are.
func pieceBits(p string) float64 {
	digits, n, hex, letters := 0, 0, true, true
	for part := range strings.FieldsFuncSeq(p, func(r rune) bool { return strings.ContainsRune(pieceMarks, r) }) {
		if !randomPart(part) {
			continue
		}
		if allDigits(part) {
			digits += len(part)
			continue
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; isDigit(c) {
				letters = false
			} else {
				hex = hex && c|0x20 <= 'f'
			}
		}
		n += len(part)
	}
	per := math.Log2(36)
	switch {
	case hex:
		per = 4
	case letters:
		per = math.Log2(26)
	}
	return math.Log2(10)*float64(digits) + per*float64(n)
}

// randomPart reports whether a part of a key between marks looks random
// rather than like a word: it has a digit, or its letters are not all of
// one case, nor one capital and then small letters (xKqPmZtR, WBODJPpafk;
// not live, PASSWORD or Password).
func randomPart(part string) bool {
	upper := 0
	for i := 0; i < len(part); i++ {
		if isDigit(part[i]) {
			return true
		}
		if part[i] < 'a' {
			upper++
		}
	}
	capital := upper == 1 && part[0] < 'a'
	return upper > 0 && upper < len(part) && !capital
}
