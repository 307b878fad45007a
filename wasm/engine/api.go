// Package engine is Veil's trust boundary: it compiles the schemas a page
// declares for its WebMCP tools, validates inputs, and turns every tool
// output into the agent view, withholding what must not reach an AI agent
// and keeping it, behind opaque handles, for the user to reveal.
//
// The package is plain Go: it never imports syscall/js, so it is tested
// natively. The WebAssembly glue in the parent directory passes JSON text
// across the seam and nothing else.
//
// Every path by which tool output leaves the runtime ends in [Engine.Output].
// Its path, one job per file: output.go answers the outcome (and passes
// through, unchanged, what declares nothing, holds no reference and
// repeats nothing the session withheld); walk.go decides what the view
// keeps, reference.go finds and validates secret_references, hold.go
// keeps what is withheld in the vault (internal/vault), session.go keeps it in
// the session's scrub set for every later view, and scrub.go removes it
// from every other string: needles.go is the set (needletable.go its
// table), match.go its search, fold.go the skeleton it compares by,
// decode.go (unescape.go) and binary.go the decodings it reads through,
// joins.go values split across strings. render.go writes the view in
// MCP's wire shapes (mcp.go). Around it all, the risk policy: calls.go
// keeps the calls and the trust state, decide.go decides each call before
// it runs, outputgate.go is Output's entry and exit, refusal.go the
// refused call's view, configure.go the page's settings and spotlight.go
// the marking of untrusted results.
//
// A tool's schemas are internal/schema's: it compiles them, says where
// they mark values x-sensitive and checks a value against them, on a
// parsed tree (jsontree.go, jsonparse.go) where it can; internal/jsontree
// holds the kinds of value and JSON Pointers every stage shares.
package engine

import (
	"io"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/veilmcp/veil/wasm/engine/internal/schema"
	"github.com/veilmcp/veil/wasm/engine/internal/vault"
	"github.com/veilmcp/veil/wasm/risk"
)

// Defaults for [Options] fields left zero.
const (
	DefaultMaxOutputBytes  = 8 << 20
	DefaultMaxReferenceTTL = time.Hour
	DefaultHoldTTL         = 10 * time.Minute
	DefaultMaxHeldBytes    = 64 << 20
)

// MetaKey is the namespaced _meta key under which an agent view lists what
// was withheld.
const MetaKey = "dev.veil/withheld"

// Options configure an [Engine]. A nil *Options means all defaults.
type Options struct {
	// Origin is the page's origin, as "https://host[:port]". A
	// secret_reference whose redeemUrl resolves elsewhere is invalid.
	// Empty means no reference is valid.
	Origin string
	// BaseURL is the page's own URL (the runtime sends the document's
	// URL, not a <base> element's, which markup can plant), against
	// which relative redeemUrls resolve. Empty means Origin + "/".
	BaseURL string
	// MaxOutputBytes caps the serialized output of a tool that declares
	// anything sensitive. Zero means DefaultMaxOutputBytes.
	MaxOutputBytes int
	// MaxReferenceTTL clamps a secret_reference's ttl. Zero means
	// DefaultMaxReferenceTTL.
	MaxReferenceTTL time.Duration
	// RedeemPath, when set, is the path every redeemUrl must start with
	// (say "/redeem/"). Without it any path on the page's origin will do,
	// and a reference that untrusted content wrote can send the user's
	// Reveal click, with cookies, to any GET endpoint of the site.
	RedeemPath string
	// HoldTTL is how long withheld values are kept for the user. Zero means
	// DefaultHoldTTL.
	HoldTTL time.Duration
	// MaxHeldBytes bounds what the engine holds for the user, in bytes of
	// values, pointers and labels: past it the items of the oldest calls
	// are wiped first. Zero means DefaultMaxHeldBytes.
	MaxHeldBytes int
	// MaxScrubNeedles bounds the session's scrub set, which keeps every
	// value withheld during the session so that no later output repeats
	// it (session.go). Past it the set is full and every later output is
	// withheld whole. Zero means DefaultMaxScrubNeedles.
	MaxScrubNeedles int
	// Regexp compiles the patterns of the page's schemas. In the browser it
	// is the page's ECMA-262 RegExp. Nil means Go's regexp package.
	Regexp jsonschema.RegexpEngine
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
	// Rand is the source of randomness that seeds the engine's ids: call
	// ids, the handles of held items and spotlight markers. It must be
	// cryptographically strong. Nil means crypto/rand.Reader; under
	// GOOS=js it must be set (the host passes the browser's
	// crypto.getRandomValues), and New panics if it is not.
	Rand io.Reader
	// Trust is the trust state the session resumes from: an engine that
	// replaces one that was lost starts from what the agent had already
	// seen, never from a clean session ([risk.Resume]). Nil means a
	// fresh session.
	Trust *risk.State
	// ScrubLost says the session's scrub set was lost with an engine
	// that had withheld something: no later output can be scrubbed of
	// what it withheld, so the set starts full and every output is
	// withheld whole (session.go). An agent that crashes the engine gains
	// nothing by it.
	ScrubLost bool
}

