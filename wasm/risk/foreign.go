package risk

// This file holds what the policy does while the browser's own registry
// holds a tool the runtime cannot control (a foreign tool): one planted by
// markup the runtime cannot see (a form in a closed shadow root, in a
// frame without the runtime) or registered by script on the native
// object. Such a tool runs with no decision of the engine, so the session
// has a way out the policy does not gate, and the agent has read a name
// and description the page did not write: the trifecta's third leg is
// always there, and so, as far as the policy can tell, is untrusted
// content. What is left to the engine is what reaches the agent: every
// call asks the user (RuleForeign), and a result that would bring private
// data into the agent's context is withheld (WithholdsWhileForeign).

// foreignFacts are the facts of RuleForeign: the foreign tools' names,
// within MaxToolNames.
func foreignFacts(names []string) []Fact {
	var facts []Fact
	for i, n := range names {
		if i == MaxToolNames {
			break
		}
		facts = append(facts, Fact{Source: "session", Key: "foreignTool", Value: n})
	}
	return facts
}

// WithholdsWhileForeign reports whether a result of a call with
// annotations a is withheld from the agent, as sensitiveHint's are, while
// a foreign tool is present: what the policy withholds anyway, and a
// result that carries private data (a label of the private list). Such a
// result would complete the trifecta around the engine.
func (p *Policy) WithholdsWhileForeign(a *Annotations) bool {
	return p.Withholds(a) || len(p.PrivateClasses(a)) > 0
}
