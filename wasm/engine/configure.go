package engine

import (
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/veilmcp/veil/wasm/risk"
)

// This file holds the page's configuration of the risk policy: Configure
// reads and merges it, Settings gives it back.

// Settings returns the members of the risk policy's configuration the
// page has set, as one object in JSON: what [Engine.Configure] of a fresh
// engine takes to make the same policy.
func (e *Engine) Settings() json.RawMessage {
	e.risk.mu.Lock()
	defer e.risk.mu.Unlock()
	b, err := json.Marshal(e.risk.settings)
	if err != nil || e.risk.settings == nil {
		return json.RawMessage(`{}`)
	}
	return b
}

// Configure changes the page's risk policy: config is JSON text of an
// object with some of the members of a [risk.Config]. A member left out
// keeps its value; a member set to null gets its default back. A
// malformed config, or one the policy refuses, is a TypeError and changes
// nothing.
func (e *Engine) Configure(config string) error {
	var patch map[string]json.RawMessage
	if strings.TrimSpace(config) != "" {
		if err := json.Unmarshal([]byte(config), &patch); err != nil || patch == nil {
			return typeError("veil.configure: the options must be an object")
		}
	}
	rs := &e.risk
	rs.mu.Lock()
	defer rs.mu.Unlock()
	settings := maps.Clone(rs.settings)
	if settings == nil {
		settings = map[string]json.RawMessage{}
	}
	for k, v := range patch {
		if string(v) == "null" {
			delete(settings, k)
		} else {
			settings[k] = v
		}
	}
	c, err := decodeConfig(settings)
	if err != nil {
		return err
	}
	p, err := risk.NewPolicy(&c)
	if err != nil {
		return typeError("veil.configure: %v", err)
	}
	rs.policy, rs.settings = p, settings
	return nil
}

// decodeConfig reads the page's settings into a risk.Config, naming a key
// it does not know, and the key it resembles.
func decodeConfig(settings map[string]json.RawMessage) (risk.Config, error) {
	var c risk.Config
	known := jsonNames(reflect.TypeFor[risk.Config]())
	for k := range settings {
		if slices.Contains(known, k) {
			continue
		}
		if near, ok := risk.Resembles(k, known...); ok {
			return c, typeError("veil.configure: unknown option %q; did you mean %q?", k, near)
		}
		return c, typeError("veil.configure: unknown option %q (known: %s)", k, strings.Join(known, ", "))
	}
	b, _ := json.Marshal(settings)
	if err := json.Unmarshal(b, &c); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return c, typeError("veil.configure: %s must be %s, got %s", te.Field, jsonKind(te.Type), te.Value)
		}
		return c, typeError("veil.configure: %v", err)
	}
	return c, nil
}

// jsonNames lists the JSON member names of struct type t.
func jsonNames(t reflect.Type) []string {
	names := make([]string, t.NumField())
	for i := range names {
		names[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return names
}

// jsonKind names what a Go type holds, in JSON's words.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array"
	case reflect.Map:
		return "an object"
	}
	return t.String()
}
