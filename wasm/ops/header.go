package ops

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/veilmcp/veil/wasm/engine"
)

// This file reads request headers and writes reply headers: the one
// decode and error path every op in the table (methods.go) goes through.

// leadingCall reads the call id of a header the glue wrote, which starts
// with it: {"call":"…",…}.
func leadingCall(header string) (string, bool) {
	rest, ok := strings.CutPrefix(header, `{"call":"`)
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(rest, `"`)
	return id, ok && id != "" && !strings.ContainsAny(id, `\`)
}

// strict reads an op's header into a Req with decode.
func strict[Req any](op, header string) (Req, error) {
	var r Req
	err := decode(op, header, &r)
	return r, err
}

// raw passes the header on unread: the op reads it itself.
func raw(_, header string) (string, error) { return header, nil }

// none is the reader of an op that takes no header: it is not read.
func none(_, _ string) (struct{}, error) { return struct{}{}, nil }

// decode reads a request header into v, strictly: a member v does not
// have is an error, so the page cannot send what the engine ignores, and
// so is a member named in another case or written twice, which
// encoding/json would take.
func decode(op, header string, v any) error {
	d := json.NewDecoder(strings.NewReader(header))
	d.DisallowUnknownFields()
	err := d.Decode(v)
	if err == nil && strings.TrimLeft(header[d.InputOffset():], " \t\r\n") != "" {
		err = errors.New("invalid character after top-level value")
	}
	if err == nil {
		err = exactMembers(header, memberNames(reflect.TypeOf(v).Elem()))
	}
	if err != nil {
		return &engine.Error{Name: engine.TypeError, Message: "veil engine: malformed " + op + " header: " + err.Error()}
	}
	return nil
}

// exactMembers checks the names of the members of the JSON object header,
// which encoding/json has read: each is one of names, spelled exactly,
// and appears once.
func exactMembers(header string, names map[string]bool) error {
	d := json.NewDecoder(strings.NewReader(header))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil // null: encoding/json left v as it was
	}
	seen := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		switch {
		case !names[k]:
			return fmt.Errorf("json: unknown field %q", k)
		case seen[k]:
			return fmt.Errorf("json: field %q twice", k)
		}
		seen[k] = true
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// memberNames are the JSON member names of struct type t.
func memberNames(t reflect.Type) map[string]bool {
	if names, ok := memberCache.Load(t); ok {
		return names.(map[string]bool)
	}
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if name != "-" {
			names[name] = true
		}
	}
	memberCache.Store(t, names)
	return names
}

// memberCache holds memberNames' answers.
var memberCache sync.Map

func reply(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return Failure
	}
	return string(b)
}

// errorReply is the reply header for err. An error that is not an
// *engine.Error is reported as the Failure, without its text.
func errorReply(err error) string {
	var e *engine.Error
	if !errors.As(err, &e) {
		return Failure
	}
	return reply(ErrorReply{e})
}
