package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attacks on the tray's page-wide store of one-time secrets, with more than
// one <veil-secrets> on the page.

// secondTray is the JavaScript path of the shadow root of a second tray the
// test adds to the page.
const secondTray = `document.querySelector("#second-tray").shadowRoot`

// itemIn is trayItem for the tray whose shadow root is at root.
func itemIn(root, label string) string {
	return `[...` + root + `.querySelectorAll(".item")].find((li) => li.querySelector(".label").textContent.includes(` + js(label) + `))`
}

// buttonIn is trayButton for the tray whose shadow root is at root.
func buttonIn(root, label, text string) string {
	return `[...(` + itemIn(root, label) + `).querySelectorAll(".actions button, .ask button, .mask")].find((b) => (b.firstChild.data ?? b.textContent).includes(` + js(text) + `))`
}

// pressIn clicks, as the user does, a button of the item in the tray at root.
func (d *demoTab) pressIn(root, label, text string) {
	d.t.Helper()
	d.poll(`!!(` + buttonIn(root, label, text) + `) && !(` + buttonIn(root, label, text) + `).disabled`)
	click(d, chromedp.JSPath(buttonIn(root, label, text)))
}

// addSecondTray puts a second <veil-secrets> on the page (a sidebar's, say).
func (d *demoTab) addSecondTray() {
	d.t.Helper()
	eval[bool](d.tab, `(() => { const t = document.createElement("veil-secrets"); t.id = "second-tray"; document.body.append(t); return true; })()`)
}

// shownIn is the value the item shows in the tray at root, "" when none.
func shownIn(root, label string) string {
	return `((li) => { const v = li?.querySelector(".value"); return v && !v.hidden && !li.querySelector(".value code").hidden ? li.querySelector(".value code").textContent : ""; })(` + itemIn(root, label) + `)`
}

// TestTrayAttackHideForGoodOtherTray: the page has two trays (a sidebar's
// and the main one), both of which have the one-time key, as the store is
// the page's. The user reveals the key in the second tray, then in the
// first answers "Hide for good" — which the tray promises "drops it and
// marks it Spent". The second tray keeps showing it, and its Show puts the
// key back into the page's store, so a tray rendered again has it once
// more: "Hide for good" does not hold.
func TestTrayAttackHideForGoodOtherTray(t *testing.T) {
	t.Parallel() // it waits on the clock: beside the other tests that do
	s := newTraySite(t, false)
	d := openTray(t, s, plain, "worker", "", true)
	d.addSecondTray()
	keyPath := d.makeKey("hide-key", 300)
	d.poll(`!!(` + itemIn(secondTray, "hide-key") + `)`)
	// Revealed in the first tray: the second has it masked.
	d.press("hide-key", "Reveal")
	key := d.waitRow("hide-key", rowShown).Shown
	require.True(t, strings.HasPrefix(key, "nwk_live_"), "the revealed key: %q", key)
	d.poll(`((li) => !!li && ` + rowMasked + `)(` + itemIn(secondTray, "hide-key") + `)`)
	// The user shows it in the second tray too.
	d.pressIn(secondTray, "hide-key", "Show")
	d.poll(shownIn(secondTray, "hide-key") + ` !== ""`)
	// In the first tray, the user hides it for good.
	d.press("hide-key", "Hide")
	d.waitRow("hide-key", rowAsking)
	d.press("hide-key", "Hide for good")
	r := d.waitRow("hide-key", rowState)
	require.Equal(t, "Spent", r.State, "the first tray marks the key Spent")
	time.Sleep(500 * time.Millisecond)
	assert.Equal(t, "", eval[string](d.tab, shownIn(secondTray, "hide-key")), "after Hide for good, the second tray still shows the key")
	// The second tray's Hide masks it; the user's Show brings it back, and with it the page's store.
	if eval[string](d.tab, shownIn(secondTray, "hide-key")) != "" {
		d.pressIn(secondTray, "hide-key", "Hide")
		d.poll(`((li) => !!li && ` + rowAsking + `)(` + itemIn(secondTray, "hide-key") + `)`)
		d.pressIn(secondTray, "hide-key", "Keep it")
		d.pressIn(secondTray, "hide-key", "Show")
		d.poll(shownIn(secondTray, "hide-key") + ` !== ""`)
	}
	// A tray the page renders again (the main one, remounted).
	eval[bool](d.tab, `(() => { const old = document.querySelector("veil-secrets:not(#second-tray)"); const tray = document.createElement("veil-secrets"); for (const a of old.attributes) tray.setAttribute(a.name, a.value); old.replaceWith(tray); return true; })()`)
	const fresh = `document.querySelector("veil-secrets:not(#second-tray)").shadowRoot`
	d.poll(`!!(` + itemIn(fresh, "hide-key") + `)`)
	time.Sleep(500 * time.Millisecond)
	masked := eval[bool](d.tab, `((li) => !!li && `+rowMasked+`)(`+itemIn(fresh, "hide-key")+`)`)
	assert.False(t, masked, "a tray rendered again has the key the user hid for good (masked, Show brings it back)")
	assert.Equal(t, 1, s.redeemed(keyPath), "the key was redeemed once")
}

