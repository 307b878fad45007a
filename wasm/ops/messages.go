package ops

import (
	"encoding/json"

	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/risk"
)

// InitRequest is the Init header: the page's side of engine.Options.
type InitRequest struct {
	// Origin is the page's origin; BaseURL its own URL (never a <base>'s).
	Origin  string `json:"origin"`
	BaseURL string `json:"baseURL"`
	// HoldTTLms is how long withheld values are kept, in milliseconds.
	// Zero means engine.DefaultHoldTTL.
	HoldTTLms float64 `json:"holdTTLms,omitempty"`
	// RedeemPath is the path every redeemUrl must start with.
	RedeemPath string `json:"redeemPath,omitempty"`
	// MaxScrubNeedles bounds the session's scrub set; zero means
	// engine.DefaultMaxScrubNeedles.
	MaxScrubNeedles int `json:"maxScrubNeedles,omitempty"`
	// ScrubLost is sent with Trust when a lost engine's replies said its
	// scrub set held something (OutputReply.Scrubbing):
	// engine.Options.ScrubLost.
	ScrubLost bool `json:"scrubLost,omitempty"`
	// MaxOutputBytes and MaxReferenceTTLs (seconds) are the engine's
	// bounds; zero means its defaults.
	MaxOutputBytes   int     `json:"maxOutputBytes,omitempty"`
	MaxReferenceTTLs float64 `json:"maxReferenceTTLs,omitempty"`
	// Trust and Settings are sent when the engine starts again after the
	// last one was lost: the trust state it last reported, which the new
	// session resumes from (engine.Options.Trust), and the risk policy's
	// settings as its last ConfigureReply gave them, which the new engine
	// configures before it answers.
	Trust    *risk.State     `json:"trust,omitempty"`
	Settings json.RawMessage `json:"settings,omitempty"`
}

// InitReply answers Init with the session's trust state, which the page
// shows until a call changes it.
type InitReply struct {
	Trust risk.State `json:"trust"`
}

// RegisterRequest is the Register header.
type RegisterRequest struct {
	// Registration names this registration of the tool, so that
	// Unregister removes it and not a later one of the same name. The
	// page numbers its registrations.
	Registration int64 `json:"registration"`
	// Resolve: the tool has a resolve callback. Every call of it is
	// opened by Decide with the outcome "resolve", and decided by Resolve
	// once the page has run the callback on the checked input.
	Resolve bool `json:"resolve,omitempty"`
}

// RegisterReply answers Register.
type RegisterReply struct {
	// Notes are what the page says on the console of the registration:
	// each annotation the runtime does not read, passed on as it is,
	// once per engine.
	Notes []string `json:"notes,omitempty"`
}

// UnregisterRequest is the Unregister header.
type UnregisterRequest struct {
	Name string `json:"name"`
	// Registration is RegisterRequest.Registration: the tool is removed
	// only while that registration holds the name.
	Registration int64 `json:"registration"`
}

// DecideRequest is the Decide header.
type DecideRequest struct {
	Name string `json:"name"`
}

// DecideReply answers Decide and Resolve: the decision, and the
// registration of the tool it was made for, whose execute the page runs.
type DecideReply struct {
	engine.Decision
	Registration int64 `json:"registration"`
}

// ResolveRequest is the Resolve header.
type ResolveRequest struct {
	Call string `json:"call"`
	// Resolved is what resolve returned, as JSON: annotations, or null.
	Resolved json.RawMessage `json:"resolved,omitempty"`
	// Failed: resolve threw, timed out or returned something that is not
	// an object.
	Failed bool `json:"failed,omitempty"`
}

// SettleRequest is the Settle header.
type SettleRequest struct {
	Call     string `json:"call"`
	Approved bool   `json:"approved"`
}

// SettleReply answers Settle with the call's entry in the decision log.
type SettleReply struct {
	Entry risk.Entry `json:"entry"`
}

// OutputRequest is the Output header.
type OutputRequest struct {
	// Call is the id Decide gave the call, which knows its tool.
	Call string             `json:"call"`
	Kind engine.OutcomeKind `json:"kind"`
}

