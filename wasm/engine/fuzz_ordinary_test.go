package engine

import (
	"regexp"
	"strings"
)

// The shapes docs/agent-view.md calls ordinary, written from the docs
// apart from the engine's own test of them (ordinaryValue): a value of
// one of these shapes, withheld only because its whole output was, is not
// promised to stay out of later outputs, and FuzzSession does not look
// for it there. Every other value it does look for, so an engine that
// called more ordinary than the docs do would be caught leaking.
var (
	docCapital = `[\p{Lu}\p{Lt}]\p{Mn}*`
	docSmall   = `[\p{Ll}\p{Lo}\p{Lm}]\p{Mn}*`
	docPart    = `(?:(?:` + docCapital + `){1,6}|(?:` + docCapital + `)?(?:` + docSmall + `)+)`
	docWord    = regexp.MustCompile(`^` + docPart + `(?:['’.-]` + docPart + `)*\.?$`)
	docLetter  = regexp.MustCompile(`\pL`)
	docClock   = `\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?`
	docDate    = regexp.MustCompile(`^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{4})(?:[T ]` + docClock + `(?:Z|[+-]\d{2}:?\d{2})?)?$`)
	docTime    = regexp.MustCompile(`^` + docClock + `$`)
	docVersion = regexp.MustCompile(`^v?\d{1,3}(?:\.\d{1,3}){1,3}$`)
	docAmount  = regexp.MustCompile(`^[+-]?(?:\p{Sc} ?)?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,4})?|(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d{1,2})?)(?: ?\p{Sc})?$`)
	docDigits  = regexp.MustCompile(`\d`)
	docMarked  = regexp.MustCompile(`[,.]|\p{Sc}`)
)

// docOrdinary reports whether the string v, white space around it aside,
// is ordinary by the docs: a word of letters, a date, a time, a version,
// or an amount of fewer than twelve digits with a currency sign, a
// thousands group or a fraction.
func docOrdinary(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return false
	}
	if docWord.MatchString(v) && len(docLetter.FindAllString(v, -1)) <= 24 || docDate.MatchString(v) || docTime.MatchString(v) || docVersion.MatchString(v) {
		return true
	}
	return docAmount.MatchString(v) && docMarked.MatchString(v) && len(docDigits.FindAllString(v, -1)) < 12
}

// docOrdinaryNumber reports whether the JSON number v is ordinary by the
// docs: it has a fraction or an exponent, or fewer than four digits.
func docOrdinaryNumber(v string) bool {
	return strings.ContainsAny(v, ".eE") || len(strings.TrimPrefix(v, "-")) < 4
}
