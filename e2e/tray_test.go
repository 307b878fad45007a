package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/demo/demoserver"

	"github.com/veilmcp/veil/e2e/bound"
)

// The <veil-secrets> tray as its user meets it, on the demo site, whose
// create_api_key returns a real one-time secret_reference: Copy with the
// clipboard granted, denied, and refused by a browser that would have to
// ask; a revealed one-time secret that auto-hide and Hide mask but never
// throw away; spent and expired items. Each runs in both engine modes, in
// Chromium with and without native WebMCP. And the demo's "Run as the
// agent" button, which waits for the engine.

// trayTabTimeout bounds what one tray test does in its tab: each starts an
// engine and clicks through the tray, on a machine that may be busy. It
// and trayLoadTimeout are scaled by bound.Of.
const trayTabTimeout = 2 * time.Minute

// trayLoadTimeout bounds the wait for a page's engine to start.
const trayLoadTimeout = 45 * time.Second

// traySite is the demo site with what the tray tests watch: how often each
// redemption URL was asked for, and a gate that can hold the engine's
// download back.
type traySite struct {
	*httptest.Server
	mu      sync.Mutex
	redeems map[string]int
	gate    chan struct{}
	open    func()
}

// demoHandler is the demo site's handler, quiet, serving the suite's
// runtime; it skips the test where the browser tests are skipped.
func demoHandler(t *testing.T) http.Handler {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	h, err := demoserver.New(&demoserver.Options{
		Dist:   os.DirFS(distDir),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	require.NoError(t, err, "demoserver.New")
	return h
}

// newTraySite starts the demo site for one test. With hold, every request
// for the engine's WebAssembly waits until release is called.
func newTraySite(t *testing.T, hold bool) *traySite {
	t.Helper()
	h := demoHandler(t)
	s := &traySite{redeems: map[string]int{}, open: func() {}}
	if hold {
		s.gate = make(chan struct{})
		s.open = sync.OnceFunc(func() { close(s.gate) })
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/redeem/") {
			s.mu.Lock()
			s.redeems[r.URL.Path]++
			s.mu.Unlock()
		}
		if s.gate != nil && strings.HasPrefix(r.URL.Path, "/veil/veil.wasm") {
			select {
			case <-s.gate:
			case <-r.Context().Done():
				return
			}
		}
		if r.URL.Path == "/" && r.URL.Query().Get("mode") == "main" {
			serveMainMode(w, r, h)
			return
		}
		h.ServeHTTP(w, r)
	}))
	// Cleanups run last first: the gate opens before the server waits for
	// the requests it holds.
	t.Cleanup(s.Close)
	t.Cleanup(s.open)
	return s
}

// release lets the engine's download through.
func (s *traySite) release() { s.open() }

// redeemed returns how many requests asked for redemption URLs: all of
// them, or those of one URL path.
func (s *traySite) redeemed(path ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, c := range s.redeems {
		if len(path) == 0 || p == path[0] {
			n += c
		}
	}
	return n
}

// serveMainMode serves the demo's page with its engine on the main thread:
// the runtime's script tag gets data-veil-mode="main", as withMode does
// for the suite's own pages.
func serveMainMode(w http.ResponseWriter, r *http.Request, h http.Handler) {
	r2 := r.Clone(r.Context())
	r2.Header.Del("Accept-Encoding")
	r2.URL.RawQuery = ""
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r2)
	const tag = `<script src="/veil/webmcp.js"`
	page := strings.Replace(rec.Body.String(), tag, tag+` data-veil-mode="main"`, 1)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.Header().Del("ETag")
	w.WriteHeader(rec.Code)
	io.WriteString(w, page)
}

// trayBrowser is one of the suite's browsers, by name.
type trayBrowser struct {
	name string
	b    func() *browser
}

// trayBrowsers are Chromium as shipped and Chromium with native WebMCP.
var trayBrowsers = []trayBrowser{{"plain", func() *browser { return plain }}, {"native", func() *browser { return native }}}

