package engine

import (
	"cmp"
	"slices"
	"strings"
)

// This file searches a whole output once for the render: where every
// withheld value stands in its bytes as they are and in its runs of
// base64 and hex, and where an escape starts. A span the render keeps
// that none of them touches is copied as it is, without a search of its
// own: writing a large output then reads it once, not once for each
// level of the containers around each value.

// maxRawEscapes bounds the escapes rawScan lists; an output with more is
// searched span by span, as without it.
const maxRawEscapes = 1 << 16

// rawScan is what one search of a JSON text found for one scrubber.
type rawScan struct {
	s *scrubber
	// ok: the search was made whole and within its bounds; when false,
	// every span is searched on its own.
	ok bool
	// findings are the spans of the matches, sorted and apart.
	findings [][2]int
	// escapes are where an escape of some decoding may start, sorted.
	escapes []int32
}

// The render searches the whole output once (rawScan) when it is at
// least rawScanMin bytes and at most one node in rawScanDirty holds what
// the view changes: most of what it reads is then what it keeps. Where
// much is withheld, the kept spans are small and searched one by one, and
// what is withheld is not read.
const (
	rawScanMin   = 64 << 10
	rawScanDirty = 16
)

// rawScanOf returns the search of the output for s, made once, or nil
// when the view changes too much of the output for it to be worth it.
func (w *walker) rawScanOf(s *scrubber) *rawScan {
	if w.raw != nil && w.raw.s == s {
		return w.raw
	}
	if !w.rawWorth {
		return nil
	}
	w.raw = newRawScan(w.tr.src, s)
	return w.raw
}

// newRawScan searches the JSON text src for every value s removes, as
// containsRaw searches one span: any span of src that holds one in its
// bytes or in a run it decodes is touched by a finding, since every span
// a node of src takes is bounded by JSON's syntax, which no match or run
// of a node's own can need, and the search of src tries every position
// a search of the span would. An encoded-word ("=?") is read to its end
// wherever that is, so an output with one is searched span by span.
func newRawScan(src string, s *scrubber) *rawScan {
	r := &rawScan{s: s}
	if strings.Contains(src, "=?") {
		return r
	}
	for i := 0; i < len(src); i++ {
		switch escapeLead[src[i]] {
		case 0:
			continue
		case leadPlus:
			if !s.plus {
				continue
			}
		case leadEquals:
			if !isQPEscape(src, i) {
				continue
			}
		}
		if len(r.escapes) == maxRawEscapes {
			return r
		}
		r.escapes = append(r.escapes, int32(i))
	}
	if s.any {
		var found [][2]int
		all := func(a, b int) bool {
			found = append(found, [2]int{a, b})
			return true
		}
		// A position where matching cost much counts as a finding: a
		// span searched alone could run past its own budget there, and
		// must be searched alone to fail closed as it would.
		s.costly = func(at int) { found = append(found, [2]int{at, at + 1}) }
		ok, runs := s.eachMatchRuns(src, all)
		s.costly = nil
		if !ok {
			return r
		}
		if runs {
			// A run inside a match is not decoded: the spans it lies in
			// are touched already.
			gone := mergeSpans(slices.Clone(found))
			if !s.eachEncodedMatchOutside(src, 0, gone, all) {
				return r
			}
		}
		r.findings = mergeSpans(found)
	}
	r.ok = true
	return r
}

// touches reports whether a finding or an escape lies in src[a:b].
func (r *rawScan) touches(a, b int) bool {
	// The first finding that ends after a.
	k, _ := slices.BinarySearchFunc(r.findings, a, func(f [2]int, a int) int { return cmp.Compare(f[1], a+1) })
	if k < len(r.findings) && r.findings[k][0] < b {
		return true
	}
	e, _ := slices.BinarySearch(r.escapes, int32(a))
	return e < len(r.escapes) && int(r.escapes[e]) < b
}