// The names an [Error] carries: JavaScript's TypeError, and the
// DOMException names the page throws.
const (
	TypeError         = "TypeError"
	InvalidStateError = "InvalidStateError"
	DataError         = "DataError"
	NotFoundError     = "NotFoundError"
	OperationError    = "OperationError"
	UnknownError      = "UnknownError"
	AbortError        = "AbortError"
	NotSupportedError = "NotSupportedError"
)

// ErrorNames lists the names an [Error] can carry.
var ErrorNames = []string{TypeError, InvalidStateError, DataError, NotFoundError, OperationError, UnknownError, AbortError, NotSupportedError}

// Error is an error the page sees as a JavaScript exception: Name is one
// of [ErrorNames].
type Error struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Name + ": " + e.Message }

// OutcomeKind says how a tool's execute callback finished.
type OutcomeKind string

// The outcomes the page glue reports to [Engine.Output].
const (
	// Returned: execute returned a value other than a string or undefined;
	// Outcome.Data is its JSON.stringify text.
	Returned OutcomeKind = "returned"
	// Text: execute returned a string; Outcome.Data is that string.
	Text OutcomeKind = "text"
	// Empty: execute returned undefined (or JSON.stringify gave undefined).
	Empty OutcomeKind = "empty"
	// Threw: execute threw or its promise rejected; Outcome.Data is the
	// error's message.
	Threw OutcomeKind = "threw"
	// Unserializable: JSON.stringify of the result threw (a cycle, a
	// BigInt).
	Unserializable OutcomeKind = "unserializable"
	// TimedOut: execute did not settle in time.
	TimedOut OutcomeKind = "timedout"
	// Aborted: the caller's signal aborted; Outcome.Data is the reason.
	Aborted OutcomeKind = "aborted"
	// Refused: the policy blocked the call or the user declined it, so
	// execute never ran; Outcome.Call names the call.
	Refused OutcomeKind = "refused"
)

// Outcome is what a tool's execute produced, as the page glue saw it.
type Outcome struct {
	Kind OutcomeKind
	Data string
	// Call is the id [Engine.Decide] gave the call.
	Call string
}

// Failure locates the first place a value fails its schema: the JSON
// Pointers of the value and of the failing keyword. CheckInput's
// DataError carries it as JSON.
type Failure = schema.Failure

// Item describes one withheld value or secret_reference held for the user.
// It never carries the value.
type Item = vault.Item

// Result is the agent view of one call.
type Result struct {
	// Agent is the string executeTool resolves with, when Err is nil.
	Agent string
	// Err, when not nil, is what executeTool rejects with.
	Err *Error
	// Call is the id Decide gave the call. Its held items are listed
	// under it.
	Call string
	// Held counts the items held for the user's reveal flow; Engine.Items
	// lists them (a call can hold thousands, so they are not listed here).
	Held int
	// Invalid says why each invalid secret_reference was withheld; the
	// page hears it, the agent does not.
	Invalid []string
	// Trust is the session's trust state after the call, when the call
	// changed it.
	Trust *risk.State
	// Malicious: the result carried maliciousActivityHint in
	// _meta.annotations. The agent view says so; the page should too.
	Malicious bool
	// Reserved counts the members of the result named under
	// ReservedPrefix, which only the runtime writes: they were removed.
	// The page should hear of it.
	Reserved int
	// Scrubbing: the session's scrub set holds something after the call.
	// An engine that replaces this one, should it be lost, must be told
	// (Options.ScrubLost).
	Scrubbing bool
	// Unchanged: Agent is the outcome's data as it came. The page can
	// answer with its own string, which keeps what a trip through Go's
	// UTF-8 would not (a lone surrogate).
	Unchanged bool

	// noticed: Agent is a view the rules wrote, whose first content item
	// is the runtime's notice of what was withheld.
	noticed bool
	// parsed is the tree of a returned outcome's data, when Output parsed
	// it: result annotations are read from it, and it is the agent view's
	// tree when Unchanged.
	parsed *tree
}

// Revealed is what [Engine.Reveal] hands the user's side.
type Revealed struct {
	Kind string `json:"kind"` // "value" or "reference"
	// Value is the withheld value: a JSON string's contents, or the JSON
	// text of any other value.
	Value string `json:"value,omitempty"`
	// RedeemURL is the absolute, same-origin URL to GET for a reference.
	RedeemURL string `json:"redeemUrl,omitempty"`
}
