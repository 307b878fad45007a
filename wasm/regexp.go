//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// jsRegExp is the global RegExp constructor of the realm the engine runs in.
var jsRegExp = js.Global().Get("RegExp")

// ecmaRegexp is a pattern compiled by JavaScript's RegExp, so schemas get
// ECMA-262 semantics (lookaround, \p{…}, backreferences), as JSON Schema
// specifies, rather than RE2's.
type ecmaRegexp struct {
	re  js.Value
	src string
}

func (r *ecmaRegexp) MatchString(s string) bool { return r.re.Call("test", s).Bool() }

func (r *ecmaRegexp) String() string { return r.src }

// compileRegexp is the engine's jsonschema.RegexpEngine. It uses the "u"
// flag: a pattern is Unicode-aware and invalid escapes are errors. Without
// the "g" or "y" flag, test keeps no state between calls.
func compileRegexp(pattern string) (re jsonschema.Regexp, err error) {
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprint(p)
			if e, ok := p.(js.Error); ok {
				msg = e.Get("message").String()
			}
			re, err = nil, fmt.Errorf("pattern %q: %s", pattern, msg)
		}
	}()
	// A pointer: jsonschema keys patternProperties by the Regexp, and a
	// struct holding a js.Value cannot be a map key.
	return &ecmaRegexp{re: jsRegExp.New(pattern, "u"), src: pattern}, nil
}

var _ jsonschema.RegexpEngine = compileRegexp