// OutputReply answers Output. The page's events use the call's id, which
// it has from Decide.
type OutputReply struct {
	// Held counts what the call withheld; the list can run to thousands
	// of items, so the page asks for it with Items.
	Held int `json:"held"`
	// Invalid says why each invalid secret_reference was withheld.
	Invalid []string      `json:"invalid"`
	Error   *engine.Error `json:"error,omitempty"`
	// Trust is the session's trust state, when the call changed it.
	Trust *risk.State `json:"trust,omitempty"`
	// Malicious: the result was flagged with maliciousActivityHint.
	Malicious bool `json:"malicious,omitempty"`
	// Same: the agent view is the output as the page sent it; the body is
	// empty and the page answers with its own string.
	Same bool `json:"same,omitempty"`
	// Reserved counts the members under the runtime's own _meta prefix
	// the result carried, which were removed.
	Reserved int `json:"reserved,omitempty"`
	// Warnings are what the page says on the console of the call, each
	// after "tool NAME ": counts only, since agents read the console
	// (the page's events give the rest).
	Warnings []string `json:"warnings,omitempty"`
	// Scrubbing: the session's scrub set holds something; should this
	// engine be lost, the next is started with InitRequest.ScrubLost.
	Scrubbing bool `json:"scrubbing,omitempty"`
}

// DecisionsReply answers Decisions, oldest first.
type DecisionsReply struct {
	Decisions []risk.Entry `json:"decisions"`
}

// ItemsReply answers Items.
type ItemsReply struct {
	Items []engine.Item `json:"items"`
}

// HandleRequest is the Reveal and Forget header.
type HandleRequest struct {
	Handle string `json:"handle"`
}

// RevealReply answers Reveal; the value is the body.
type RevealReply struct {
	Kind      string `json:"kind"`
	RedeemURL string `json:"redeemUrl,omitempty"`
}

// ConfigureReply answers Configure with the policy's settings after it:
// every member the page has set, merged, which Init takes back
// (InitRequest.Settings) to make the same policy in a new engine.
type ConfigureReply struct {
	OK       bool            `json:"ok"`
	Settings json.RawMessage `json:"settings"`
}

// StatsRequest is the Stats header.
type StatsRequest struct {
	// GC collects garbage first (twice, so that what sync.Pools keep is
	// let go too), so that HeapLiveBytes is what is live now rather than
	// at the last collection.
	GC bool `json:"gc,omitempty"`
}

// StatsReply answers Stats, from the Go runtime's metrics
// (runtime/metrics) and the engine's vault.
type StatsReply struct {
	// HeapLiveBytes is the heap that was live after the last garbage
	// collection (/gc/heap/live:bytes).
	HeapLiveBytes uint64 `json:"heapLiveBytes"`
	// HeapObjectsBytes is the heap in objects, live or not yet swept
	// (/memory/classes/heap/objects:bytes).
	HeapObjectsBytes uint64 `json:"heapObjectsBytes"`
	// TotalBytes is all the memory the Go runtime has taken
	// (/memory/classes/total:bytes): under WebAssembly, what the module's
	// memory holds for Go, which never shrinks.
	TotalBytes uint64 `json:"totalBytes"`
	// Held counts the items held for the user.
	Held int `json:"held"`
	// ScrubNeedles counts what the session's scrub set holds, and
	// ScrubFull says it is full (engine.Engine.ScrubNeedles).
	ScrubNeedles int  `json:"scrubNeedles"`
	ScrubFull    bool `json:"scrubFull"`
}

// ScrubRequest is the Scrub header.
type ScrubRequest struct {
	// Tool names the tool whose open calls' output the values are
	// withheld from.
	Tool string `json:"tool"`
}

// ForeignRequest is the Foreign header.
type ForeignRequest struct {
	// Names are the names of the native tools the runtime cannot
	// control: engine.Engine.SetForeign.
	Names []string `json:"names"`
}

// WithheldReply answers Withheld: for each string of the request's body,
// in order, whether it holds a value the session withheld.
type WithheldReply struct {
	Withheld []bool `json:"withheld"`
}

// OKReply answers the ops that only succeed or not.
type OKReply struct {
	OK bool `json:"ok"`
}

// ErrorReply is the reply header of a failed op.
type ErrorReply struct {
	Error *engine.Error `json:"error"`
}
