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
//   - the whole value of a label at the top level of the text
//     (topLabels) whose whole name is one of descriptorNames, the names
//     deploy tooling writes (GIT_SHA, APP_VERSION, BUILD_NUMBER,
//     AWS_REGION…), when the value has the shape that name asks for (a
//     version, seven to forty hexadecimal digits in small letters, a
//     build's number, a region).
//
// The rule is an allow-list, as a list of the words secrets are named by
// could never be complete (APIKEY_SHA, CREDS_SHA, CLAVE_SHA): a name is
// one of descriptorNames whole or it is none, and nothing is composed of
// its words. Anything else fails closed and joins as before: a name not
// on the list, a value not of its name's shape, a label indented, under a
// YAML parent key, after an INI section or a header's name, or not first
// on its line, and a word that stands anywhere in the text other than as
// such a value. The text itself joins whole whatever it holds. A secret
// its owner wrote under one of these names at the top level of a text,
// in the shape the name asks for, is not told from a descriptor; that is
// the rule's deliberate limit.

// descriptorNames maps the names deploy tooling writes a descriptor
// under, their separators (_, -, .) dropped and in capitals, to the shape
// the value must have: a release's (Docker images, package.json, Helm),
// a commit's (git, Capistrano's REVISION, label-schema's VCS_REF, and the
// commit a CI or a host sets: GitHub Actions, GitLab CI, CircleCI,
// Bitbucket Pipelines, Heroku, Vercel, Render, Netlify), a build's, a
// region's (the AWS CLI and SDKs).
var descriptorNames = map[string]func(string) bool{
	"VERSION":            releaseValue,
	"APPVERSION":         releaseValue,
	"NODEVERSION":        releaseValue,
	"RELEASE":            releaseValue,
	"RELEASEVERSION":     releaseValue,
	"BUILD":              buildValue,
	"BUILDNUMBER":        buildValue,
	"BUILDID":            buildValue,
	"CIBUILD":            buildValue,
	"REGION":             regionValue,
	"AWSREGION":          regionValue,
	"AWSDEFAULTREGION":   regionValue,
	"GITSHA":             commitValue,
	"GITCOMMIT":          commitValue,
	"GITCOMMITSHA":       commitValue,
	"COMMITSHA":          commitValue,
	"SOURCECOMMIT":       commitValue,
	"SOURCEVERSION":      commitValue,
	"REVISION":           commitValue,
	"VCSREF":             commitValue,
	"GITHUBSHA":          commitValue,
	"CICOMMITSHA":        commitValue,
	"CIRCLESHA1":         commitValue,
	"BITBUCKETCOMMIT":    commitValue,
	"HEROKUSLUGCOMMIT":   commitValue,
	"VERCELGITCOMMITSHA": commitValue,
	"RENDERGITCOMMIT":    commitValue,
	"COMMITREF":          commitValue,
}

// descriptorShape returns the shape a value named name must have to be a
// descriptor, or nil when name is not one of descriptorNames: the whole
// name, in any case, its _, - and . dropped (git_sha, GIT-SHA, gitSha).
func descriptorShape(name string) func(string) bool {
	if name == "" || len(name) > 64 {
		return nil
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.':
		case c >= 'a' && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
		case isAlnum(c):
			b.WriteByte(c)
		default:
			return nil
		}
	}
	return descriptorNames[b.String()]
}

// descriptor reports whether value, written after name, has the shape of
// a descriptor's value and name is one of descriptorNames. Where it
// stands is topLabels' to tell.
func descriptor(name, value string) bool {
	shape := descriptorShape(name)
	return shape != nil && shape(value)
}

// labelledDescriptor reports whether the word w is NAME=value or
// NAME:value whose value is a descriptor (descriptor) that described,
// descriptorWords of the text w is in, says is one wherever it stands.
func labelledDescriptor(w string, described map[string]bool) bool {
	i := strings.IndexAny(w, "=:")
	return i > 0 && i < len(w)-1 && described[w[i+1:]] && descriptor(w[:i], w[i+1:])
}

