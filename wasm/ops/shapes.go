package ops

import "encoding/json"

// A Shape is what one op reads in its header and answers in its reply
// header, as Go values whose JSON is theirs. Any op can answer ErrorReply
// instead.
type Shape struct {
	Op string
	// Request is the header's type; nil when the op reads no header.
	Request any
	// Reply is the reply header's type.
	Reply any
}

// Shapes lists every op's shape, in the order of All. The page's
// contract (js/webmcp/contract.js) declares its types from them, so that
// a type check of the page's modules finds a member the engine does not
// read or write; TestShapes holds the requests to the headers the
// methods read.
var Shapes = []Shape{
	{Init, InitRequest{}, InitReply{}},
	{Register, RegisterRequest{}, RegisterReply{}},
	{Unregister, UnregisterRequest{}, OKReply{}},
	{Decide, DecideRequest{}, DecideReply{}},
	{Resolve, ResolveRequest{}, DecideReply{}},
	{Settle, SettleRequest{}, SettleReply{}},
	{Output, OutputRequest{}, OutputReply{}},
	{Configure, json.RawMessage{}, ConfigureReply{}},
	{Decisions, nil, DecisionsReply{}},
	{Items, nil, ItemsReply{}},
	{Reveal, HandleRequest{}, RevealReply{}},
	{Forget, HandleRequest{}, OKReply{}},
	{Sweep, nil, OKReply{}},
	{Exit, nil, OKReply{}},
	{Stats, StatsRequest{}, StatsReply{}},
	{Scrub, ScrubRequest{}, OKReply{}},
	{Foreign, ForeignRequest{}, OKReply{}},
}