// TestTrayAttackCopyThenRevealElsewhere: Copy disables the other trays'
// Reveal only once it has asked the browser about the clipboard (an
// await), so for that while the same key's Reveal in a second tray is
// enabled. Two quick clicks (Copy in one tray, Reveal in the other) send
// two redemptions of a one-time key: one tray gets the key, the other the
// server's 410 and marks the key "Spent" ("already revealed"), and the
// server sees the secret asked for twice.
func TestTrayAttackCopyThenRevealElsewhere(t *testing.T) {
	t.Parallel() // it waits on the clock: beside the other tests that do
	s := slowRedeemSite(t, "600", 500*time.Millisecond)
	d := openTray(t, s, plain, "worker", clipGranted, true)
	d.addSecondTray()
	keyPath := d.makeKey("race-key", 300)
	d.poll(`!!(` + itemIn(secondTray, "race-key") + `)`)
	at := func(expr string) map[string]float64 {
		return eval[map[string]float64](d.tab, `((b) => { b.scrollIntoView({block: "center"}); const r = b.getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })(`+expr+`)`)
	}
	// Both visible at once: the second tray next to the first.
	eval[bool](d.tab, `(() => { const t = document.querySelector("#second-tray"); t.style.cssText = "position:fixed;top:0;right:0;width:40%;z-index:99999;background:white"; return true; })()`)
	copyAt := at(trayButton("race-key", "Copy"))
	revealAt := at(buttonIn(secondTray, "race-key", "Reveal"))
	require.NoError(t, chromedp.Do(d.ctx, chromedp.MouseClickXY(copyAt["x"], copyAt["y"])))
	require.NoError(t, chromedp.Do(d.ctx, chromedp.MouseClickXY(revealAt["x"], revealAt["y"])))
	time.Sleep(3 * time.Second)
	t.Logf("first tray: %+v", d.row("race-key"))
	t.Logf("second tray: %s", eval[string](d.tab, `(`+itemIn(secondTray, "race-key")+`).textContent`))
	assert.Equal(t, 1, s.redeemed(keyPath), "the one-time key was asked for once")
	assert.False(t, eval[bool](d.tab, `[document.querySelector("veil-secrets").shadowRoot, `+secondTray+`].some((r) => /Spent|already revealed/.test((`+itemIn("r", "race-key")+`)?.textContent ?? ""))`), "a tray says the key the page holds was spent or already revealed")
}

