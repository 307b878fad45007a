// Package pattern decides how a JSON Schema pattern runs. JSON Schema
// gives patterns ECMA-262's meaning, and the page's RegExp is a
// backtracking engine: a pattern such as ^(a+)+$ on thirty a's and a b
// takes it minutes, and no running RegExp can be interrupted. So a pattern
// runs in linear time, on Go's RE2 engine, wherever RE2 can give it the
// same meaning ([Translate]); only a pattern that needs what RE2 lacks
// (lookaround, backreferences) runs on the page's RegExp, and only if it
// cannot backtrack without bound ([CheckBacktracking]), on strings of at
// most [MaxBacktrackingInput] characters.
package pattern

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxBacktrackingInput is the longest string, in UTF-16 code units as
// JavaScript counts them, a pattern that runs on the page's RegExp is
// matched against, and MaxBacktrackingWork how many such code units one
// validation may match in all. With the shapes CheckBacktracking allows,
// the worst match of a string that long takes about a millisecond in
// Chromium on a server core, the worst validation about a tenth of a
// second.
const (
	MaxBacktrackingInput = 1024
	MaxBacktrackingWork  = 64 << 10
)

// ecmaSpace is what ECMA-262's \s matches: white space and line
// terminators, wider than RE2's \s.
const ecmaSpace = `\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`

// ecmaDot is what ECMA-262's . matches without the s flag: anything but a
// line terminator.
const ecmaDot = `[^\n\r\x{2028}\x{2029}]`

// Translate returns an RE2 pattern (Go's regexp syntax) that matches the
// same strings as the ECMA-262 pattern p does with the "u" flag, and
// whether there is one. It declines what it cannot say for certain: a
// lookaround, a backreference, syntax that is an error in ECMA-262, and
// the corners where the two read the same text differently.
func Translate(p string) (string, bool) {
	var b strings.Builder
	inClass := false
	// assertion: the last token was ^, $, \b or \B, which ECMA-262 does
	// not let a quantifier repeat.
	assertion := false
	for i := 0; i < len(p); {
		c := p[i]
		if !inClass && assertion && strings.IndexByte("*+?{", c) >= 0 {
			return "", false
		}
		assertion = !inClass && (c == '^' || c == '$' || c == '\\' && i+1 < len(p) && (p[i+1] == 'b' || p[i+1] == 'B'))
		switch {
		case c == '\\':
			out, n, ok := escape(p[i:], inClass)
			if !ok {
				return "", false
			}
			b.WriteString(out)
			i += n
			continue
		case inClass:
			switch c {
			case ']':
				inClass = false
			case '[':
				// RE2 reads [: as a POSIX class.
				return "", false
			}
		case c == '[':
			rest := p[i+1:]
			if strings.HasPrefix(rest, "]") || strings.HasPrefix(rest, "^]") {
				// [] matches nothing and [^] anything in ECMA-262; RE2
				// reads both otherwise.
				return "", false
			}
			inClass = true
		case c == '.':
			b.WriteString(ecmaDot)
			i++
			continue
		case c == '(':
			if strings.HasPrefix(p[i:], "(?") && !strings.HasPrefix(p[i:], "(?:") && !isNamedGroup(p[i:]) {
				// Lookaround, and flags, which ECMA-262 has not.
				return "", false
			}
		case c == '{':
			n, ok := quantifier(p[i:])
			if !ok {
				return "", false
			}
			b.WriteString(p[i : i+n])
			i += n
			continue
		case c == ']' || c == '}':
			// A syntax error with the "u" flag.
			return "", false
		}
		b.WriteByte(c)
		i++
	}
	if inClass {
		return "", false
	}
	return b.String(), true
}

// isNamedGroup reports whether s starts with (?<name>, not (?<= or (?<!.
func isNamedGroup(s string) bool {
	return strings.HasPrefix(s, "(?<") && len(s) > 3 && s[3] != '=' && s[3] != '!'
}

// quantifier returns the length of the {n}, {n,} or {n,m} at the start of
// s, with bounds RE2 takes (at most 1000).
func quantifier(s string) (int, bool) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return 0, false
	}
	lo, hi, comma := s[1:end], "", false
	if k := strings.IndexByte(lo, ','); k >= 0 {
		lo, hi, comma = lo[:k], lo[k+1:], true
	}
	n, err := strconv.Atoi(lo)
	if err != nil || n > 1000 || lo == "" || strings.TrimLeft(lo, "0123456789") != "" {
		return 0, false
	}
	if comma && hi != "" {
		m, err := strconv.Atoi(hi)
		if err != nil || m > 1000 || m < n || strings.TrimLeft(hi, "0123456789") != "" {
			return 0, false
		}
	}
	return end + 1, true
}

