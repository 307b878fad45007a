// Package ops is the contract between the page's glue (js/webmcp/,
// bundled into dist/webmcp.js) and the engine: the ops the glue sends, their headers and replies, the
// names of the errors a reply carries, and the one failure reply. A
// [Server] answers them over an [engine.Engine]. The package is plain Go,
// tested natively; the WebAssembly command (package main, the parent
// directory) only moves bytes between JavaScript and [Server.Handle].
//
// Every op is three strings in and two out:
//
//	Handle(op, header, body) -> (header, body)
//
// Headers are JSON objects; bodies are raw strings, never JSON-wrapped, so
// a large tool output is not escaped twice. A request header the contract
// does not describe (an unknown member, a wrong type) is a TypeError, so
// the two sides cannot drift apart quietly. A failed op answers
// {"error":{"name","message"}} with an empty body; a Go panic answers
// [Failure], which says nothing of the input or the output.
//
// A tool call crosses once before execute runs and once after:
//
//	decide  {name}           body: input    -> DecideReply; body: the agent view when blocked
//	output  {call, kind}     body: output   -> OutputReply; body: the agent view
//
// The decision names the registration it was made for, whose execute the
// page runs. A tool registered with a resolve callback crosses once more,
// between the two: decide checks the input and opens the call (outcome
// "resolve"); the page runs resolve on the input and sends
// resolve {call, resolved | failed}, which answers as decide does. A call
// the policy puts to the user is settled with settle {call, approved}.
package ops

import "github.com/veilmcp/veil/wasm/engine"

// The ops. The page sends all but Sweep, which the host sends on a timer,
// Exit, which ends the program (a host that shuts the engine down), and
// Stats, which reports the engine's memory (a test, a soak).
const (
	// Init creates the engine for the page: InitRequest -> InitReply. Sent
	// again, it replaces the engine and drops all it held. The first Init
	// of an engine started after the last was lost carries the trust
	// state and policy settings to resume from.
	Init = "init"
	// Register registers a tool: body: the definition as JSON, less
	// execute; header: RegisterRequest -> RegisterReply; body: the
	// normalized definition, what getTools shows.
	Register = "register"
	// Unregister removes a tool: UnregisterRequest -> OKReply.
	Unregister = "unregister"
	// Decide checks a call's input and decides it: DecideRequest; body:
	// the input as JSON -> DecideReply; body: the agent view of a blocked
	// call, which is over.
	Decide = "decide"
	// Resolve decides a call opened for its resolve callback:
	// ResolveRequest -> DecideReply, as Decide.
	Resolve = "resolve"
	// Settle records the user's answer to a call the policy put to them:
	// SettleRequest -> SettleReply.
	Settle = "settle"
	// Output turns what execute produced into the agent view:
	// OutputRequest; body: the output -> OutputReply; body: the agent
	// view, empty when OutputReply.Same.
	Output = "output"
	// Configure changes the risk policy: the header is the options, as
	// engine.Engine.Configure reads them -> ConfigureReply.
	Configure = "configure"
	// Decisions lists the decision log -> DecisionsReply.
	Decisions = "decisions"
	// Items lists what is held for the user, never the values ->
	// ItemsReply.
	Items = "items"
	// Reveal hands the user one held item: HandleRequest -> RevealReply;
	// body: the value.
	Reveal = "reveal"
	// Forget wipes one held item: HandleRequest -> OKReply.
	Forget = "forget"
	// Sweep wipes what has expired -> OKReply. The host sends it.
	Sweep = "sweep"
	// Exit ends the engine -> OKReply; no op is answered after it.
	Exit = "exit"
	// Stats reports the engine's memory and what it holds: StatsRequest
	// -> StatsReply. The host sends it.
	Stats = "stats"
	// Scrub withholds values the page knows must not reach the agent
	// (what the user typed into a form) from the output of a tool's open
	// calls and from every later output: ScrubRequest; body: the values,
	// a JSON array of strings -> OKReply (engine.Engine.Scrub).
	Scrub = "scrub"
	// Foreign tells the engine which tools in the browser's own registry
	// it cannot control, the whole list each time, empty once none
	// remains: ForeignRequest -> OKReply. While the list is not empty,
	// every call asks the user (rule "foreign") and private results are
	// withheld.
	Foreign = "foreign"
	// Withheld asks which of the strings a tool list would carry hold a
	// value the session withheld, so that the page leaves them out of
	// what it lists: body: the strings, a JSON array -> WithheldReply
	// (engine.Engine.Withheld). It fails while the engine cannot say
	// (its scrub set full or lost), and the page then lists none of them.
	Withheld = "withheld"
)

// All lists the ops.
var All = []string{Init, Register, Unregister, Decide, Resolve, Settle, Output, Configure, Decisions, Items, Reveal, Forget, Sweep, Exit, Stats, Scrub, Foreign, Withheld}

// Kinds are the ways execute can end, OutputRequest.Kind.
var Kinds = []engine.OutcomeKind{engine.Returned, engine.Text, engine.Empty, engine.Threw,
	engine.Unserializable, engine.TimedOut, engine.Aborted, engine.Refused}

// Failure is the reply header to anything that went wrong inside the
// engine rather than in the request: it says nothing of either.
const Failure = `{"error":{"name":"OperationError","message":"engine failure"}}`

// ErrorNames are the names a reply's error can carry: the engine's.
var ErrorNames = engine.ErrorNames
