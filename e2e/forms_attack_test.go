package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attacks on forms: a form's answer must not give the agent what
// the user typed, and a form an agent's call submits with a card's details
// in it asks the user first.

// editorForm is a form whose message body is a form-associated custom
// element that submits what the user wrote under names of its own
// (<x-editor name="body"> submits body_text and body_html), beside one
// that submits a string under its name (<x-field name="subject">).
const editorForm = `<form id="note" toolname="send_note" tooldescription="Sends a note">
	<input name="to" toolparamdescription="Who gets the note">
	<x-field name="subject"></x-field>
	<x-editor name="body"></x-editor>
	<button>Send</button>
</form>`

// TestFormsAttackCustomElementEntries: a form's answer must not give
// the agent what the user typed. The runtime reads a form-associated
// custom element's value from the form's entry list, but only under the
// element's own name; an element that submits a FormData (a rich-text
// editor, a card field) submits its entries under names of their own, and
// what the user typed there reaches the agent in an answer built from
// new FormData(form), as form handlers build it.
func TestFormsAttackCustomElementEntries(t *testing.T) {
	t.Parallel() // beside the other tests; each browser in a tab of its own
	for _, b := range formBrowsers {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // each browser its own tab
			tb := openForms(t, b.b(), "worker")
			eval[bool](tb, `new Promise((r, fail) => { const s = document.createElement("script"); s.src = "/attacks/editor.js"; s.onload = () => r(true); s.onerror = fail; document.head.append(s); })`)
			eval[bool](tb, `forms.add(`+js(editorForm)+`)`)
			eval[bool](tb, `(forms.answer.note = {respond: (f) => ({submitted: Object.fromEntries(new FormData(f))})}, true)`)
			eval[map[string]any](tb, `forms.tool("send_note")`)
			const subject = "Subject typed 7Hq2Lm9Zx4 by the user"
			const body = "Body typed Qw3rTy8Uz5 by the user"
			eval[bool](tb, `(forms.user.note = {subject: `+js(subject)+`, body: `+js(body)+`}, true)`)
			view := agentCall(tb, "document.modelContext.executeTool", "send_note", `{"to":"bob"}`)
			assert.Contains(t, view, "bob", "what the agent filled")
			assert.Equal(t, body, eval[string](tb, `new FormData(document.querySelector("#note")).get("body_text")`), "the form submitted what the user typed")
			assertWithheld(t, view, subject, "a custom element's string value")
			assertWithheld(t, view, body, "a custom element's FormData entries")
		})
	}
}

// TestFormsAttackMultilineAsHTML: a message the user typed over
// several lines, in a form the agent filled the rest of, comes back in the
// answer as the page shows it, each line break an HTML <br>: the runtime
// withholds the message whole, and each line reaches the agent.
func TestFormsAttackMultilineAsHTML(t *testing.T) {
	t.Parallel() // beside the other tests; each browser in a tab of its own
	for _, b := range formBrowsers {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // each browser its own tab
			tb := openForms(t, b.b(), "worker")
			eval[bool](tb, `forms.add('<form id="letter" toolname="send_letter" tooldescription="Sends a letter"><input name="to"><textarea name="message"></textarea><button>Send</button></form>')`)
			eval[bool](tb, `(forms.answer.letter = {respond: (f) => "<p>To " + f.to.value + ":</p><p>" + f.message.value.replace(/\n/g, "<br>") + "</p>"}, true)`)
			eval[map[string]any](tb, `forms.tool("send_letter")`)
			const message = "Meet me at the north gate at nine\nthe door code is 5521 9087 4410\nbring the ledger from the safe"
			// The agent leaves the message to the user, who types it.
			eval[bool](tb, `(forms.user.letter = {message: `+js(message)+`}, true)`)
			view := agentCall(tb, "document.modelContext.executeTool", "send_letter", `{"to":"bob"}`)
			assert.Contains(t, view, "bob", "what the agent filled")
			assertWithheld(t, view, message, "the message the user typed")
			for _, line := range strings.Split(message, "\n") {
				assertWithheld(t, view, line, "a line of the message the user typed")
			}
		})
	}
}