// escape translates the escape at the start of s.
func escape(s string, inClass bool) (string, int, bool) {
	if len(s) < 2 {
		return "", 0, false
	}
	c := s[1]
	switch c {
	case 'd', 'D', 'w', 'W':
		return s[:2], 2, true
	case 'b':
		if inClass {
			return `\x{08}`, 2, true
		}
		return s[:2], 2, true
	case 'B':
		return s[:2], 2, !inClass
	case 's':
		if inClass {
			return ecmaSpace, 2, true
		}
		return "[" + ecmaSpace + "]", 2, true
	case 'S':
		if inClass {
			return "", 0, false
		}
		return "[^" + ecmaSpace + "]", 2, true
	case 't':
		return `\t`, 2, true
	case 'n':
		return `\n`, 2, true
	case 'r':
		return `\r`, 2, true
	case 'f':
		return `\f`, 2, true
	case 'v':
		return `\x{0B}`, 2, true
	case '0':
		if len(s) > 2 && s[2] >= '0' && s[2] <= '9' {
			return "", 0, false
		}
		return `\x{00}`, 2, true
	case 'x':
		if len(s) < 4 || !isHex(s[2:4]) {
			return "", 0, false
		}
		return `\x{` + s[2:4] + `}`, 4, true
	case 'u':
		if strings.HasPrefix(s[2:], "{") {
			end := strings.IndexByte(s, '}')
			if end < 0 || !isHex(s[3:end]) {
				return "", 0, false
			}
			r, err := strconv.ParseUint(s[3:end], 16, 32)
			if err != nil || r > unicode.MaxRune || utf16.IsSurrogate(rune(r)) {
				return "", 0, false
			}
			return fmt.Sprintf(`\x{%X}`, r), end + 1, true
		}
		if len(s) < 6 || !isHex(s[2:6]) {
			return "", 0, false
		}
		r, _ := strconv.ParseUint(s[2:6], 16, 32)
		if utf16.IsSurrogate(rune(r)) {
			// A pair spells one character in ECMA-262; a lone one matches
			// what Go's strings cannot hold.
			return "", 0, false
		}
		return fmt.Sprintf(`\x{%X}`, r), 6, true
	case 'c':
		if len(s) < 3 || !(s[2] >= 'a' && s[2] <= 'z' || s[2] >= 'A' && s[2] <= 'Z') {
			return "", 0, false
		}
		return fmt.Sprintf(`\x{%02X}`, s[2]%32), 3, true
	case 'p', 'P':
		end := strings.IndexByte(s, '}')
		if len(s) < 4 || s[2] != '{' || end < 0 {
			return "", 0, false
		}
		name := s[3:end]
		if _, ok := unicode.Categories[name]; !ok {
			// Scripts and long names are spelled differently in the two.
			return "", 0, false
		}
		return s[:end+1], end + 1, true
	case '^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/':
		return `\` + string(c), 2, true
	case '-':
		// With the "u" flag, \- is only allowed in a class.
		return `\-`, 2, inClass
	}
	// Backreferences (\1, \k<name>) and every other escape, an error with
	// the "u" flag.
	return "", 0, false
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

// CheckBacktracking returns nil for an ECMA-262 pattern that a
// backtracking engine matches in bounded time on strings of at most
// MaxBacktrackingInput characters, and otherwise an error that says why.
// A repeated group may not hold a repetition, an alternation or a
// backreference (^(a+)+$, (a|ab)*: exponential); a sequence may hold at
// most one unbounded repetition, counting what its groups hold but not
// what its lookarounds hold, since a lookaround, once matched, is never
// entered again (a.*b.*c, tried at every position of a failing string, is
// cubic).
func CheckBacktracking(p string) error {
	s := &scanner{p: p}
	if _, err := s.sequence(0); err != nil {
		return err
	}
	return nil
}

// A scanner reads a pattern just far enough to judge its backtracking.
type scanner struct {
	p string
	i int
}

// seq is what a sequence holds: unbounded repetitions, and whether it has
// a repetition, an alternation or a backreference anywhere inside.
type seq struct {
	unbounded             int
	repeats, alternatives bool
	backrefs              bool
}

// sequence reads alternatives up to the end of a group (or the pattern)
// and reports what they hold.
func (s *scanner) sequence(depth int) (seq, error) {
	var total, cur seq
	flush := func() error {
		if cur.unbounded > 1 {
			return fmt.Errorf("has more than one unbounded repetition in one sequence (outside lookarounds), which a backtracking engine can take cubic time or worse over; the runtime refuses it")
		}
		total.unbounded = max(total.unbounded, cur.unbounded)
		total.repeats = total.repeats || cur.repeats
		total.alternatives = total.alternatives || cur.alternatives
		total.backrefs = total.backrefs || cur.backrefs
		cur = seq{}
		return nil
	}
	for s.i < len(s.p) {
		c := s.p[s.i]
		var atom seq
		switch c {
		case ')':
			if depth == 0 {
				return total, fmt.Errorf("has an unmatched )")
			}
			s.i++
			if err := flush(); err != nil {
				return total, err
			}
			return total, nil
		case '|':
			s.i++
			if err := flush(); err != nil {
				return total, err
			}
			total.alternatives = true
			continue
		case '(':
			look := strings.HasPrefix(s.p[s.i:], "(?=") || strings.HasPrefix(s.p[s.i:], "(?!") ||
				strings.HasPrefix(s.p[s.i:], "(?<=") || strings.HasPrefix(s.p[s.i:], "(?<!")
			switch {
			case strings.HasPrefix(s.p[s.i:], "(?:"), strings.HasPrefix(s.p[s.i:], "(?="), strings.HasPrefix(s.p[s.i:], "(?!"):
				s.i += 3
			case strings.HasPrefix(s.p[s.i:], "(?<=") || strings.HasPrefix(s.p[s.i:], "(?<!"):
				s.i += 4
			case strings.HasPrefix(s.p[s.i:], "(?<"):
				end := strings.IndexByte(s.p[s.i:], '>')
				if end < 0 {
					return total, fmt.Errorf("has an unterminated group name")
				}
				s.i += end + 1
			default:
				s.i++
			}
			inner, err := s.sequence(depth + 1)
			if err != nil {
				return total, err
			}
			if look {
				// Atomic: its repetitions never multiply the sequence's.
				atom = seq{backrefs: inner.backrefs}
			} else {
				atom = inner
			}
		case '[':
			s.i++
			for s.i < len(s.p) && s.p[s.i] != ']' {
				if s.p[s.i] == '\\' {
					s.i++
				}
				s.i++
			}
			s.i++
		case '\\':
			if s.i+1 < len(s.p) && (s.p[s.i+1] >= '1' && s.p[s.i+1] <= '9' || s.p[s.i+1] == 'k') {
				atom.backrefs = true
			}
			_, n := utf8.DecodeRuneInString(s.p[s.i+1:])
			s.i += 1 + n
		default:
			_, n := utf8.DecodeRuneInString(s.p[s.i:])
			s.i += n
		}
		// A quantifier after the atom.
		unbounded, repeated := s.quantifier()
		if repeated && (atom.repeats || atom.alternatives || atom.backrefs || atom.unbounded > 0) {
			return total, fmt.Errorf("repeats a group that holds a repetition, an alternation or a backreference, which a backtracking engine can take exponential time over; the runtime refuses it")
		}
		cur.unbounded += atom.unbounded
		cur.repeats = cur.repeats || atom.repeats || repeated
		cur.alternatives = cur.alternatives || atom.alternatives
		cur.backrefs = cur.backrefs || atom.backrefs
		if unbounded {
			cur.unbounded++
		}
	}
	if depth > 0 {
		return total, fmt.Errorf("has an unterminated group")
	}
	if err := flush(); err != nil {
		return total, err
	}
	return total, nil
}

// quantifier reads a quantifier at s.i, if any, and a lazy ? after it. A
// repetition of more than 16 counts as unbounded.
func (s *scanner) quantifier() (unbounded, repeated bool) {
	if s.i >= len(s.p) {
		return false, false
	}
	switch s.p[s.i] {
	case '*', '+':
		s.i++
		unbounded, repeated = true, true
	case '?':
		s.i++
		repeated = false
	case '{':
		end := strings.IndexByte(s.p[s.i:], '}')
		if end < 0 {
			return false, false
		}
		body := s.p[s.i+1 : s.i+end]
		s.i += end + 1
		lo, hi, comma := body, "", false
		if k := strings.IndexByte(body, ','); k >= 0 {
			lo, hi, comma = body[:k], body[k+1:], true
		}
		m, _ := strconv.Atoi(lo)
		if comma {
			if hi == "" {
				return true, true
			}
			m, _ = strconv.Atoi(hi)
		}
		repeated = m > 1
		unbounded = m > 16
	}
	if s.i < len(s.p) && s.p[s.i] == '?' {
		s.i++
	}
	return unbounded, repeated
}