// eachBrowserMode runs f in a subtest for each browser and engine mode,
// side by side: each subtest has a site and a browser context of its own.
func eachBrowserMode(t *testing.T, f func(t *testing.T, b *browser, mode string)) {
	for _, br := range trayBrowsers {
		for _, mode := range engineModes {
			t.Run(br.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				f(t, br.b(), mode)
			})
		}
	}
}

// oneBrowserMode runs f once, with native WebMCP off and the engine in a
// Worker, for behaviour of the page's own script that no mode changes.
func oneBrowserMode(t *testing.T, f func(t *testing.T, b *browser, mode string)) {
	t.Run(trayBrowsers[0].name+"/"+engineModes[0], func(t *testing.T) { f(t, trayBrowsers[0].b(), engineModes[0]) })
}

// Clipboard settings: what the browser says of clipboard-write, and does.
const (
	// clipGranted lets the page write, and read back, the clipboard.
	clipGranted = "granted"
	// clipDenied is a site setting that refuses the clipboard; the
	// permission query says so.
	clipDenied = "denied"
	// clipPrompt is a browser that would have to ask: the permission query
	// says "prompt", and headless Chromium, which cannot ask, refuses the
	// write. The page learns only when it writes, as in Safari after an
	// await.
	clipPrompt = "prompt"
)

// openTray opens the demo site in a tab of b, in a browser context of its
// own, with the clipboard setting clip ("" leaves the browser's default)
// and the engine in mode. With wait, it waits until a visitor can use the
// page: engine ready, tools listed, signed in.
func openTray(t *testing.T, s *traySite, b *browser, mode, clip string, wait bool) *demoTab {
	t.Helper()
	visit, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(visit), "opening a browser context")
	setClipboard(t, visit, s.URL, clip)
	tb := openTabFor(t, &browser{ctx: visit}, bound.Of(trayTabTimeout))
	d := &demoTab{tab: tb, origin: s.URL, net: &netLog{responses: map[network.RequestID]*network.Response{}}}
	require.NoError(t, chromedp.Listen(tb.ctx, d.net.record))
	_, err := chromedp.Call(tb.ctx, network.Enable, network.EnableParams{})
	require.NoError(t, err, "Network.enable")
	url := s.URL + "/"
	if mode == "main" {
		url += "?mode=main"
	}
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(url)), "opening the demo")
	if !wait {
		return d
	}
	waitUsable(d, mode)
	if clip != "" {
		require.Equal(t, clip, eval[string](d.tab, `navigator.permissions.query({name: "clipboard-write"}).then((p) => p.state)`), "the page's clipboard-write permission")
	}
	return d
}

// waitUsable waits until the demo's engine runs in mode, the console lists
// the tools and the visitor is signed in.
func waitUsable(d *demoTab, mode string) {
	d.t.Helper()
	d.pollWithin(`document.querySelector("#engine.ready") !== null`, trayLoadTimeout)
	d.pollWithin(`document.querySelectorAll("#tools input[type=radio]").length >= 5`, trayLoadTimeout)
	d.pollWithin(`document.querySelector("#account .who") !== null`, trayLoadTimeout)
	require.Equal(d.t, mode, eval[string](d.tab, `veil.mode`), "the engine's mode")
}

// setClipboard sets the clipboard permissions of the origin in the browser
// context of ctx.
func setClipboard(t *testing.T, ctx context.Context, origin, clip string) {
	t.Helper()
	set := func(name string, setting cdpbrowser.PermissionSetting) {
		_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission:       &cdpbrowser.PermissionDescriptor{Name: name},
			Setting:          setting,
			Origin:           origin,
			BrowserContextID: chromedp.FromContext(ctx).BrowserContextID,
		})
		require.NoError(t, err, "Browser.setPermission %s %s", name, setting)
	}
	switch clip {
	case clipGranted:
		set("clipboard-write", cdpbrowser.PermissionSettingGranted)
		set("clipboard-read", cdpbrowser.PermissionSettingGranted)
	case clipDenied:
		set("clipboard-write", cdpbrowser.PermissionSettingDenied)
	case clipPrompt:
		set("clipboard-write", cdpbrowser.PermissionSetting("prompt"))
	}
}