// label is a name and the whole value written after it.
type label struct{ name, value string }

// topLabels returns the labels at the top level of text, by where their
// value starts, of those whose name is one of descriptorNames. In a JSON
// object (text starts with {), the members of the object itself whose
// value is a string. Otherwise the lines of a .env, a shell or
// Dockerfile, YAML or TOML text, each NAME=value, NAME: value or NAME =
// "value" alone on its line, first on it (after export, ENV or set) and
// not indented, before any line that opens a context: an INI section or
// a list ([…]) or a YAML parent key (a name with nothing after it), after
// which none is.
func topLabels(text string) map[int]label {
	if t := strings.TrimLeft(text, " \t\r\n"); strings.HasPrefix(t, "{") {
		return jsonTopLabels(text, len(text)-len(t))
	}
	var m map[int]label
	for at := 0; at < len(text); {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += at
		}
		line, start := strings.TrimRight(text[at:end], "\r"), at
		at = end + 1
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		if trimmed[0] == '[' {
			return m
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue
		}
		i := 0
		for _, p := range []string{"export ", "ENV ", "set "} {
			if len(line) > len(p) && strings.EqualFold(line[:len(p)], p) {
				i = len(p)
				break
			}
		}
		n := i
		for n < len(line) && (isAlnum(line[n]) || line[n] == '_' || line[n] == '-' || line[n] == '.') {
			n++
		}
		name := line[i:n]
		j := n
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if name == "" || j == len(line) || line[j] != '=' && line[j] != ':' {
			continue
		}
		j++
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		value := strings.TrimRight(line[j:], " \t")
		if value == "" {
			// A parent key: what follows is under it.
			return m
		}
		if q := value[0]; q == '"' || q == '\'' {
			if len(value) < 2 || value[len(value)-1] != q {
				continue
			}
			value, j = value[1:len(value)-1], j+1
		}
		if descriptorShape(name) != nil {
			if m == nil {
				m = map[int]label{}
			}
			m[start+j] = label{name, value}
		}
	}
	return m
}

// jsonTopLabels returns the members of the JSON object that starts at
// text[at] whose value is a string without escapes and whose name is one
// of descriptorNames, by where the value starts.
func jsonTopLabels(text string, at int) map[int]label {
	var m map[int]label
	depth, key := 0, false
	for i := at; i < len(text); i++ {
		switch c := text[i]; c {
		case '{', '[':
			depth++
			key = depth == 1 && c == '{'
		case '}', ']':
			depth--
			if depth <= 0 {
				return m
			}
		case ',':
			key = depth == 1
		case '"':
			s, e := jsonString(text, i)
			if e < 0 {
				return m
			}
			i = e
			if !key {
				continue
			}
			key = false
			j := e + 1
			for j < len(text) && strings.IndexByte(" \t\r\n", text[j]) >= 0 {
				j++
			}
			if j == len(text) || text[j] != ':' {
				return m
			}
			for j++; j < len(text) && strings.IndexByte(" \t\r\n", text[j]) >= 0; j++ {
			}
			if j == len(text) || text[j] != '"' {
				i = j - 1
				continue
			}
			v, ve := jsonString(text, j)
			if ve < 0 {
				return m
			}
			if s != "" && v != "" && descriptorShape(s) != nil {
				if m == nil {
					m = map[int]label{}
				}
				m[j+1] = label{s, v}
			}
			i = ve
		}
	}
	return m
}

// jsonString returns the content of the JSON string whose quote is at
// text[i] and the index of its closing quote; the content is "" when it
// holds an escape, and the index -1 when the string does not end.
func jsonString(text string, i int) (string, int) {
	escaped := false
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			if escaped {
				return "", j
			}
			return text[i+1 : j], j
		}
	}
	return "", -1
}

