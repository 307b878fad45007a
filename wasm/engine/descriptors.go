package engine

import (
	"slices"
	"strings"
)

// This file tells a descriptor from a secret among the words of a
// withheld text. A .env file or a deploy record withheld whole holds,
// beside its keys, what describes the deployment and grants nothing: a
// release's version, the commit it was built from (which the repository's
// log shows), a build number, a cloud region. Those words look like keys
// (letters beside digits, eight digits in a row), and were they to join
// the session's set on their own, every later output that names the
// version, the commit or the region would lose it. So a word of a
// withheld text does not join on its own when it is a descriptor:
//
//   - a cloud region (regionValue), by its shape alone: an area, a
//     direction and a number from short fixed lists, which a few thousand
//     values exhaust, so it carries too few bits to be a secret;
//   - the value of a name that says it is one (descriptorName: the name's
//     last word is VERSION, RELEASE, SHA, COMMIT, REVISION, BUILD or
//     REGION, and none of its words is one secrets are named by, such as
//     KEY, TOKEN or SECRET), written as such a value is (a version, seven
//     to forty hexadecimal digits in small letters, a build's digits, a
//     region), as NAME=value, NAME: value or "name": "value" write it.
//
// Anything else fails closed: a value named GIT_SHA that is not
// hexadecimal, a SIGNING_KEY_VERSION, a forty-digit hexadecimal word with
// no name or another name, all join as before. The text itself joins
// whole whatever it holds.

// descriptorKinds maps the last word of a descriptor's name to the shape
// its value must have.
var descriptorKinds = map[string]func(string) bool{
	"VERSION":  releaseValue,
	"RELEASE":  releaseValue,
	"SHA":      commitValue,
	"COMMIT":   commitValue,
	"REVISION": commitValue,
	"BUILD":    buildValue,
	"REGION":   regionValue,
}

// secretNameWords are the words that name a secret: a name that holds one
// is never a descriptor's (SIGNING_KEY_VERSION, TOKEN_SHA).
var secretNameWords = []string{
	"AUTH", "CERT", "COOKIE", "CREDENTIAL", "CREDENTIALS", "HMAC", "KEY", "OTP", "PASS", "PASSPHRASE",
	"PASSWD", "PASSWORD", "PIN", "PRIVATE", "PWD", "SALT", "SECRET", "SEED", "SESSION", "SIGNATURE",
	"SIGNING", "TOKEN",
}

// nameWords splits a name into its words in capitals: at _, -, . and
// where a small letter meets a capital (gitSha, GIT_SHA and git-sha are
// GIT SHA).
func nameWords(name string) []string {
	var words []string
	start := 0
	for i := 0; i <= len(name); i++ {
		cut := i == len(name) || name[i] == '_' || name[i] == '-' || name[i] == '.'
		camel := i > start && i < len(name) && isUpper(name[i]) && name[i-1] >= 'a' && name[i-1] <= 'z'
		if cut || camel {
			if i > start {
				words = append(words, strings.ToUpper(name[start:i]))
			}
			start = i
			if cut {
				start = i + 1
			}
		}
	}
	return words
}

// descriptor reports whether value, written after name, is a descriptor:
// name's last word is one of descriptorKinds, none of its words is one of
// secretNameWords, and value has the shape that word asks for.
func descriptor(name, value string) bool {
	words := nameWords(name)
	if len(words) == 0 || len(words) > 8 {
		return false
	}
	shape, ok := descriptorKinds[words[len(words)-1]]
	if !ok {
		return false
	}
	for _, w := range words {
		if slices.Contains(secretNameWords, w) {
			return false
		}
	}
	return shape(value)
}

// labelledDescriptor reports whether the word w is NAME=value or
// NAME:value whose value is a descriptor.
func labelledDescriptor(w string) bool {
	i := strings.IndexAny(w, "=:")
	return i > 0 && i < len(w)-1 && descriptor(w[:i], w[i+1:])
}

// labelBefore returns the name written before text[i:] as a label:
// NAME=, NAME: or NAME = (a .env or YAML line), "name": (JSON), with
// quotes and spaces around the mark; "" when none is.
func labelBefore(text string, i int) string {
	j := i
	for j > 0 && (text[j-1] == '"' || text[j-1] == '\'') {
		j--
	}
	for j > 0 && text[j-1] == ' ' && i-j < 4 {
		j--
	}
	if j == 0 || text[j-1] != '=' && text[j-1] != ':' {
		return ""
	}
	j--
	for j > 0 && text[j-1] == ' ' && i-j < 8 {
		j--
	}
	for j > 0 && (text[j-1] == '"' || text[j-1] == '\'') {
		j--
	}
	end := j
	for j > 0 && end-j < 64 && (isAlnum(text[j-1]) || text[j-1] == '_' || text[j-1] == '-' || text[j-1] == '.') {
		j--
	}
	return text[j:end]
}

