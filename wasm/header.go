//go:build js && wasm

package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/veilmcp/veil/wasm/engine"
)

// The headers of the ops every tool call makes, "decide" and "output", are
// read, and the "output" reply written, here by hand: encoding/json's
// reflection costs more than the engine's own work on a small call. What
// is written is what json.Marshal writes for the same value, byte for
// byte; what is read is what json.Unmarshal reads. A header other than
// the page's usual one goes to encoding/json, so a malformed header gets
// its errors.

// decideHeader is the "decide" op's header.
type decideHeader struct {
	Name          string          `json:"name"`
	Resolved      json.RawMessage `json:"resolved"`
	ResolveFailed bool            `json:"resolveFailed"`
}

// outputHeader is the "output" op's header.
type outputHeader struct {
	Name string             `json:"name"`
	Kind engine.OutcomeKind `json:"kind"`
	Call string             `json:"call"`
}

// decodeDecide reads a "decide" header.
func decodeDecide(header string) (hd decideHeader, err error) {
	var v [1]string
	if plainObject(header, v[:], "name") {
		return decideHeader{Name: v[0]}, nil
	}
	err = decode(header, &hd)
	return hd, err
}

// decodeOutput reads an "output" header.
func decodeOutput(header string) (hd outputHeader, err error) {
	var v [3]string
	if plainObject(header, v[:], "name", "kind", "call") {
		return outputHeader{Name: v[0], Kind: engine.OutcomeKind(v[1]), Call: v[2]}, nil
	}
	err = decode(header, &hd)
	return hd, err
}

// plainObject reads h when it is an object as JSON.stringify writes one
// whose members are keys, in that order, with string values that hold no
// escape, no control character and only valid UTF-8. It sets values and
// reports true, or reports false for anything else.
func plainObject(h string, values []string, keys ...string) bool {
	rest, ok := strings.CutPrefix(h, "{")
	for i, k := range keys {
		if i > 0 {
			rest, ok = strings.CutPrefix(rest, ",")
		}
		if !ok || len(rest) < len(k)+4 || rest[0] != '"' || rest[1:1+len(k)] != k || rest[1+len(k):4+len(k)] != `":"` {
			return false
		}
		rest = rest[4+len(k):]
		n := strings.IndexByte(rest, '"')
		if n < 0 {
			return false
		}
		for j := range n {
			if rest[j] < 0x20 || rest[j] == '\\' {
				return false
			}
		}
		if values[i] = rest[:n]; !utf8.ValidString(values[i]) {
			return false
		}
		rest = rest[n+1:]
	}
	return ok && rest == "}"
}

// json is the "output" op's reply header: r as json.Marshal writes it.
func (r *outputReply) json() string {
	b := make([]byte, 0, 128)
	b = appendString(b, `{"callId":`, r.CallID)
	b = append(b, `,"held":`...)
	b = strconv.AppendInt(b, int64(r.Held), 10)
	b = appendStrings(b, `,"invalid":`, r.Invalid)
	if r.Error != nil {
		b = appendJSON(b, `,"error":`, r.Error)
	}
	if r.Trust != nil {
		b = appendJSON(b, `,"trust":`, r.Trust)
	}
	if r.Malicious {
		b = append(b, `,"malicious":true`...)
	}
	if r.Same {
		b = append(b, `,"same":true`...)
	}
	if r.Reserved != 0 {
		b = append(b, `,"reserved":`...)
		b = strconv.AppendInt(b, int64(r.Reserved), 10)
	}
	return string(append(b, '}'))
}

// The append functions below append a member of an object: key, which
// holds the punctuation before the value too, then the value as
// json.Marshal writes it.

func appendStrings(b []byte, key string, ss []string) []byte {
	b = append(b, key...)
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		sep := ","
		if i == 0 {
			sep = ""
		}
		b = appendString(b, sep, s)
	}
	return append(b, ']')
}

// appendJSON is for the members that are seldom there: json.Marshal
// writes the value. It cannot fail on the types it is given.
func appendJSON(b []byte, key string, v any) []byte {
	q, _ := json.Marshal(v)
	return append(append(b, key...), q...)
}

// appendString writes s as a JSON string, escaped as json.Marshal escapes
// it: printable ASCII with none of " \ < > & as it is, anything else by
// json.Marshal itself.
func appendString(b []byte, key, s string) []byte {
	b = append(b, key...)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
