package ops

import (
	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/risk"
)

// The page's side of the contract is generated from these lists and
// [All], [Kinds], [ErrorNames] and [Failure] (js/webmcp/contract.js, by
// js/cmd/veil-contract).

// Outcomes are the states a decision puts a call in, DecideReply's
// outcome: the policy's, weakest first, then the one of a call that waits
// for its resolve callback.
var Outcomes = []string{string(risk.Allow), string(risk.Notice), string(risk.Confirm), string(risk.Block), string(engine.Resolving)}

// Sent lists the ops the page sends: all but those the host sends.
var Sent = []string{Init, Register, Unregister, Decide, Resolve, Settle, Output, Configure, Decisions, Items, Reveal, Forget, Scrub, Foreign}
