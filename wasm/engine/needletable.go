package engine

import (
	"encoding/binary"
	"hash/maphash"
	"unsafe"
)

// This file holds the needleTable, where a scrubSet (needles.go) keeps its
// needles by their keyed hashes, and the bounds that say where a needle
// found in a string stands.

// needleTable finds needles by the four bytes they start with: a bloom
// filter over a keyed mix of those bytes, then a hash table keyed by
// their keyed hash, whose chains list the lengths of the needles that
// start so, shortest first; then, for each length, a second hash table
// keyed by the needle's hash. A scan hashes the text once for each
// length, whatever the number of needles that share their first bytes
// (a thousand keys that all start with sk_live_ cost what one does). It
// keeps no needle's bytes.
type needleTable struct {
	bloom []uint64
	shift uint8 // an index is the top 32-shift bits of the mix
	slots []slot
	used  int
	// lens are the chains of lengths; list the needles, and byHash finds
	// one by its hash and length.
	lens   []length
	list   []needle
	byHash []hashSlot
	// n counts the needles; longest is the longest's length.
	n, longest int
	// gen is the view the table now serves: needles added by an earlier
	// one are from an earlier output.
	gen int32
}

type slot struct {
	key  uint64 // keyed hash of the four bytes; 0 for an empty slot
	mix  uint32 // bloomMix of them, to grow the filter
	head int32  // the shortest length, by index in lens, plus one
}

// length is one length of the needles that start with a slot's bytes.
type length struct {
	n int32
	// next is the next longer length of the chain, by index in lens,
	// plus one.
	next int32
}

// hashSlot finds a needle by its hash and length (hashKey).
type hashSlot struct {
	key uint64 // 0 for an empty slot
	at  int32  // the needle, by index in list, plus one
}

type needle struct {
	hash uint64
	n    int32
	// bound says what may not stand beside a match: a needle of digits
	// alone is not found in a longer number (12345678 in 9123456789), and
	// one of letters alone, from an earlier output, not inside a longer
	// word ("admin" withheld once stays in a later "administrators").
	bound bound
	// gen is the view that added the needle (needleTable.gen).
	gen int32
	// pre and post: a match takes up to this many characters with no
	// skeleton before and after it too, so that "p@ss>word1" leaves no
	// ">" behind where it stood.
	pre, post uint8
}

// bloomMix scatters a four-byte window over the filter's bits.
func bloomMix(w uint32) uint32 { return (w ^ mixKey) * 0x9e3779b1 }

func windowKey(w uint32) uint64 {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], w)
	if k := maphash.Bytes(hashSeed, b[:]); k != 0 {
		return k
	}
	return 1
}

// mayStart reports whether some needle may start with window w.
func (t *needleTable) mayStart(w uint32) bool {
	if t.n == 0 {
		return false
	}
	bi := bloomMix(w) >> t.shift
	return t.bloom[bi/64]&(1<<(bi%64)) != 0
}

// chain returns the shortest length of the needles that start with w,
// by index in lens, plus one; 0 for none.
func (t *needleTable) chain(w uint32) int32 {
	key := windowKey(w)
	mask := len(t.slots) - 1
	for i := int(key) & mask; ; i = (i + 1) & mask {
		switch t.slots[i].key {
		case key:
			return t.slots[i].head
		case 0:
			return 0
		}
	}
}

// add adds needle v (its bytes as the scan sees them); pre and post
// count the characters of the value before and after it that it does not
// hold (a skeleton's punctuation at the value's ends).
func (t *needleTable) add(v []byte, b bound, pre, post int) {
	w := uint32(v[0]) | uint32(v[1])<<8 | uint32(v[2])<<16 | uint32(v[3])<<24
	t.insertKeyed(slot{key: windowKey(w), mix: bloomMix(w)}, needle{hash: maphash.Bytes(hashSeed, v), n: int32(len(v)), bound: b, gen: t.gen, pre: uint8(min(pre, 255)), post: uint8(min(post, 255))})
}

// bound is what may not stand just before or after a needle's match.
type bound uint8

const (
	boundNone    bound = iota
	boundDigits        // a decimal digit of any script
	boundLetters       // a letter of any script, for a needle of an earlier output
)

// boundOf is the bound of a value whose skeleton is sk. A value of
// letters is found inside a longer word in the output that withheld it
// ("SSNX" glued into "aSSNXb" there is the value), and as a word in later
// ones, where a word withheld once ("admin", "active") would otherwise cut
// every later word it is part of.
func boundOf(sk []byte) bound {
	if allDigits(sk) {
		return boundDigits
	}
	for _, c := range sk {
		if isDigit(c) {
			return boundNone
		}
	}
	if len(sk) == 0 {
		return boundNone
	}
	return boundLetters
}

// stands reports whether a match of needle nd at text[a:e], searched by
// view gen, stands free of what its bound bounds out.
func (nd *needle) stands(gen int32, text string, a, e int) bool {
	return nd.freeBefore(gen, text, a) && nd.freeAfter(gen, text, e)
}