// descriptorWords returns the words of text, read as tokens reads them,
// that are in a descriptor's shape, each mapped to whether every place it
// stands is the whole value of a label topLabels gives that makes it a
// descriptor (descriptor). A word not in the map is none. One pass over
// text, whatever it holds.
func descriptorWords(text string) map[string]bool {
	var m map[string]bool
	var labels map[int]label
	read := false
	eachWord(text, func(w string, at int) {
		if len(w) < minToken || !(releaseValue(w) || commitValue(w) || buildValue(w) || regionValue(w)) {
			return
		}
		if !read {
			labels, read = topLabels(text), true
		}
		l, ok := labels[at]
		ok = ok && l.value == w && descriptor(l.name, w)
		if m == nil {
			m = map[string]bool{}
		}
		if prev, seen := m[w]; seen {
			ok = ok && prev
		}
		m[w] = ok
	})
	return m
}

// preReleaseWords are the words a version's pre-release or build
// identifiers are written with (2.14.3-rc1, 1.0.0+build.5).
var preReleaseWords = []string{"a", "alpha", "b", "beta", "build", "canary", "dev", "final", "hotfix", "lts",
	"next", "nightly", "patch", "pre", "preview", "rc", "release", "snapshot", "stable"}

// releaseValue reports whether v is a release's version: versionValue's,
// or after a v or not, one to four groups of up to four digits joined by
// points (2.14.3), then after a hyphen or a plus sign up to twelve
// characters of identifiers joined by points or hyphens, each up to four
// digits or one of preReleaseWords and up to four digits after it
// (2.14.3-rc1, 1.0.0+build.5). A random run of letters or digits is none.
func releaseValue(v string) bool {
	if versionValue(v) {
		return true
	}
	v = strings.TrimPrefix(v, "v")
	core, pre := v, ""
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		core, pre = v[:i], v[i+1:]
		if pre == "" || len(pre) > 12 {
			return false
		}
	}
	groups := strings.Split(core, ".")
	if len(groups) > 4 {
		return false
	}
	for _, g := range groups {
		if n := digitRun(g); n < 1 || n > 4 || n != len(g) {
			return false
		}
	}
	if pre == "" {
		return true
	}
	if strings.ContainsAny(pre[:1]+pre[len(pre)-1:], ".-+") {
		return false
	}
	for _, id := range strings.FieldsFunc(pre, func(r rune) bool { return r == '.' || r == '-' || r == '+' }) {
		letters := 0
		for letters < len(id) && isLetter(id[letters]) {
			letters++
		}
		digits := len(id) - letters
		if id == "" || digitRun(id[letters:]) != digits || digits > 4 ||
			letters > 0 && !slices.Contains(preReleaseWords, strings.ToLower(id[:letters])) {
			return false
		}
	}
	return true
}

// commitValue reports whether v is a commit's hash as git writes it:
// seven to forty hexadecimal digits in small letters, at least one a
// letter (a number of digits alone is no commit of git's to tell).
// SHA-256's sixty-four digits are none: an HMAC or a webhook's secret is
// written so, and git's SHA-256 repositories are rare.
func commitValue(v string) bool {
	if len(v) < 7 || len(v) > 40 {
		return false
	}
	letter := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'f' {
			letter = true
		} else if !isDigit(c) {
			return false
		}
	}
	return letter
}

// buildValue reports whether v is a build's number: a release's version
// (releaseValue), up to ten digits (a CI's counter), or a date's eight
// digits, 19YYMMDD or 20YYMMDD, then after a point or a hyphen up to four
// digits (20260314.1, 20260314-1432). A card's sixteen digits are none.
func buildValue(v string) bool {
	if releaseValue(v) {
		return true
	}
	if n := digitRun(v); n == len(v) {
		return n >= 1 && n <= 10
	}
	if len(v) < 10 || (v[8] != '.' && v[8] != '-') || digitRun(v[:8]) != 8 || v[:2] != "19" && v[:2] != "20" {
		return false
	}
	month, day := v[4:6], v[6:8]
	if month < "01" || month > "12" || day < "01" || day > "31" {
		return false
	}
	n := digitRun(v[9:])
	return n >= 1 && n <= 4 && n == len(v)-9
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