// pollWithin waits until the expression is truthy in the page, for at most
// timeout scaled by bound.Of.
func (tb *tab) pollWithin(expression string, timeout time.Duration) {
	tb.t.Helper()
	_, err := chromedp.Run(tb.ctx, chromedp.Poll[chromedp.Void](expression,
		chromedp.WithPollingInterval(20*time.Millisecond),
		chromedp.WithPollingTimeout(bound.Of(timeout))))
	require.NoError(tb.t, err, "waiting for %s", expression)
}

// trayButton is a JavaScript expression for the button of the tray's item
// whose text is text: one of its actions (Reveal, Hide, Show, Copy,
// Forget) or of its question (Hide for good, Keep it).
func trayButton(label, text string) string {
	return `[...(` + trayItem(label) + `).querySelectorAll(".actions button, .ask button")].find((b) => b.firstChild.data === ` + js(text) + `)`
}

// press clicks a button of the tray's item, as the user does.
func (d *demoTab) press(label, text string) {
	d.t.Helper()
	d.poll(`!!(` + trayButton(label, text) + `) && !(` + trayButton(label, text) + `).disabled`)
	click(d, chromedp.JSPath(trayButton(label, text)))
}

// trayRow is what a test reads of one item of the tray.
type trayRow struct {
	// Primary is the text of the first button: Reveal, Hide or Show.
	Primary string `json:"primary"`
	// Shown is the value on the screen, "" when none is.
	Shown string `json:"shown"`
	// Masked says that the dots and "Show again" stand in for a value.
	Masked bool `json:"masked"`
	// Message is the item's message, "" when it shows none.
	Message string `json:"message"`
	// State is what the item says it is (Spent, Expired), "" when none.
	State string `json:"state"`
	// Question is the question the item asks, "" when it asks none.
	Question string `json:"question"`
	// Disabled are the texts of its disabled action buttons.
	Disabled []string `json:"disabled"`
	// HTML is the item's markup, where no value may hide.
	HTML string `json:"html"`
}

// row reads the tray's item whose label contains label.
func (d *demoTab) row(label string) trayRow {
	d.t.Helper()
	return eval[trayRow](d.tab, `((li) => {
		const shown = (sel) => { const e = li.querySelector(sel); return !!e && !e.hidden && !e.closest("[hidden]"); };
		return {
			primary: li.querySelector(".actions button").firstChild.data,
			shown: shown(".value code") ? li.querySelector(".value code").textContent : "",
			masked: shown(".value .mask"),
			message: shown(".msg") ? li.querySelector(".msg").textContent : "",
			state: shown(".state") ? li.querySelector(".state").textContent : "",
			question: shown(".ask") ? li.querySelector(".ask p").textContent : "",
			disabled: [...li.querySelectorAll(".actions button")].filter((b) => b.disabled).map((b) => b.firstChild.data),
			html: li.innerHTML,
		};
	})(`+trayItem(label)+`)`)
}

// waitRow waits until the item's row satisfies cond, a JavaScript
// expression over li, the item's element, and returns the row.
func (d *demoTab) waitRow(label, cond string) trayRow {
	d.t.Helper()
	d.poll(`((li) => !!li && (` + cond + `))(` + trayItem(label) + `)`)
	return d.row(label)
}

// waitRowWithin waits as waitRow does, for at most timeout.
func (d *demoTab) waitRowWithin(label, cond string, timeout time.Duration) trayRow {
	d.t.Helper()
	d.pollWithin(`((li) => !!li && (`+cond+`))(`+trayItem(label)+`)`, timeout)
	return d.row(label)
}

// Conditions for waitRow.
const (
	rowShown   = `!li.querySelector(".value").hidden && li.querySelector(".value code").textContent !== ""`
	rowMasked  = `!li.querySelector(".value").hidden && li.querySelector(".value .mask")?.hidden === false && li.querySelector(".value code").textContent === ""`
	rowAsking  = `li.querySelector(".ask")?.hidden === false`
	rowMessage = `!li.querySelector(".msg").hidden && li.querySelector(".msg").textContent !== ""`
	rowState   = `li.querySelector(".state")?.hidden === false`
)

