package risk

import "strings"

// This file catches the typos that would turn protection off: a hint the
// page meant to give, spelled so that the runtime would keep it as an
// unknown key and act as if it were never given.

// Resembles reports which of known key is a near miss of: the same but
// for case, '-', '_' or '.', or one or two letters off (inserted, deleted,
// replaced or swapped; one for keys under eight letters). A key that is
// one of known exactly resembles none.
func Resembles(key string, known ...string) (string, bool) {
	squeezed := squeeze(key)
	for _, k := range known {
		if k == key {
			return "", false
		}
	}
	for _, k := range known {
		if squeeze(k) == squeezed {
			return k, true
		}
	}
	for _, k := range known {
		limit := 1
		if len(k) >= 8 {
			limit = 2
		}
		if editDistance(strings.ToLower(key), strings.ToLower(k), limit) <= limit {
			return k, true
		}
	}
	return "", false
}

// squeeze lowers s and drops the separators people mix up.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r == ' ' {
			return -1
		}
		return toLower(r)
	}, s)
}

func toLower(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// editDistance is the optimal string alignment distance of a and b
// (Damerau-Levenshtein without repeated edits of a substring), or limit+1
// as soon as it must exceed limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// MeansSensitive reports whether key, a name the runtime does not read,
// says the value or output it stands on is sensitive: sensitive,
// isSensitive, containsSensitiveData, x-secret, pii, confidential and the
// like. A page that writes one means protection that would not apply.
func MeansSensitive(key string) bool {
	k := squeeze(key)
	for _, word := range []string{"sensitiv", "secret", "confidential", "private", "redact", "pii"} {
		if strings.Contains(k, word) {
			return true
		}
	}
	return false
}

// annotationKeys are the annotations the runtime reads.
var annotationKeys = []string{
	"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint",
	"untrustedContentHint", "consequentialHint", "sensitiveHint",
	"aiProcessingHint", "slowExecutionHint", "resourceIntensiveHint", "sensitiveDataHint",
	"privilegedAccessHint", "reversibleHint",
	"maliciousActivityHint", "attribution", "inputMetadata", "returnMetadata",
}

// metaKeys are the _meta policy hints the runtime reads.
var metaKeys = []string{MetaEffect, MetaIdempotent, MetaRequiresConfirmation, MetaResultSensitivity, MetaSafeMedia}