// descriptorWords returns the words of text, read as tokens reads them,
// that are in a descriptor's shape, each mapped to whether every place it
// stands is after a label that makes it a descriptor (descriptor). A
// word not in the map is none. One pass over text, whatever it holds.
func descriptorWords(text string) map[string]bool {
	var m map[string]bool
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
		w = strings.TrimRight(w, ".-_~+")
		if len(w) < minToken || !(releaseValue(w) || commitValue(w) || buildValue(w) || regionValue(w)) {
			continue
		}
		ok := descriptor(labelBefore(text, at), w)
		if m == nil {
			m = map[string]bool{}
		}
		if prev, seen := m[w]; seen {
			ok = ok && prev
		}
		m[w] = ok
	}
	return m
}

// releaseValue reports whether v is a release's version: versionValue's,
// or after a v or not, one to four groups of up to eight digits joined by
// points (20260314.1, 2.14.3), then after a hyphen or a plus sign
// identifiers of up to ten letters and up to four digits after them, or
// of up to eight digits, joined by points or hyphens (2.14.3-rc1,
// 1.0.0+build.5).
func releaseValue(v string) bool {
	if versionValue(v) {
		return true
	}
	v = strings.TrimPrefix(v, "v")
	core, pre := v, ""
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		core, pre = v[:i], v[i+1:]
		if pre == "" {
			return false
		}
	}
	groups := strings.Split(core, ".")
	if len(groups) > 4 {
		return false
	}
	for _, g := range groups {
		if n := digitRun(g); n < 1 || n > 8 || n != len(g) {
			return false
		}
	}
	if pre == "" {
		return true
	}
	ids := strings.FieldsFunc(pre, func(r rune) bool { return r == '.' || r == '-' || r == '+' })
	if len(ids) > 4 || strings.ContainsAny(pre[:1]+pre[len(pre)-1:], ".-+") || strings.Contains(pre, "..") {
		return false
	}
	for _, id := range ids {
		if id == "" {
			return false
		}
		letters := 0
		for letters < len(id) && isLetter(id[letters]) {
			letters++
		}
		digits := len(id) - letters
		if digitRun(id[letters:]) != digits || letters > 10 || digits > 8 || letters > 0 && digits > 4 {
			return false
		}
	}
	return true
}

// commitValue reports whether v is a commit's hash as git writes it:
// seven to forty hexadecimal digits (or sixty-four, SHA-256's) in small
// letters.
func commitValue(v string) bool {
	if len(v) < 7 || len(v) > 40 && len(v) != 64 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isDigit(c) && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// buildValue reports whether v is a build's number: a release's version
// (releaseValue), or up to 24 digits with points, hyphens or underscores
// between groups (20260314-1432).
func buildValue(v string) bool {
	if releaseValue(v) {
		return true
	}
	if len(v) > 24 || v == "" {
		return false
	}
	for _, g := range strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '-' || r == '_' }) {
		if digitRun(g) != len(g) {
			return false
		}
	}
	return isDigit(v[0]) && isDigit(v[len(v)-1]) && !strings.Contains(v, "..") && !strings.Contains(v, "--")
}

// regionAreas, regionQualifiers and regionDirections are the words cloud
// regions are named with: AWS's us-east-1, us-gov-west-1, ap-southeast-2,
// Google Cloud's europe-west1, northamerica-northeast1.
var (
	regionAreas = []string{"af", "africa", "ap", "asia", "australia", "ca", "cn", "eu", "europe", "il", "me",
		"mx", "northamerica", "sa", "southamerica", "us"}
	regionQualifiers = []string{"gov", "iso", "isob", "isoe", "isof"}
	regionDirections = []string{"central", "east", "north", "northeast", "northwest", "south", "southeast",
		"southwest", "west"}
)

// regionValue reports whether v is a cloud region's name: an area, up to
// one qualifier, a direction and a number of one or two digits, joined by
// hyphens, the number written after the direction or on its own
// (us-east-1, eu-west-1, us-gov-west-1, europe-west1, us-central1). Some
// 16 × 6 × 9 × 99 names can be written so: a region carries too few bits
// to be anyone's secret.
func regionValue(v string) bool {
	parts := strings.Split(v, "-")
	if len(parts) < 2 || len(parts) > 4 || !slices.Contains(regionAreas, parts[0]) {
		return false
	}
	last := parts[len(parts)-1]
	word := strings.TrimRight(last, "0123456789")
	if d := len(last) - len(word); d < 1 || d > 2 {
		return false
	}
	words := slices.Clone(parts[1 : len(parts)-1])
	if word != "" {
		words = append(words, word)
	}
	if len(words) == 0 || len(words) > 2 || !slices.Contains(regionDirections, words[len(words)-1]) {
		return false
	}
	return len(words) == 1 || slices.Contains(regionQualifiers, words[0])
}
