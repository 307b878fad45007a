package risk_test

import (
	"fmt"

	"github.com/veilmcp/veil/wasm/risk"
)

// The lethal trifecta, as SEP-1913's email example has it: an inbox of
// untrusted mail, private drafts, and a tool that sends email to anyone.
func Example() {
	parse := func(raw string) *risk.Annotations {
		a, _, err := risk.ParseAnnotations([]byte(raw))
		if err != nil {
			panic(err)
		}
		return a
	}
	listInbox := parse(`{"returnMetadata":{"source":"untrustedPublic","sensitivity":["pii","user"]}}`)
	sendEmail := parse(`{"inputMetadata":{"destination":"public","sensitivity":["pii","user"],"outcomes":"irreversible"}}`)

	p, _ := risk.NewPolicy(nil)
	var s risk.State
	d := p.Decide(risk.Call{Tool: "list_inbox", Static: listInbox}, &s)
	fmt.Println("list_inbox:", d.Outcome)
	s.Observe(p, "list_inbox", listInbox, risk.ResultAnnotations{})

	d = p.Decide(risk.Call{Tool: "send_email", Static: sendEmail}, &s)
	fmt.Println("send_email:", d.Outcome, "by rule", d.Rule)
	for _, f := range d.Facts {
		fmt.Printf("  %s: %s %s = %s\n", f.Rule, f.Source, f.Key, f.Value)
	}
	// Output:
	// list_inbox: allow
	// send_email: confirm by rule trifecta
	//   trifecta: session privateData = pii
	//   trifecta: session untrustedContent = true
	//   trifecta: tool inputMetadata.destination = public
	//   trifecta: tool inputMetadata.sensitivity = pii
	//   trifecta: tool inputMetadata.sensitivity = user
	//   consequential: tool inputMetadata.outcomes = irreversible
}
