package engine

import (
	"regexp"
	"strings"
	"unicode"
)

// The shapes docs/agent-view.md calls ordinary, written from the docs
// apart from the engine's own test of them (hintedParts, ordinaryValue):
// a value whose words are all of these shapes, withheld only because its
// whole output was, is not promised to stay out of later outputs, and
// FuzzSession does not look for it there; nor is a value whose skeleton
// is an ordinary word promised but as written. Every other value it does
// look for, so an engine that called more ordinary than the docs do would
// be caught leaking.
var (
	docCapital  = `[\p{Lu}\p{Lt}]\p{Mn}*`
	docSmall    = `[\p{Ll}\p{Lo}\p{Lm}]\p{Mn}*`
	docPart     = `(?:(?:` + docCapital + `){1,6}|(?:` + docCapital + `)?(?:` + docSmall + `)+)`
	docWord     = regexp.MustCompile(`^` + docPart + `(?:['’._-]` + docPart + `)*\.?$`)
	docSnake    = regexp.MustCompile(`^(?:(?:` + docCapital + `)+|(?:` + docCapital + `)?(?:` + docSmall + `)+)_(?:(?:` + docCapital + `)+|(?:` + docCapital + `)?(?:` + docSmall + `)+)$`)
	docLetter   = regexp.MustCompile(`\pL`)
	docASCIIRun = regexp.MustCompile(`[A-Za-z]{10,}`)
	docZone     = `[+-](?:0\d|1[0-4])(?::?(?:00|15|30|45))?`
	docClock    = `(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?`
	docMonth    = `(?:0?[1-9]|1[0-2])`
	docDay      = `(?:0?[1-9]|[12]\d|3[01])`
	docDate     = regexp.MustCompile(`^(?:\d{4}[-/.]` + docMonth + `[-/.]` + docDay + `|(?:` + docDay + `[-/.]` + docMonth + `|` + docMonth + `[-/.]` + docDay + `)[-/.]\d{4})(?:[T ]` + docClock + `(?:Z|` + docZone + `)?)?$`)
	docTime     = regexp.MustCompile(`^` + docClock + `(?:Z|` + docZone + `)?$`)
	docZoneOnly = regexp.MustCompile(`^` + docZone + `$`)
	docVersion  = regexp.MustCompile(`^v?\d{1,3}(?:\.\d{1,3}){1,2}(?:-(?:[A-Za-z]{1,10}|\d{1,3})(?:\.(?:[A-Za-z]{1,10}|\d{1,3}))*)?$`)
	docAmount   = regexp.MustCompile(`^[+-]?(?:\p{Sc} ?)?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,4})?|(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d{1,2})?)(?: ?\p{Sc})?$`)
	docPercent  = regexp.MustCompile(`^\d{1,3}(?:\.\d{1,2})?%$`)
	docMIME     = regexp.MustCompile(`^(?:application|audio|font|image|message|model|multipart|text|video)/[a-z0-9.+-]+$`)
	docTZ       = regexp.MustCompile(`^(?:Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific)(?:/\p{Lu}\p{Mn}*` + `(?:` + docSmall + `|` + docCapital + `)*(?:[_-]` + docPart + `)*){1,2}$`)
	docRegion   = regexp.MustCompile(`^(?:af|africa|ap|asia|australia|ca|cn|eu|europe|il|me|mx|northamerica|sa|southamerica|us)-(?:(?:gov|iso|isob|isoe|isof)-)?(?:central|east|north|northeast|northwest|south|southeast|southwest|west)-?\d{1,2}$`)
	docYear     = regexp.MustCompile(`^(?:19|20)\d{2}$`)
	docDigits   = regexp.MustCompile(`\d`)
	docMarked   = regexp.MustCompile(`[,.]|\p{Sc}`)
	docBlock    = regexp.MustCompile(`^\d{1,6}$`)
)

// docOrdinaryShape reports whether v is one value of an ordinary shape
// by the docs: a word, a date, a time, a zone's offset, a version, an
// amount, a percentage, a MIME type, a time zone's name or a cloud
// region's.
func docOrdinaryShape(v string) bool {
	switch {
	case v == "":
		return false
	case docWordOK(v), docDate.MatchString(v), docTime.MatchString(v), docZoneOnly.MatchString(v),
		docVersion.MatchString(v), docPercent.MatchString(v), docMIME.MatchString(v), docTZ.MatchString(v), docRegion.MatchString(v):
		return true
	}
	return docAmount.MatchString(v) && docMarked.MatchString(v) && len(docDigits.FindAllString(v, -1)) < 12
}

// docWordOK is the docs' word: letters, apostrophes and points between
// them, one hyphen or underscore at most, 24 letters at most, and no run
// of ten ASCII letters or more with fewer than one vowel in five.
func docWordOK(v string) bool {
	if !docWord.MatchString(v) && !docSnake.MatchString(strings.TrimSuffix(v, ".")) {
		return false
	}
	if strings.Count(v, "-")+strings.Count(v, "_") > 1 || len(docLetter.FindAllString(v, -1)) > 24 {
		return false
	}
	for _, run := range docASCIIRun.FindAllString(v, -1) {
		vowels := strings.Count(strings.Map(func(r rune) rune {
			if strings.ContainsRune("aeiouyAEIOUY", r) {
				return 'v'
			}
			return 'c'
		}, run), "v")
		if 5*vowels < len(run) {
			return false
		}
	}
	return true
}