// makeKey runs create_api_key through the demo's console and waits until
// the tray lists the key. It returns the key's redemption URL path.
func (d *demoTab) makeKey(name string, ttl int) string {
	d.t.Helper()
	view := d.runInConsole("create_api_key", `{"name":`+js(name)+`,"ttl":`+js(ttl)+`}`)
	require.Contains(d.t, view, name, "the agent hears the key was made")
	_, redeemURL := d.issuedReference()
	d.waitTrayItem(name)
	return strings.TrimPrefix(redeemURL, d.origin)
}

// setWindowState minimizes the tab's window, which hides the page, or
// restores it.
func (d *demoTab) setWindowState(state cdpbrowser.WindowState) {
	d.t.Helper()
	w, err := chromedp.CallBrowser(d.ctx, cdpbrowser.GetWindowForTarget, cdpbrowser.GetWindowForTargetParams{TargetID: chromedp.FromContext(d.ctx).Target.TargetID})
	require.NoError(d.t, err, "Browser.getWindowForTarget")
	_, err = chromedp.CallBrowser(d.ctx, cdpbrowser.SetWindowBounds, cdpbrowser.SetWindowBoundsParams{WindowID: w.WindowID, Bounds: &cdpbrowser.Bounds{WindowState: state}})
	require.NoError(d.t, err, "Browser.setWindowBounds %s", state)
}

// clipboardText reads the clipboard in the page.
func (d *demoTab) clipboardText() string {
	d.t.Helper()
	return eval[string](d.tab, `navigator.clipboard.readText().catch((e) => "unreadable: " + e.name)`)
}

// TestTrayCopy clicks Copy on a one-time API key and on a withheld value.
// A granted clipboard gets the value and the tray keeps the key, masked; a
// denied one spends nothing, so Reveal still works; a refused write shows
// the value that came, at once, for the user to copy by hand. Whatever the
// browser does, the key is redeemed once and never lost.
func TestTrayCopy(t *testing.T) {
	t.Parallel() // in a tab of its own
	// Headless Chromium keeps one clipboard a browser: the cases of one
	// browser take turns, and the two browsers run side by side. What the
	// browser says of the clipboard is the page's business, whichever
	// engine mode: a refused clipboard is tried in one.
	for _, br := range trayBrowsers {
		t.Run(br.name, func(t *testing.T) {
			t.Parallel()
			for _, clip := range []string{clipGranted, clipDenied, clipPrompt} {
				for _, mode := range engineModes {
					if clip != clipGranted && (br.name != trayBrowsers[0].name || mode != engineModes[0]) {
						continue
					}
					t.Run(clip+"/"+mode, func(t *testing.T) { trayCopyCase(t, br.b(), mode, clip) })
				}
			}
		})
	}
}

