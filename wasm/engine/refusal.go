package engine

import (
	"fmt"

	"github.com/veilmcp/veil/wasm/risk"
)

// This file writes the agent view of a call the policy refused: an MCP
// error result that names the rule and says why.

// PolicyMetaKey is the namespaced _meta key under which the agent view of
// a refused call names the rule.
const PolicyMetaKey = "dev.veil/policy"

// ruleReasons explain each rule to the agent, in the refusal's text.
var ruleReasons = map[string]string{
	risk.RuleTrifecta:      "this session holds private data and has seen untrusted content, and this tool can send data out",
	risk.RuleConsequential: "this tool's effects are irreversible, destructive, privileged or otherwise consequential",
	risk.RuleMalicious:     "activity in this session was flagged as possibly malicious",
	risk.RuleResolve:       "the page could not say what this call would do",
	risk.RuleUndecided:     "the call was not decided before it ran",
	risk.RuleCapacity:      "the page has as many calls in progress as it allows; try again once some have finished",
	risk.RuleFlood:         "as many questions wait for the user as the page allows",
	risk.RuleForeign:       "a tool the runtime cannot control is open to agents on this page, so every call needs the user's approval",
}

// refusal is the agent view of a call that did not run, or whose output
// is refused: an MCP error result that names the rule.
func refusal(tool, rule, outcome string) Result {
	var text string
	switch {
	case rule == risk.RuleUndecided:
		text = fmt.Sprintf("The runtime refused the output of tool %q", tool)
	case outcome == "declined":
		text = fmt.Sprintf("The user declined the call of tool %q, so it did not run", tool)
	case outcome == "refused":
		text = fmt.Sprintf("The call of tool %q did not run", tool)
	default:
		text = fmt.Sprintf("The page's policy blocked the call of tool %q, so it did not run", tool)
	}
	if rule != "" {
		text += fmt.Sprintf(" (rule %q: %s)", rule, ruleReasons[rule])
	}
	text += ". Do not try to get around this; ask the user if the task needs it."
	return Result{Agent: string(appendErrorResult(nil, text, rule, outcome))}
}