// docOrdinary reports whether the string v, withheld only because its
// whole output was, stays out of the session's set by the docs: the value
// is of an ordinary shape, or each of its words (white space between
// them; quotes and brackets around, and , ; : ! ? or a point after, aside)
// is shorter than four characters, of an ordinary shape, or in a value of
// several words a year, and no two words next to each other, one space
// between them, are groups of digits of four digits or more together.
func docOrdinary(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return false
	}
	if docOrdinaryShape(v) {
		return true
	}
	words := strings.FieldsFunc(v, unicode.IsSpace)
	for k, w := range words {
		w = strings.TrimLeft(w, "\"'“‘«([{<")
		w = strings.TrimRight(w, "\"'”’»)]}>,;:!?…")
		if !docOrdinaryShape(w) {
			w = strings.TrimRight(w, ".")
		}
		label := ""
		if k > 0 {
			label = strings.Trim(words[k-1], `"'`)
		}
		switch {
		case len([]rune(w)) < 4, docOrdinaryShape(w), len(words) > 1 && docYear.MatchString(w),
			docLabelled.MatchString(w) && docDescriptor(docLabelled.FindStringSubmatch(w)[1], docLabelled.FindStringSubmatch(w)[2]),
			strings.HasSuffix(label, ":") && docDescriptor(strings.Trim(strings.TrimSuffix(label, ":"), `"'`), w):
		default:
			return false
		}
		if k > 0 && docBlock.MatchString(words[k-1]) && docBlock.MatchString(w) && strings.Contains(v, words[k-1]+" "+words[k]) &&
			len(docDigits.FindAllString(words[k-1]+w, -1)) >= 4 {
			return false
		}
	}
	return true
}

// docOrdinaryNumber reports whether the JSON number v is ordinary by the
// docs: it has a fraction other than zeros or an exponent, it has fewer
// than four digits, or it is a year, 1900 to 2099.
func docOrdinaryNumber(v string) bool {
	plain := strings.TrimPrefix(v, "-")
	if whole, fraction, ok := strings.Cut(plain, "."); ok && strings.Trim(fraction, "0") == "" && !strings.ContainsAny(fraction, "eE") {
		plain = whole
	}
	return strings.ContainsAny(plain, ".eE") || len(plain) < 4 || docYear.MatchString(plain)
}

// docSkeletonWord reports whether the skeleton of v, its letters and
// digits alone in small letters, is an ordinary word by the docs: such a
// value is found as written only.
func docSkeletonWord(v string) bool {
	var b strings.Builder
	for _, r := range v {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	sk := b.String()
	return sk != "" && !strings.ContainsFunc(sk, unicode.IsDigit) && docWordOK(sk)
}

// The docs' descriptors: NAME=value or NAME: value where the name's last
// word (words split at _ - . and where a small letter meets a capital)
// is VERSION, RELEASE, SHA, COMMIT, REVISION, BUILD or REGION, no word of
// it names a secret, and the value is of that word's shape.
var (
	docLabelled   = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_.-]*)[=:](.+)$`)
	docNameSplit  = regexp.MustCompile(`[_.-]+|([a-z])([A-Z])`)
	docSecretName = regexp.MustCompile(`^(?:AUTH|CERT|COOKIE|CREDENTIALS?|HMAC|KEY|OTP|PASS|PASSPHRASE|PASSWD|PASSWORD|PIN|PRIVATE|PWD|SALT|SECRET|SEED|SESSION|SIGNATURE|SIGNING|TOKEN)$`)
	docRelease    = regexp.MustCompile(`^v?\d{1,8}(?:\.\d{1,8}){0,3}(?:[-+](?:[A-Za-z]{1,10}\d{0,4}|\d{1,8})(?:[.+-](?:[A-Za-z]{1,10}\d{0,4}|\d{1,8})){0,3})?$`)
	docCommit     = regexp.MustCompile(`^(?:[0-9a-f]{7,40}|[0-9a-f]{64})$`)
	docBuild      = regexp.MustCompile(`^\d+(?:[._-]\d+)*$`)
)

// docDescriptor reports whether value after name is a descriptor by the
// docs.
func docDescriptor(name, value string) bool {
	words := strings.Fields(docNameSplit.ReplaceAllString(name, "$1 $2"))
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if docSecretName.MatchString(strings.ToUpper(w)) {
			return false
		}
	}
	switch strings.ToUpper(words[len(words)-1]) {
	case "VERSION", "RELEASE":
		return docVersion.MatchString(value) || docRelease.MatchString(value)
	case "SHA", "COMMIT", "REVISION":
		return docCommit.MatchString(value)
	case "BUILD":
		return docVersion.MatchString(value) || docRelease.MatchString(value) || len(value) <= 24 && docBuild.MatchString(value)
	case "REGION":
		return docRegion.MatchString(value)
	}
	return false
}