// trayCopyCase is one case of TestTrayCopy: the browser b, the engine in
// mode, and the clipboard setting clip.
func trayCopyCase(t *testing.T, b *browser, mode, clip string) {
	s := newTraySite(t, false)
	d := openTray(t, s, b, mode, clip, true)
	key := d.makeKey("copy-key", 300)
	d.runInConsole("get_profile", `{}`)
	d.waitTrayItem("ID number")

	d.press("copy-key", "Copy")
	r := d.waitRow("copy-key", rowMessage)
	switch clip {
	case clipGranted:
		assert.Contains(t, r.Message, "Copied", "the key's message")
		assert.Equal(t, 1, s.redeemed(key), "the key is redeemed once")
		assert.Empty(t, r.Shown, "Copy does not show the key")
		assert.True(t, r.Masked, "the tray keeps the copied key, masked")
		assert.Equal(t, "Show", r.Primary)
		copied := d.clipboardText()
		assert.True(t, strings.HasPrefix(copied, "nwk_live_"), "the clipboard: %q", copied)
		assert.NotContains(t, r.HTML, copied, "the key is not in the tray's markup")
		// The key stays the user's: Show needs no second redemption.
		d.press("copy-key", "Show")
		assert.Equal(t, copied, d.waitRow("copy-key", rowShown).Shown, "Show shows the copied key")
		assert.Equal(t, 1, s.redeemed(key), "Show asks the server for nothing")
	case clipDenied:
		assert.Contains(t, r.Message, "not fetched", "the key's message")
		assert.Contains(t, r.Message, "copy it by hand", "the key's message")
		assert.Equal(t, 0, s.redeemed(key), "a copy the browser refuses spends nothing")
		assert.Empty(t, r.Shown)
		d.press("copy-key", "Reveal")
		shown := d.waitRow("copy-key", rowShown).Shown
		assert.True(t, strings.HasPrefix(shown, "nwk_live_"), "Reveal after a refused copy: %q", shown)
		assert.Equal(t, 1, s.redeemed(key), "the key is redeemed once")
	case clipPrompt:
		assert.Contains(t, r.Message, "copy it by hand", "the key's message")
		assert.True(t, strings.HasPrefix(r.Shown, "nwk_live_"), "the key stays readable after the failed copy: %q", r.Shown)
		assert.Equal(t, "Hide", r.Primary)
		assert.Empty(t, r.Disabled, "the key's buttons")
		assert.Equal(t, 1, s.redeemed(key), "the key is redeemed once, and no second Reveal is needed")
	}

	// A value the engine holds: nothing is spent, but the same rules hold.
	d.press("ID number", "Copy")
	r = d.waitRow("ID number", rowMessage)
	switch clip {
	case clipGranted:
		assert.Equal(t, "Copied to the clipboard.", r.Message)
		assert.Empty(t, r.Shown)
		assert.Equal(t, "QQ 12 34 56 C", d.clipboardText())
	case clipDenied:
		assert.Contains(t, r.Message, "copy it by hand")
		assert.Empty(t, r.Shown)
	case clipPrompt:
		assert.Contains(t, r.Message, "copy it by hand")
		assert.Equal(t, "QQ 12 34 56 C", r.Shown, "the value stays readable after the failed copy")
	}
	assert.Equal(t, 1, s.redeemed(), "redemptions of the page")
}

