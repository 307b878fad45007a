package risk

import "slices"

// This file holds the vocabulary of a decision: the rules, the outcomes,
// the facts a decision cites and the load it puts a call under.

// The rules of the policy, as decisions and the configuration name them.
const (
	// RuleResolve blocks a call whose resolve callback failed or returned
	// annotations that are not valid: the policy cannot know the call's
	// risk. It cannot be turned off.
	RuleResolve = "resolve"
	// RuleMalicious asks the user before a call that resolve flagged with
	// maliciousActivityHint, and, once any result of the session was
	// flagged, before every call of a tool that may change something or
	// send data out.
	RuleMalicious = "malicious"
	// RuleTrifecta asks the user before a tool that can send data out
	// runs in a session that holds private data and has seen untrusted
	// content.
	RuleTrifecta = "trifecta"
	// RuleConsequential asks the user before a tool whose effects are
	// irreversible, destructive, privileged or consequential; a
	// destructive tool that declares itself reversible gets a notice.
	RuleConsequential = "consequential"
	// RuleAIProcessing tells the user, without asking, when a tool that
	// declares aiProcessingHint runs in a session that holds private data:
	// the data may go to an AI model.
	RuleAIProcessing = "aiProcessing"
	// RuleSpotlight delimits untrusted results in the agent view and
	// labels them as data, not instructions.
	RuleSpotlight = "spotlight"
	// RuleUndecided refuses the agent view of a call that ran without a
	// decision when the policy would not have allowed it.
	RuleUndecided = "undecided"
	// RuleCapacity declines a call, before it runs, while the page has
	// as many calls in progress as its policy allows (MaxCalls). It
	// cannot be turned off: a call is never refused after it ran.
	RuleCapacity = "capacity"
	// RuleFlood declines a call that needs the user's confirmation while
	// as many questions wait for the user as the policy allows
	// (MaxConfirmations).
	RuleFlood = "flood"
	// RuleForeign asks the user before every call while the browser's
	// own registry holds a tool the runtime cannot control (Call.Foreign):
	// such a tool can send out whatever reaches the agent, with no
	// decision of the engine. It can be made to block; it cannot be
	// turned off.
	RuleForeign = "foreign"
)

// Outcome is what a decision says to do with a call.
type Outcome string

// The outcomes, weakest first.
const (
	// Allow runs the call.
	Allow Outcome = "allow"
	// Notice runs the call and tells the user it is running.
	Notice Outcome = "notice"
	// Confirm runs the call only once the user approves it.
	Confirm Outcome = "confirm"
	// Block never runs the call.
	Block Outcome = "block"
)

func (o Outcome) rank() int { return slices.Index([]Outcome{Allow, Notice, Confirm, Block}, o) }

// Fact is one thing a rule used. Source is "tool" (the tool's
// annotations), "call" (what its resolve callback returned), "default"
// (MCP's default for a hint the tool left out), "meta" (the tool's _meta)
// or "session" (the trust state); Key names the hint or state and Value is
// its value. Values are the vocabulary's own words and tool names, never
// anything a tool was given or returned.
type Fact struct {
	Rule   string `json:"rule"`
	Source string `json:"source"`
	Key    string `json:"key"`
	Value  string `json:"value"`
}

// Load is what a call's annotations ask of the runtime's scheduling.
type Load struct {
	// Slow: slowExecutionHint. The call gets the longer timeout and the
	// page shows it as in progress.
	Slow bool `json:"slow"`
	// Exclusive: resourceIntensiveHint. Such calls run one at a time.
	Exclusive bool `json:"exclusive"`
	// Retry: idempotentHint or mcp.dev/idempotent, and neither false. The
	// call is retried once after a transient failure.
	Retry bool `json:"retry"`
	// TimeoutMs is how long execute may run, in milliseconds, before the
	// call fails: the policy's timeout, or its slow timeout for a slow
	// call.
	TimeoutMs int `json:"timeoutMs"`
}

// Decision is the policy's answer for one call.
type Decision struct {
	Outcome Outcome `json:"outcome"`
	// Rule names the rule that decided; "" when the call is allowed.
	Rule string `json:"rule,omitempty"`
	// Facts are what every rule that fired used, in rule order.
	Facts []Fact `json:"facts"`
	Load  Load   `json:"load"`
}
