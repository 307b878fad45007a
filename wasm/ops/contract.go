package ops

import (
	"time"

	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/risk"
)

// The page's side of the contract is generated from these lists and
// [All], [Kinds], [ErrorNames], [Failure] and [Limits] (js/webmcp/contract.js, by
// js/cmd/veil-contract).

// Outcomes are the states a decision puts a call in, DecideReply's
// outcome: the policy's, weakest first, then the one of a call that waits
// for its resolve callback.
var Outcomes = []string{string(risk.Allow), string(risk.Notice), string(risk.Confirm), string(risk.Block), string(engine.Resolving)}

// Limits are the page's bounds on waiting for an op, which the engine's
// own deadlines count on: the page takes them from the contract.
var Limits = []struct {
	Name  string
	Value time.Duration
	Doc   string
}{
	{"OP_TIMEOUT_MS", engine.OpTimeout, "every op, start-up included"},
	{"OUTPUT_TIMEOUT_MS", engine.OutputTimeout, "the output op, which makes a call's agent view"},
}

// Sent lists the ops the page sends: all but those the host sends.
var Sent = []string{Init, Register, Unregister, Decide, Resolve, Settle, Output, Configure, Decisions, Items, Reveal, Forget, Scrub, Foreign, Withheld}
