package ops

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/internal/jsonx"
)

// The headers of the ops every tool call sends, Decide and Output, are
// read, and the Output reply written, here by hand: encoding/json's
// reflection costs more than the engine's own work on a small call. What
// is read is what decode reads; what is written is JSON that
// json.Unmarshal reads as json.Marshal's text for the same value. A header
// other than the page's usual one goes to decode, so a malformed header
// gets its errors.

// decodeDecide reads a Decide header (op is Decide).
func decodeDecide(op, header string) (r DecideRequest, err error) {
	var v [1]string
	if plainObject(header, v[:], "name") {
		return DecideRequest{Name: v[0]}, nil
	}
	err = decode(op, header, &r)
	return r, err
}

// decodeOutput reads an Output header (op is Output).
func decodeOutput(op, header string) (r OutputRequest, err error) {
	var v [2]string
	if plainObject(header, v[:], "call", "kind") {
		return OutputRequest{Call: v[0], Kind: engine.OutcomeKind(v[1])}, nil
	}
	err = decode(op, header, &r)
	return r, err
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

// json is r as an Output reply header.
func (r *OutputReply) json() string {
	b := make([]byte, 0, 64)
	b = append(b, `{"held":`...)
	b = strconv.AppendInt(b, int64(r.Held), 10)
	b = append(b, `,"invalid":`...)
	if r.Invalid == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, s := range r.Invalid {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonx.AppendString(b, s)
		}
		b = append(b, ']')
	}
	if r.Error != nil {
		b = append(b, `,"error":{"name":`...)
		b = jsonx.AppendString(b, r.Error.Name)
		b = append(b, `,"message":`...)
		b = append(jsonx.AppendString(b, r.Error.Message), '}')
	}
	if r.Trust != nil {
		// Seldom there: json.Marshal writes it, and cannot fail on it.
		b = append(b, `,"trust":`...)
		b = append(b, reply(r.Trust)...)
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
	if len(r.Warnings) > 0 {
		b = append(b, `,"warnings":[`...)
		for i, s := range r.Warnings {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonx.AppendString(b, s)
		}
		b = append(b, ']')
	}
	if r.Scrubbing {
		b = append(b, `,"scrubbing":true`...)
	}
	return string(append(b, '}'))
}