// TestTrayKeepsRevealedSecret reveals a one-time API key and checks that
// the tray keeps it until the user throws it away: auto-hide masks it, the
// engine letting it go does not drop it, Hide masks it and asks, "Keep it"
// keeps it, a hidden tab masks it, and only "Hide for good" spends it. The server hands it out
// once and is asked once.
func TestTrayKeepsRevealedSecret(t *testing.T) {
	t.Parallel() // in a tab of its own
	eachBrowserMode(t, func(t *testing.T, b *browser, mode string) {
		s := newTraySite(t, false)
		d := openTray(t, s, b, mode, "", true)
		keyPath := d.makeKey("kept-key", 300)
		// Long enough for a busy machine to see the key shown, short enough to wait for.
		eval[chromedp.Void](d.tab, `document.querySelector("veil-secrets").setAttribute("hide-after", "6")`)

		d.press("kept-key", "Reveal")
		r := d.waitRow("kept-key", rowShown)
		key := r.Shown
		require.True(t, strings.HasPrefix(key, "nwk_live_"), "the revealed key: %q", key)
		assert.Contains(t, r.Message, "until you hide it for good")
		assert.Equal(t, 1, s.redeemed(keyPath))

		// Auto-hide masks it: off the screen and out of the markup, not gone.
		r = d.waitRowWithin("kept-key", rowMasked, trayLoadTimeout)
		assert.Equal(t, "Show", r.Primary, "after auto-hide")
		assert.NotContains(t, r.HTML, key, "the masked key is not in the tray's markup")
		assert.Empty(t, r.Disabled)

		// The engine lets the reference go (its hold ran out, the page forgot
		// it): the tray keeps what it redeemed. A later call's items show the
		// tray has looked again since.
		eval[chromedp.Void](d.tab, `veil.items().then((items) => Promise.all(items.map((i) => veil.forget(i.handle))))`)
		d.poll(`veil.items().then((items) => items.length === 0)`)
		d.runInConsole("get_profile", `{}`)
		d.waitTrayItem("ID number")
		r = d.row("kept-key")
		assert.True(t, r.Masked, "the key, once the engine let it go")

		// A click on the dots shows it again.
		eval[chromedp.Void](d.tab, `document.querySelector("veil-secrets").setAttribute("hide-after", "60")`)
		click(d, chromedp.JSPath(`(`+trayItem("kept-key")+`).querySelector(".mask")`))
		assert.Equal(t, key, d.waitRow("kept-key", rowShown).Shown, "shown again")
		assert.Equal(t, 1, s.redeemed(keyPath), "showing it again asks the server for nothing")

		// Hide masks it at once and asks; "Keep it" keeps it.
		d.press("kept-key", "Hide")
		r = d.waitRow("kept-key", rowAsking)
		assert.Equal(t, "This secret cannot be shown again. Hide it for good?", r.Question)
		assert.True(t, r.Masked, "masked while it asks")
		assert.NotContains(t, r.HTML, key)
		d.press("kept-key", "Keep it")
		r = d.waitRow("kept-key", `li.querySelector(".ask")?.hidden === true`)
		assert.True(t, r.Masked, "kept, masked")
		d.press("kept-key", "Show")
		assert.Equal(t, key, d.waitRow("kept-key", rowShown).Shown, "kept")

		// The tab hidden (its window minimized) masks it as well.
		d.setWindowState(cdpbrowser.WindowStateMinimized)
		d.poll(`document.hidden`)
		r = d.waitRow("kept-key", rowMasked)
		assert.NotContains(t, r.HTML, key, "the key, the tab hidden")
		d.setWindowState(cdpbrowser.WindowStateNormal)
		d.poll(`!document.hidden`)
		d.press("kept-key", "Show")
		assert.Equal(t, key, d.waitRow("kept-key", rowShown).Shown, "the key, the tab visible again")

		// "Hide for good" spends it.
		d.press("kept-key", "Hide")
		d.waitRow("kept-key", rowAsking)
		d.press("kept-key", "Hide for good")
		r = d.waitRow("kept-key", rowState)
		assert.Equal(t, "Spent", r.State)
		assert.ElementsMatch(t, []string{"Reveal", "Copy"}, r.Disabled, "a spent key's disabled buttons")
		assert.Empty(t, r.Shown)
		assert.False(t, r.Masked)
		assert.NotContains(t, r.HTML, key)
		assert.Equal(t, 1, s.redeemed(keyPath), "the key was redeemed once")

		// Forget takes the spent key off the tray.
		d.press("kept-key", "Forget")
		d.poll(`!(` + trayItem("kept-key") + `)`)
	})
}

// TestTraySpentAndExpired checks that an item that can no longer be
// revealed says so and offers no Reveal or Copy: a key redeemed elsewhere
// (the server answers 410), and a key whose time to be redeemed ran out,
// which the tray marks without asking the server.
func TestTraySpentAndExpired(t *testing.T) {
	t.Parallel() // in a tab of its own
	eachBrowserMode(t, func(t *testing.T, b *browser, mode string) {
		s := newTraySite(t, false)
		d := openTray(t, s, b, mode, "", true)
		d.allowConsole(failedStatus("410"))

		elsewhere := d.makeKey("elsewhere-key", 300)
		// The user's other tab took it.
		assert.Equal(t, 200, eval[int](d.tab, `fetch(`+js(elsewhere)+`).then((r) => r.status)`), "redeeming it elsewhere")
		d.press("elsewhere-key", "Reveal")
		r := d.waitRow("elsewhere-key", rowState)
		assert.Equal(t, "Spent", r.State)
		assert.Contains(t, r.Message, "already revealed")
		assert.ElementsMatch(t, []string{"Reveal", "Copy"}, r.Disabled, "a spent key's disabled buttons")
		assert.Equal(t, 2, s.redeemed(elsewhere), "the other tab's redemption and the tray's")

		short := d.makeKey("short-key", 1)
		r = d.waitRow("short-key", rowState)
		assert.Equal(t, "Expired", r.State)
		assert.ElementsMatch(t, []string{"Reveal", "Copy"}, r.Disabled, "an expired key's disabled buttons")
		assert.Equal(t, 0, s.redeemed(short), "an expired key is not asked for")
		assert.True(t, eval[bool](d.tab, `veil.items().then((items) => items.some((i) => i.label.includes("short-key") && i.redeemBy <= Date.now()))`),
			"the tray marked it once its redeemBy passed")
	})
}

