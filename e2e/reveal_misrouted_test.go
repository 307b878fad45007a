package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// misroutedID is the id of the reference whose redemption no handler
// answers: it must not reach the console.
const misroutedID = "Zq3xV9kLmN0pQrStUvWx7A"

// TestRevealMisrouted: a reveal whose request a router answers with its
// own 404 (ServeMux's "404 page not found": no route for /redeem/) is not
// told to the user as a secret that does not exist; the page's console
// names the path fetched, less the id, and what to check, and the tray
// keeps offering Reveal.
func TestRevealMisrouted(t *testing.T) {
	t.Parallel() // a tab of its own; nothing waits on the clock
	page := snippet{doc: "e2e/reveal_misrouted_test.go", lang: "html", code: `<!doctype html>
<meta charset="utf-8">
<title>A reveal no handler answers</title>
<script src="/veil/webmcp.js" data-veil-redeem-path="/redeem/"></script>
<veil-secrets></veil-secrets>
`}
	p := openSnippet(t, page)
	p.allowConsole(`Failed to load resource.*404`)
	p.register(`{name: "make_key", description: "Makes an API key", annotations: {sensitiveHint: true}}`,
		`{content: [{type: "secret_reference", id: `+js(misroutedID)+`, label: "API key", redeemUrl: "/redeem/`+misroutedID+`", ttl: 300}]}`)
	p.execute("make_key", `{}`).String(t)
	eval[chromedp.Void](p.tab, `veil.items().then((items) => {
		const b = document.createElement("button");
		b.id = "reveal";
		b.textContent = "Reveal";
		b.onclick = () => void (window.revealed = veil.reveal(items[0].handle));
		document.body.prepend(b);
	})`)
	p.clickTrusted(`document.querySelector("#reveal")`)
	got := eval[map[string]any](p.tab, `window.revealed`)
	assert.Equal(t, false, got["ok"], "the reveal: %v", got)
	assert.Equal(t, "error", got["reason"], "the reveal's reason, not notfound: %v", got)
	assert.EqualValues(t, 404, got["status"])

	p.flushConsole()
	var warning string
	for _, m := range p.consoleTexts() {
		if strings.Contains(m, "veil: a reveal fetched") {
			warning = m
		}
	}
	require.NotEmpty(t, warning, "the console names the misrouting: %v", p.consoleTexts())
	for _, s := range []string{p.site.URL + "/redeem/{id}", "404", "BasePath", "StrippedPrefix", "proxy"} {
		assert.Contains(t, warning, s, "the console's warning")
	}
	for _, m := range p.consoleTexts() {
		assert.NotContains(t, m, misroutedID, "the console holds the reference's id")
	}
	// The tray still offers it: the secret may well be there.
	p.poll(`!!(` + trayItem("API key") + `)`)
	assert.False(t, eval[bool](p.tab, `(`+trayItem("API key")+`).classList.contains("done")`), "the tray's row is not marked gone")
}