// TestFormsAttackOutsideControl: a form an agent's call submits
// (toolautosubmit) with a card's details in it asks the user first. The
// runtime watches the form's own subtree for the controls that make it
// so; a card field elsewhere in the page that joins the form by its form
// attribute, rendered after the form was a tool (a layout that puts the
// card field in a side panel, a portal), is not seen: the tool stays one
// that does not ask, and the agent's call submits the card unasked.
func TestFormsAttackOutsideControl(t *testing.T) {
	t.Parallel() // beside the other tests; each browser in a tab of its own
	for _, b := range formBrowsers {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // each browser its own tab
			tb := openForms(t, b.b(), "worker")
			eval[bool](tb, `veil.configure({confirm: (r) => ((window.asked ??= []).push(r.tool), true)}).then(() => true)`)
			eval[bool](tb, `forms.add('<form id="pay" toolname="pay_order" tooldescription="Pays the order" toolautosubmit><input name="amount"><button>Pay</button></form>')`)
			eval[bool](tb, `(forms.answer.pay = {respond: "paid"}, true)`)
			eval[map[string]any](tb, `forms.tool("pay_order")`)
			eval[bool](tb, `(document.body.insertAdjacentHTML("beforeend", '<aside><input form="pay" name="card" autocomplete="cc-number"></aside>'), true)`)
			eval[bool](tb, `new Promise((r) => setTimeout(() => r(true), 500))`)
			require.True(t, eval[bool](tb, `document.querySelector("#pay").elements.namedItem("card") !== null`), "the card field is the form's control")
			eval[bool](tb, `(document.querySelector("[name=card]").value = "4111 1111 1111 1111", true)`)
			ann := eval[map[string]any](tb, `forms.tool("pay_order").then((t) => t.annotations ?? {})`)
			assert.Equal(t, true, ann["consequentialHint"], "a form with a card field that an agent's call submits is consequential")
			got := callForm(tb, "document.modelContext.executeTool", "pay_order", `{"amount":"12"}`)
			require.True(t, got.OK, "%+v", got)
			assert.Equal(t, []string{"pay_order"}, eval[[]string](tb, `window.asked ?? []`), "the call asked the user before it submitted the card")
		})
	}
}

// slowRedeemSite is the demo site with the engine's hold set to holdTTL
// seconds, and a server whose redemption answers arrive delay after it
// redeemed (a slow network): the secret is spent when the request comes.

// TestFormsAttackControlsNamedForFormMembers: controls named for the
// members the runtime reads on a form (a control named elements is
// form.elements, one named getAttribute is form.getAttribute) neither
// stop the form being a tool nor change what it declares: the runtime
// reads the form through the DOM's own getters and methods, and a call
// fills, checks and submits it.
func TestFormsAttackControlsNamedForFormMembers(t *testing.T) {
	t.Parallel() // a tab of its own
	names := []string{"elements", "getAttribute", "hasAttribute", "setAttribute", "removeAttribute", "isConnected",
		"addEventListener", "removeEventListener", "checkValidity", "requestSubmit", "matches", "localName"}
	var planted strings.Builder
	for _, n := range names {
		fmt.Fprintf(&planted, `<input type="hidden" name="%s" value="x">`, n)
	}
	tb := openForms(t, plain, "worker")
	eval[bool](tb, `forms.add(`+js(`<form id="notes" toolname="search_notes" tooldescription="Searches the notes" toolautosubmit><input name="q" required>`+planted.String()+`<button>Search</button></form>`)+`)`)
	eval[bool](tb, `(forms.answer.notes = {respond: () => "found " + document.querySelector("#notes [name=q]").value}, true)`)
	tool := eval[map[string]any](tb, `forms.tool("search_notes")`)
	assert.Equal(t, "Searches the notes", tool["description"], "the tool's description")
	schema, _ := tool["inputSchema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	assert.Contains(t, props, "q", "the form's own field is in its input schema: %v", schema)
	got := callForm(tb, "document.modelContext.executeTool", "search_notes", `{"q":"veil"}`)
	require.True(t, got.OK, "the call: %+v", got)
	assert.Contains(t, fmt.Sprint(got.Value), "found veil", "the form was filled and submitted")
}