// TestDemoRunWaitsForEngine opens the demo while the engine is still on its
// way: "Run as the agent" is disabled and says what it waits for, and once
// the engine runs, it runs the tool.
func TestDemoRunWaitsForEngine(t *testing.T) {
	t.Parallel() // in a tab of its own
	eachBrowserMode(t, func(t *testing.T, b *browser, mode string) {
		s := newTraySite(t, true)
		d := openTray(t, s, b, mode, "", false)
		// demo.js is deferred: it has run by the load event.
		d.pollWithin(`document.readyState === "complete"`, trayLoadTimeout)
		waiting := eval[map[string]any](d.tab, `({disabled: document.querySelector("#run-button").disabled,
			status: document.querySelector("#run-status").textContent,
			ready: document.querySelector("#engine.ready") !== null})`)
		require.Equal(t, false, waiting["ready"], "the engine is held back")
		assert.Equal(t, true, waiting["disabled"], "Run as the agent, before the engine runs")
		assert.Equal(t, "Waiting for the engine to start…", waiting["status"], "the console's status")

		s.release()
		waitUsable(d, mode)
		d.poll(`!document.querySelector("#run-button").disabled`)
		assert.Empty(t, eval[string](d.tab, `document.querySelector("#run-status").textContent`), "the status once the engine runs")
		click(d, chromedp.CSS(`#run-button`))
		d.poll(`/finished|failed/.test(document.querySelector("#run-status").textContent)`)
		assert.Equal(t, "create_api_key finished.", eval[string](d.tab, `document.querySelector("#run-status").textContent`))
	})
}

// TestTrayRevealedByPage checks that a key the page redeems itself, with
// veil.reveal from its own button, shows spent in the tray at once, with
// no Reveal or Copy, and that the tray's own reveal of another key does
// not count as the page's.
func TestTrayRevealedByPage(t *testing.T) {
	t.Parallel() // a tab of its own; nothing waits on the clock
	oneBrowserMode(t, func(t *testing.T, b *browser, mode string) {
		s := newTraySite(t, false)
		d := openTray(t, s, b, mode, "", true)

		own := d.makeKey("tray-key", 300)
		d.press("tray-key", "Reveal")
		d.waitRow("tray-key", rowShown)

		page := d.makeKey("page-key", 300)
		eval[chromedp.Void](d.tab, `veil.items().then((items) => {
			const item = items.find((i) => i.label.includes("page-key"));
			const b = document.createElement("button");
			b.id = "page-reveal";
			b.textContent = "Reveal with veil.reveal";
			b.onclick = () => void (window.pageReveal = veil.reveal(item.handle));
			document.body.prepend(b);
		})`)
		click(d, chromedp.CSS("#page-reveal"))
		got := eval[map[string]any](d.tab, `window.pageReveal`)
		require.Equal(t, true, got["ok"], "veil.reveal of the key: %v", got)
		r := d.waitRow("page-key", rowState)
		assert.Equal(t, "Spent", r.State)
		assert.Equal(t, "Revealed by the page. The server will not hand it out again.", r.Message)
		assert.ElementsMatch(t, []string{"Reveal", "Copy"}, r.Disabled, "the key the page spent: disabled buttons")
		assert.NotContains(t, r.HTML, got["value"], "the tray holds no value it did not redeem")
		assert.Equal(t, 1, s.redeemed(page), "the page's redemption alone")

		r = d.row("tray-key")
		assert.Empty(t, r.State, "the key the tray revealed itself is not marked spent by the page")
		assert.NotEmpty(t, r.Shown, "the key the tray revealed is still shown")
		assert.Equal(t, 1, s.redeemed(own))
	})
}
