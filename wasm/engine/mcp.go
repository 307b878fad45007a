package engine

import (
	"strconv"
	"unsafe"

	"github.com/veilmcp/veil/wasm/internal/jsonx"
)

// This file writes MCP's wire shapes, by hand where the engine writes them
// (encoding/json's reflection would cost more than the rest of a small
// call): a CallToolResult, its TextContent items, the reduced
// secret_reference item and the runtime's own _meta members. The names
// are the MCP schema's.

// callToolResultStart opens a CallToolResult, up to its first content
// item.
const callToolResultStart = `{"content":[`

// appendTextContent appends a TextContent of text.
func appendTextContent(b []byte, text []byte) []byte {
	b = append(b, `{"type":"text","text":`...)
	b = jsonx.AppendString(b, unsafe.String(unsafe.SliceData(text), len(text)))
	return append(b, '}')
}

// textContentLen is the length of what appendTextContent appends.
func textContentLen(text []byte) int {
	return len(`{"type":"text","text":}`) + jsonx.QuotedLen(unsafe.String(unsafe.SliceData(text), len(text)))
}

// appendSecretReference appends a secret_reference content item reduced
// to what the agent may see: its type, label and ttl, scrubbed.
func appendSecretReference(b []byte, r reference, s *scrubber) []byte {
	b = append(b, `{"type":"secret_reference","label":`...)
	label := r.label
	if c, ok := s.scrub(label); ok {
		label = c
	}
	b = jsonx.AppendString(b, label)
	if r.ttl != "" && !s.isWithheldNumber(r.ttl) {
		b = append(b, `,"ttl":`...)
		b = append(b, r.ttl...)
	}
	return append(b, '}')
}

// appendMeta appends a CallToolResult's _meta member holding one member,
// key, whose value is the JSON text value.
func appendMeta(b []byte, key string, value []byte) []byte {
	b = append(b, `"_meta":{`...)
	b = append(jsonx.AppendString(b, key), ':')
	return append(append(b, value...), '}')
}

// metaLen is the length of what appendMeta appends.
func metaLen(key string, value []byte) int {
	return len(`"_meta":{`) + jsonx.QuotedLen(key) + len(":") + len(value) + len("}")
}

// appendErrorResult appends a CallToolResult with isError set: one
// TextContent of text, and the policy's rule and outcome under
// PolicyMetaKey in _meta.
func appendErrorResult(b []byte, text, rule, outcome string) []byte {
	b = appendTextContent(append(b, callToolResultStart...), []byte(text))
	b = append(b, `],"isError":true,"_meta":{`...)
	b = append(jsonx.AppendString(b, PolicyMetaKey), `:{"rule":`...)
	b = jsonx.AppendString(b, rule)
	b = append(b, `,"outcome":`...)
	b = jsonx.AppendString(b, outcome)
	return append(b, `}}}`...)
}

// appendRiskMeta appends the RiskMetaKey member of a spotlighted
// CallToolResult's _meta, and closes _meta and the result.
func appendRiskMeta(b []byte, malicious bool, marker string) []byte {
	b = append(jsonx.AppendString(b, RiskMetaKey), `:{"untrustedContent":true,"maliciousActivity":`...)
	b = strconv.AppendBool(b, malicious)
	b = append(b, `,"marker":`...)
	return append(jsonx.AppendString(b, marker), "}}}"...)
}