// freeBefore reports whether what nd's bound bounds out does not end at
// text[a].
func (nd *needle) freeBefore(gen int32, text string, a int) bool {
	switch nd.bound {
	case boundDigits:
		return !digitBefore(text, a)
	case boundLetters:
		return nd.gen == gen || !letterBefore(text, a)
	}
	return true
}

// freeAfter reports whether what nd's bound bounds out does not start at
// text[e].
func (nd *needle) freeAfter(gen int32, text string, e int) bool {
	switch nd.bound {
	case boundDigits:
		return !isDigitRune(text, e)
	case boundLetters:
		return nd.gen == gen || !isLetterRune(text, e)
	}
	return true
}

// bytes is the memory the table takes.
func (t *needleTable) bytes() int {
	return cap(t.slots)*int(unsafe.Sizeof(slot{})) + cap(t.list)*int(unsafe.Sizeof(needle{})) + 8*len(t.bloom) +
		cap(t.lens)*int(unsafe.Sizeof(length{})) + cap(t.byHash)*int(unsafe.Sizeof(hashSlot{}))
}

func (t *needleTable) growSlots() {
	old := t.slots
	t.slots = make([]slot, 2*len(old))
	mask := len(t.slots) - 1
	for _, sl := range old {
		if sl.key == 0 {
			continue
		}
		i := int(sl.key) & mask
		for t.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = sl
	}
}

// growBloom doubles the filter until it has sixteen bits a needle.
func (t *needleTable) growBloom() {
	for t.n*16 > len(t.bloom)*64 && t.shift > 32-24 {
		t.shift--
		t.bloom = make([]uint64, len(t.bloom)*2)
	}
	for _, sl := range t.slots {
		if sl.key != 0 {
			bi := sl.mix >> t.shift
			t.bloom[bi/64] |= 1 << (bi % 64)
		}
	}
}

// insertKeyed adds a needle whose window is known by its key and mix,
// from the slot it has here or in another table.
func (t *needleTable) insertKeyed(from slot, nd needle) {
	if t.slots == nil {
		t.slots = make([]slot, 16)
		t.shift = 32 - 10
		t.bloom = make([]uint64, 1<<10/64)
	}
	if 2*(t.used+1) > len(t.slots) {
		t.growSlots()
	}
	mask := len(t.slots) - 1
	i := int(from.key) & mask
	for t.slots[i].key != 0 && t.slots[i].key != from.key {
		i = (i + 1) & mask
	}
	sl := &t.slots[i]
	if sl.key == 0 {
		*sl = slot{key: from.key, mix: from.mix}
		t.used++
	}
	if x := t.find(nd.hash, nd.n); x != nil {
		x.pre, x.post = max(x.pre, nd.pre), max(x.post, nd.post)
		x.gen = max(x.gen, nd.gen)
		return
	}
	t.list = append(t.list, nd)
	t.putHash(hashKey(nd.hash, nd.n), int32(len(t.list)))
	// The slot's chain of lengths, shortest first, gets nd's if it lacks it.
	prev := int32(0)
	for k := sl.head; k != 0; k = t.lens[k-1].next {
		if x := t.lens[k-1].n; x == nd.n {
			prev = -1
			break
		} else if x > nd.n {
			break
		}
		prev = k
	}
	if prev >= 0 {
		t.lens = append(t.lens, length{n: nd.n})
		k := int32(len(t.lens))
		if prev == 0 {
			t.lens[k-1].next = sl.head
			sl.head = k
		} else {
			t.lens[k-1].next = t.lens[prev-1].next
			t.lens[prev-1].next = k
		}
	}
	t.n++
	t.longest = max(t.longest, int(nd.n))
	if t.n*16 > len(t.bloom)*64 && t.shift > 32-24 {
		t.growBloom()
	}
	bi := sl.mix >> t.shift
	t.bloom[bi/64] |= 1 << (bi % 64)
}

// hashKey is the key of a needle of hash h and length n in byHash; never 0.
func hashKey(h uint64, n int32) uint64 {
	if k := h ^ uint64(n)*0x9e3779b97f4a7c15; k != 0 {
		return k
	}
	return 1
}

// find returns the needle of hash h and length n, or nil.
func (t *needleTable) find(h uint64, n int32) *needle {
	if len(t.byHash) == 0 {
		return nil
	}
	key := hashKey(h, n)
	mask := len(t.byHash) - 1
	for i := int(key>>32) & mask; ; i = (i + 1) & mask {
		switch t.byHash[i].key {
		case key:
			return &t.list[t.byHash[i].at-1]
		case 0:
			return nil
		}
	}
}

// putHash adds the needle at (by index in list, plus one) under key,
// which byHash does not hold yet.
func (t *needleTable) putHash(key uint64, at int32) {
	if 2*len(t.list) > len(t.byHash) {
		old := t.byHash
		t.byHash = make([]hashSlot, max(16, 2*len(old)))
		for _, e := range old {
			if e.key != 0 {
				t.placeHash(e)
			}
		}
	}
	t.placeHash(hashSlot{key: key, at: at})
}

func (t *needleTable) placeHash(e hashSlot) {
	mask := len(t.byHash) - 1
	i := int(e.key>>32) & mask
	for t.byHash[i].key != 0 {
		i = (i + 1) & mask
	}
	t.byHash[i] = e
}
