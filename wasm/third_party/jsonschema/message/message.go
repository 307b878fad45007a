// Package message prints this module's error messages in English as
// golang.org/x/text/message's printer for language.English does, with fmt
// and strconv only: a plain %d or %v of an integer with thousands
// separators (1,000), of a float the same, or as 1.5 × 10²¹ where fmt
// would write 1.5e+21, ∞ for infinity. Verbs with flags, a width or a
// precision print as fmt prints them, which x/text would group too; this
// module's messages have none. It stands in for x/text/message, whose language tables and
// number formatting are most of what x/text adds to a program, and whose
// package initialisation runs at every start-up. This module's messages
// use no other locale and no catalog.
package message

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Printer formats messages. The zero value is ready to use.
type Printer struct{}

// NewPrinter returns a Printer.
func NewPrinter() *Printer { return &Printer{} }

// Sprintf is fmt.Sprintf with numbers printed the English way: an
// integer, a float, or a slice or array of either, given to a plain %d or
// %v. Every other verb and argument prints as fmt prints it.
func (p *Printer) Sprintf(format string, a ...any) string {
	args := append([]any(nil), a...)
	for i, verb := range plainVerbs(format, len(a)) {
		if verb == 'd' || verb == 'v' {
			args[i] = wrap(args[i])
		}
	}
	return fmt.Sprintf(format, args...)
}

// plainVerbs is, for each of n arguments, the verb format gives it when
// that verb has no flags, width, precision or argument index, else 0.
func plainVerbs(format string, n int) []rune {
	verbs := make([]rune, n)
	arg := 0
	for i := 0; i < len(format) && arg < n; i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			continue
		}
		plain := true
		for i < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[i]) >= 0 {
			if format[i] == '[' {
				// An explicit argument index: leave the rest to fmt.
				return verbs
			}
			if format[i] == '*' {
				arg++
			}
			plain = false
			i++
		}
		if i >= len(format) || arg >= n {
			break
		}
		if plain {
			verbs[arg] = rune(format[i])
		}
		arg++
	}
	return verbs
}

// wrap is v, or v as a formatter of English numbers when v is a number of
// a predeclared type (not a named type with methods of its own) or a
// slice or array of them.
func wrap(v any) any {
	if v == nil {
		return v
	}
	t := reflect.TypeOf(v)
	switch {
	case basicNumber(t):
		return number{v}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.PkgPath() == "" && basicNumber(t.Elem()):
		return list{v}
	}
	return v
}

func basicNumber(t reflect.Type) bool {
	if t.PkgPath() != "" {
		return false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// number prints one number the English way for %d and %v.
type number struct{ v any }

func (n number) Format(f fmt.State, verb rune) {
	s, ok := english(reflect.ValueOf(n.v), verb)
	if !ok {
		fmt.Fprintf(f, fmt.FormatString(f, verb), n.v)
		return
	}
	f.Write([]byte(s))
}

// list prints a slice or array of numbers as fmt does, [a b c], each the
// English way.
type list struct{ v any }

func (l list) Format(f fmt.State, verb rune) {
	rv := reflect.ValueOf(l.v)
	var sb strings.Builder
	sb.WriteByte('[')
	for i := 0; i < rv.Len(); i++ {
		s, ok := english(rv.Index(i), verb)
		if !ok {
			fmt.Fprintf(f, fmt.FormatString(f, verb), l.v)
			return
		}
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(s)
	}
	sb.WriteByte(']')
	f.Write([]byte(sb.String()))
}

// english is the number v as the English printer writes it for a plain
// verb, or false where this package leaves it to fmt.
func english(v reflect.Value, verb rune) (string, bool) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return group(strconv.FormatInt(v.Int(), 10)), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return group(strconv.FormatUint(v.Uint(), 10)), true
	case reflect.Float32, reflect.Float64:
		if verb != 'v' {
			return "", false
		}
		return float(fmt.Sprintf("%v", v.Interface())), true
	}
	return "", false
}

// float rewrites fmt's %v of a float: ∞ for Inf, a power of ten in
// superscript for an exponent, else thousands separators.
func float(s string) string {
	switch s {
	case "+Inf":
		return "∞"
	case "-Inf":
		return "-∞"
	case "NaN":
		return s
	}
	mant, exp, ok := strings.Cut(s, "e")
	if !ok {
		return group(s)
	}
	var sb strings.Builder
	sb.WriteString(mant)
	sb.WriteString("\u202f×\u202f10")
	for _, c := range exp {
		switch {
		case c == '-':
			sb.WriteRune('⁻')
		case c >= '0' && c <= '9':
			sb.WriteRune([]rune("⁰¹²³⁴⁵⁶⁷⁸⁹")[c-'0'])
		}
	}
	return sb.String()
}

// group puts a comma between each three digits of the integer part of the
// decimal s.
func group(s string) string {
	sign := ""
	if s != "" && (s[0] == '-' || s[0] == '+') {
		sign, s = s[:1], s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	if len(whole) <= 3 {
		return sign + s
	}
	var sb strings.Builder
	sb.WriteString(sign)
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteRune(c)
	}
	if hasFrac {
		sb.WriteByte('.')
		sb.WriteString(frac)
	}
	return sb.String()
}