// TestTrayAttackHeldFlightAcrossTrays: while
// a Reveal is on its way in the first tray, the second tray's Reveal, Copy
// and Forget of the key are disabled; the first tray is then removed and a
// new one put in its place, mid-flight; the key that comes is kept, both
// trays have it masked, and no button stays disabled.
func TestTrayAttackHeldFlightAcrossTrays(t *testing.T) {
	t.Parallel() // in a tab of its own
	s := slowRedeemSite(t, "600", 2*time.Second)
	d := openTray(t, s, plain, "worker", "", true)
	d.addSecondTray()
	keyPath := d.makeKey("fly-key", 300)
	d.poll(`!!(` + itemIn(secondTray, "fly-key") + `)`)
	d.press("fly-key", "Reveal")
	d.poll(`[...(` + itemIn(secondTray, "fly-key") + `).querySelectorAll(".actions button")].every((b) => b.disabled)`)
	// The first tray goes, mid-flight; another comes.
	eval[bool](d.tab, `(() => { const old = document.querySelector("veil-secrets:not(#second-tray)"); const tray = document.createElement("veil-secrets"); old.replaceWith(tray); return true; })()`)
	const fresh = `document.querySelector("veil-secrets:not(#second-tray)").shadowRoot`
	d.poll(`!!(` + itemIn(fresh, "fly-key") + `)`)
	assert.True(t, eval[bool](d.tab, `[...(`+itemIn(fresh, "fly-key")+`).querySelectorAll(".actions button")].every((b) => b.disabled)`), "the new tray's buttons wait for the value on its way")
	for _, root := range []string{fresh, secondTray} {
		d.pollWithin(`((li) => !!li && `+rowMasked+`)(`+itemIn(root, "fly-key")+`)`, 15*time.Second)
		assert.False(t, eval[bool](d.tab, `[...(`+itemIn(root, "fly-key")+`).querySelectorAll(".actions button")].some((b) => b.disabled)`), "no button stays disabled")
	}
	d.pressIn(secondTray, "fly-key", "Show")
	d.poll(shownIn(secondTray, "fly-key") + `.startsWith("nwk_live_")`)
	assert.Equal(t, 1, s.redeemed(keyPath), "the key was redeemed once")
}

// TestTrayAttackHiddenForGoodRemounted: the user reveals a one-time key
// and hides it for good: the tray marks it Spent. The page then renders
// the tray again (a route change). The store of the page forgot that the
// key was hidden for good, and the engine still lists the reference, so
// the new tray offers Reveal as for a key never redeemed; the user's
// Reveal asks the server for the spent key again and hears "expired or
// already revealed", as if someone else had taken it.
func TestTrayAttackHiddenForGoodRemounted(t *testing.T) {
	t.Parallel() // it waits on the clock: beside the other tests that do
	s := newTraySite(t, false)
	d := openTray(t, s, plain, "worker", "", true)
	d.allowConsole(failedStatus("410"))
	keyPath := d.makeKey("gone-key", 300)
	d.press("gone-key", "Reveal")
	d.waitRow("gone-key", rowShown)
	d.press("gone-key", "Hide")
	d.waitRow("gone-key", rowAsking)
	d.press("gone-key", "Hide for good")
	require.Equal(t, "Spent", d.waitRow("gone-key", rowState).State)
	eval[bool](d.tab, `(() => { const old = document.querySelector("veil-secrets"); const tray = document.createElement("veil-secrets"); for (const a of old.attributes) tray.setAttribute(a.name, a.value); old.replaceWith(tray); return true; })()`)
	d.waitTrayItem("gone-key")
	time.Sleep(300 * time.Millisecond)
	r := d.row("gone-key")
	assert.Equal(t, "Spent", r.State, "the tray rendered again says the key hidden for good is spent: %+v", r)
	if r.Primary == "Reveal" && len(r.Disabled) == 0 {
		d.press("gone-key", "Reveal")
		r = d.waitRow("gone-key", rowMessage)
		t.Logf("after Reveal in the new tray: %q, state %q", r.Message, r.State)
	}
	assert.Equal(t, 1, s.redeemed(keyPath), "the key hidden for good was asked of the server again")
}
