package risk

import (
	"fmt"
	"slices"
)

// This file holds the page's configuration of the policy, its defaults,
// and NewPolicy, which checks it.

// The defaults of the policy's bounds.
const (
	DefaultMaxCalls         = 64
	DefaultMaxConfirmations = 8
	// MaxMaxCalls bounds what MaxCalls can be set to.
	MaxMaxCalls = 4096
	// DefaultTimeoutMs is how long a call's execute may run, in
	// milliseconds, before the call fails; DefaultSlowTimeoutMs the same
	// for a call with slowExecutionHint.
	DefaultTimeoutMs     = 120_000
	DefaultSlowTimeoutMs = 600_000
	// MaxTimeoutMs is the longest timeout: the longest delay a browser's
	// setTimeout keeps (a longer one fires at once).
	MaxTimeoutMs = 1<<31 - 1
)

// Config is a page's policy configuration, as JSON from veil.configure.
// The zero Config is the default policy. Lists add to the defaults; they
// never take anything away from them.
type Config struct {
	// Rules makes a rule stricter: "block" instead of asking the user.
	// Keys: "malicious", "trifecta", "consequential", "foreign"; values "confirm"
	// (the default) or "block".
	Rules map[string]string `json:"rules"`
	// InsecureDisableRules turns rules off: "malicious", "trifecta",
	// "consequential", "aiProcessing", "spotlight".
	InsecureDisableRules []string `json:"insecureDisableRules"`
	// Withhold adds sensitivity labels whose results are withheld from
	// the agent as sensitiveHint's are. Default: "credentials",
	// "restricted".
	Withhold []string `json:"withhold"`
	// Private adds sensitivity labels that mark the session as holding
	// private data. Default: "pii", "financial", "regulated",
	// "confidential", "sensitiveDataHint".
	Private []string `json:"private"`
	// MaxCalls bounds the calls in progress at once (decided, not yet
	// finished); more are declined before they run (RuleCapacity). Zero
	// means DefaultMaxCalls; at most MaxMaxCalls.
	MaxCalls int `json:"maxCalls"`
	// MaxConfirmations bounds the calls waiting for the user's answer;
	// more that need one are declined (RuleFlood). Zero means
	// DefaultMaxConfirmations; at most MaxCalls.
	MaxConfirmations int `json:"maxConfirmations"`
	// TimeoutMs is how long a call's execute may run, in milliseconds,
	// before the call fails. Zero means DefaultTimeoutMs.
	TimeoutMs int `json:"timeoutMs"`
	// SlowTimeoutMs is TimeoutMs for a call with slowExecutionHint. Zero
	// means DefaultSlowTimeoutMs.
	SlowTimeoutMs int `json:"slowTimeoutMs"`
}

// The default sensitivity mapping.
var (
	DefaultWithhold = []string{"credentials", "restricted"}
	DefaultPrivate  = []string{"pii", "financial", "regulated", "confidential", "sensitiveDataHint"}
)

// Labels are the sensitivity labels a Config may name: SEP-1913's data
// classes, mcp.dev/resultSensitivity's values and sensitiveDataHint.
var Labels = []string{
	"none", "user", "pii", "financial", "credentials", "regulated",
	"public", "internal", "confidential", "restricted",
	"sensitiveDataHint",
}

// NewPolicy checks c and returns the policy it configures. A nil c means
// the default policy.
func NewPolicy(c *Config) (*Policy, error) {
	p := &Policy{
		malicious:     Confirm,
		trifecta:      Confirm,
		consequential: Confirm,
		foreign:       Confirm,
		spot:          true,
		ai:            true,
		withhold:      slices.Clone(DefaultWithhold),
		private:       slices.Clone(DefaultPrivate),

		maxCalls:         DefaultMaxCalls,
		maxConfirmations: DefaultMaxConfirmations,
		timeoutMs:        DefaultTimeoutMs,
		slowTimeoutMs:    DefaultSlowTimeoutMs,
	}
	if c == nil {
		return p, nil
	}
	switch {
	case c.MaxCalls < 0 || c.MaxCalls > MaxMaxCalls:
		return nil, fmt.Errorf("maxCalls: must be between 1 and %d, got %d", MaxMaxCalls, c.MaxCalls)
	case c.MaxCalls > 0:
		p.maxCalls = c.MaxCalls
	}
	switch {
	case c.MaxConfirmations < 0 || c.MaxConfirmations > p.maxCalls:
		return nil, fmt.Errorf("maxConfirmations: must be between 1 and maxCalls (%d), got %d", p.maxCalls, c.MaxConfirmations)
	case c.MaxConfirmations > 0:
		p.maxConfirmations = c.MaxConfirmations
	}
	p.maxConfirmations = min(p.maxConfirmations, p.maxCalls)
	for _, t := range []struct {
		key     string
		got     int
		setting *int
	}{{"timeoutMs", c.TimeoutMs, &p.timeoutMs}, {"slowTimeoutMs", c.SlowTimeoutMs, &p.slowTimeoutMs}} {
		switch {
		case t.got < 0 || t.got > MaxTimeoutMs:
			return nil, fmt.Errorf("%s: must be a positive number of milliseconds, at most %d, got %d", t.key, MaxTimeoutMs, t.got)
		case t.got > 0:
			*t.setting = t.got
		}
	}
	for rule, v := range c.Rules {
		m := p.mode(rule)
		if m == nil {
			return nil, fmt.Errorf("rules: unknown rule %q (known: malicious, trifecta, consequential, foreign)", rule)
		}
		switch v {
		case "confirm":
			*m = Confirm
		case "block":
			*m = Block
		default:
			return nil, fmt.Errorf("rules.%s: must be \"confirm\" or \"block\", got %q", rule, v)
		}
	}
	for _, rule := range c.InsecureDisableRules {
		switch m := p.mode(rule); {
		case rule == RuleForeign:
			return nil, fmt.Errorf("insecureDisableRules: rule %q cannot be turned off (make it \"block\" in rules instead)", rule)
		case m != nil:
			*m = Allow
		case rule == RuleSpotlight:
			p.spot = false
		case rule == RuleAIProcessing:
			p.ai = false
		default:
			return nil, fmt.Errorf("insecureDisableRules: unknown rule %q (known: malicious, trifecta, consequential, aiProcessing, spotlight)", rule)
		}
	}
	for _, l := range [][]string{c.Withhold, c.Private} {
		for _, s := range l {
			if !slices.Contains(Labels, s) {
				return nil, fmt.Errorf("unknown sensitivity label %q (known: %s)", s, quoteAll(Labels))
			}
		}
	}
	for _, s := range c.Withhold {
		p.withhold = appendNew(p.withhold, s)
	}
	for _, s := range c.Private {
		p.private = appendNew(p.private, s)
	}
	return p, nil
}
