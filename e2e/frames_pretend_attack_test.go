package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/webmcp"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/bound"
	"github.com/veilmcp/veil/js/serve"
)

// Attacks on the form guard's trust in a same-origin frame's own Veil.
// The guard moves the toolname of every form in the document of a
// same-origin frame that runs no Veil, so that the browser registers no
// tool there that runs around the engine. A frame whose own Veil runs
// guards itself. Here a frame without Veil pretends to run one, by
// markup (elements named veil, currentScript, head or the mark's key) or
// by a script of its own that gives its window the mark a Veil's start
// defines, so that the guard would leave its sensitive form to the
// browser, whose native paths would hand the form's answer to the agent
// whole. Each attack is tried with each way a frame gets its document.
// Nothing of the answer may reach the agent, through the page's API or
// Chromium's native paths (the DevTools protocol's WebMCP.invokeTool, as
// an agent driving the browser calls a tool, in the frame and in the top).

// pretendSecret is what the frame's sensitive form answers.
const pretendSecret = "tok-pretend-7d41c9e0b3"

// pretendForm is the frame's sensitive form tool and the frame's own
// script that answers its submission with the secret.
const pretendForm = `<form toolname="frame_key" tooldescription="Makes an API key" toolautosubmit toolsensitive tooloutputschema='{"type":"object","properties":{"secret":{"type":"string","x-sensitive":true}}}'><input name="label"></form>
<script>document.querySelector("form[toolname],form[data-veil-toolname]").addEventListener("submit", (e) => { e.preventDefault(); e.respondWith(Promise.resolve({secret: "` + pretendSecret + `"})); });</script>`

// markScript gives the frame's window the mark of a frame that runs Veil,
// as a script the attacker controls there would, with a mirrored that
// says every native tool of the frame is the frame's Veil's mirror.
const markScript = `<script>Object.defineProperty(window, Symbol.for("dev.veil/frames"), {value: Object.freeze({mirrored: () => true, adopt: () => {}})});</script>`

// pretenders are the ways a frame's document pretends to run Veil, each
// the markup that comes before the form.
var pretenders = map[string]string{
	// Markup alone: names on window and document that a check by name
	// would take for a Veil.
	"markup": `<img name="veil" alt=""><a id="veil"></a><img name="dev.veil/frames" alt=""><a id="dev.veil/frames"></a><form id="currentScript"></form><img name="head" alt=""><iframe name="veil" hidden></iframe>`,
	// A script sets the mark before the form is parsed.
	"script": markScript + `<script>window.veil = {ready: Promise.resolve(), mode: "worker"};</script>`,
	// A script sets the mark once the guard has moved the toolname, and
	// gives the form its toolname back.
	"script-late": `<script>addEventListener("load", () => setTimeout(() => {
		Object.defineProperty(window, Symbol.for("dev.veil/frames"), {value: Object.freeze({mirrored: () => true})});
		const f = document.querySelector("form[data-veil-toolname]");
		if (f) f.setAttribute("toolname", f.getAttribute("data-veil-toolname"));
		window.lateDone = true;
	}, 400));</script>`,
}

// pretendDoc is the frame's whole document for a pretender.
func pretendDoc(pretender string) string {
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>f</title></head><body>` + pretenders[pretender] + pretendForm + `</body></html>`
}

// deliveries are the ways the frame gets its document, each a script run
// in the top page with doc (the document's markup) and url (the same
// document served on the top's origin) defined; f is the frame. Each
// leaves window.delivered true once the frame holds the document.
var deliveries = map[string]string{
	"srcdoc": `f.srcdoc = doc;`,
	"url":    `f.src = url;`,
	// The frame loaded a plain page, and then goes to the pretender.
	"renavigated": `f.src = "/plain.html"; await waitFor(() => f.contentDocument?.URL.endsWith("/plain.html") && f.contentDocument.readyState === "complete");
		await new Promise((r) => setTimeout(r, 300));
		f.contentWindow.location.href = url;`,
	"blank-write": `const d = f.contentDocument; d.open(); d.write(doc); d.close();`,
	"blob":        `f.src = URL.createObjectURL(new Blob([doc], {type: "text/html"}));`,
	"javascript":  `f.src = "javascript:" + JSON.stringify(doc).replaceAll("%", "%25");`,
	// The frame is taken out of the document and put back: its document
	// is made anew, and the guard must see the new one.
	"reinserted": `f.srcdoc = doc; await waitFor(() => f.contentDocument?.querySelector("form"));
		f.remove(); await new Promise((r) => setTimeout(r, 50)); document.body.append(f);`,
}

// pretendSite serves, on one origin, the runtime under /dist/, the top
// page (with the runtime and an empty frame), a plain page and each
// pretender's document at /pretend.html?p=<name>.
func pretendSite(t *testing.T) *httptest.Server {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	mux := http.NewServeMux()
	mux.Handle("/dist/", http.StripPrefix("/dist", serve.Handler(os.DirFS(distDir))))
	html := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write([]byte(body))
	}
	mux.HandleFunc("/top.html", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title><link rel="icon" href="data:,"><script src="/dist/webmcp.js"></script></head><body><iframe id="f"></iframe></body></html>`)
	})
	// The same page without the runtime: the control, where nothing guards the frame.
	mux.HandleFunc("/bare.html", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title><link rel="icon" href="data:,"></head><body><iframe id="f"></iframe></body></html>`)
	})
	mux.HandleFunc("/plain.html", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>p</title></head><body><p>plain</p></body></html>`)
	})
	mux.HandleFunc("/pretend.html", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Query().Get("p")
		if _, ok := pretenders[p]; !ok {
			http.Error(w, "no such pretender: "+p, http.StatusNotFound)
			return
		}
		html(w, pretendDoc(p))
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// invokeInFrames invokes the tool over the DevTools protocol in every
// frame of the tab, as an agent driving the browser would, and returns,
// by frame, the status it ended with and its output: "refused" when the
// browser would not invoke it, "no answer" when none came in time.
func invokeInFrames(tb *tab, name, input string) map[string]string {
	tb.t.Helper()
	tree, err := chromedp.Call(tb.ctx, page.GetFrameTree, cdp.Empty{})
	require.NoError(tb.t, err, "Page.getFrameTree")
	_, err = chromedp.Call(tb.ctx, webmcp.Enable, cdp.Empty{})
	require.NoError(tb.t, err, "WebMCP.enable")
	ids := map[string]cdp.FrameID{"top": tree.FrameTree.Frame.ID}
	for i, c := range tree.FrameTree.ChildFrames {
		ids["child"+strings.Repeat("'", i)] = c.Frame.ID
	}
	out := map[string]string{}
	for where, id := range ids {
		out[where] = func() string {
			ctx, cancel := context.WithTimeout(tb.ctx, bound.Of(5*time.Second))
			defer cancel()
			responded := chromedp.Events(ctx, webmcp.ToolResponded)
			res, err := chromedp.Call(tb.ctx, webmcp.InvokeTool, webmcp.InvokeToolParams{FrameID: id, ToolName: name, Input: jsonv2.Value(input)})
			if err != nil {
				return "refused"
			}
			for ev, err := range responded {
				if err != nil {
					return "no answer"
				}
				if ev.InvocationID == res.InvocationID {
					return string(ev.Status) + ": " + string(ev.Output) + " " + ev.ErrorText
				}
			}
			return "no answer"
		}()
	}
	return out
}

// TestAttackFramePretendsVeil: a same-origin frame without Veil, which
// holds a sensitive form tool, pretends to run Veil, by markup or by a
// script of its own, whichever way it got its document. The guard moves
// the form's toolname all the same: the browser's registry never holds
// the form, no native path runs it, the page's API does not list it, and
// its answer reaches the agent by none of them.
func TestAttackFramePretendsVeil(t *testing.T) {
	t.Parallel() // in tabs of its own
	for pretender := range pretenders {
		for delivery, deliver := range deliveries {
			t.Run(pretender+"/"+delivery, func(t *testing.T) {
				site := pretendSite(t)
				tb := openTab(t, native)
				// A form left to the browser is a foreign tool.
				tb.allowConsole(`native tool\(s\) that (are|were) not the runtime's`)
				reg := tb.followNative()
				require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(site.URL+"/top.html")))
				require.True(t, eval[bool](tb, `(window.f = document.getElementById("f"),
					window.waitFor = async (p) => { for (let i = 0; i < 500 && !p(); i++) await new Promise((r) => setTimeout(r, 10)); return !!p(); },
					veil.ready.then(() => true))`), "the runtime is ready")
				require.Nil(t, eval[settled](tb, `window.e2eRun = (async () => {
					const doc = `+js(pretendDoc(pretender))+`, url = `+js("/pretend.html?p="+pretender)+`;
					`+deliver+`
					return true;
				})().then((value) => ({value}), (e) => ({error: {name: e.name, message: e.message}}))`).Error, "delivering the document")
				got := eval[map[string]any](tb, `(async () => {
					const ready = await waitFor(() => {
						const d = f.contentDocument;
						return d?.querySelector("form[toolname],form[data-veil-toolname]") && d.readyState === "complete";
					});
					// The attacker's late script, and the guard's looks after it.
					if (`+js(pretender == "script-late")+`) await waitFor(() => f.contentWindow.lateDone);
					await new Promise((r) => setTimeout(r, 600));
					const d = f.contentDocument;
					return {ready, marked: !!f.contentWindow[Symbol.for("dev.veil/frames")], toolname: d.querySelectorAll("form[toolname]").length, moved: d.querySelectorAll("form[data-veil-toolname]").length};
				})()`)
				require.Equal(t, true, got["ready"], "the frame holds the form: %v", got)
				assert.Equal(t, pretender != "markup", got["marked"], "the frame's window has the mark exactly where a script set it")
				assert.EqualValues(t, 0, got["toolname"], "no form in the frame keeps its toolname: %v", got)
				assert.EqualValues(t, 1, got["moved"], "the guard moved the form's toolname: %v", got)
				assert.False(t, reg.has("frame_key"), "the browser's registry holds the frame's form")

				// Every native path an agent has: the DevTools protocol's invokeTool, in each frame.
				for where, outcome := range invokeInFrames(tb, "frame_key", `{"label":"x"}`) {
					assertWithheld(t, outcome, pretendSecret, "WebMCP.invokeTool in the "+where)
				}
				// The page's API, as the agent's in-page paths use it.
				api := eval[string](tb, `(async () => {
					const out = [];
					const t = (await document.modelContext.getTools()).find((t) => t.name === "frame_key");
					if (t) out.push("executeTool: " + await document.modelContext.executeTool(t, {label: "x"}).catch((e) => e.name));
					out.push("testing: " + await navigator.modelContextTesting.executeTool("frame_key", '{"label":"x"}').catch((e) => e.name));
					return out.join("\n");
				})()`)
				assertWithheld(t, api, pretendSecret, "the page's API")
				assert.NotContains(t, api, "executeTool:", "the page's getTools lists the frame's form")
			})
		}
	}
}

// TestFramesFormBeforeOwnVeil: the parent puts a sensitive form tool in
// the document of a same-origin child while the child's Veil is still
// on its way (slowChildServe). The parent's guard moves the form's
// toolname, as it does in every same-origin frame, and hands the form to
// the child's Veil once that runs: the form is the child's tool, listed
// in the parent with the child's window, and a call from the parent
// gets the child's agent view, the secret withheld.
func TestFramesFormBeforeOwnVeil(t *testing.T) {
	t.Parallel() // in a tab of its own
	slowChildServe(t)
	tb := openTab(t, plain)
	tb.navigate(runWorker.page())
	require.Equal(t, "worker", eval[string](tb, `veil.ready.then(() => veil.mode)`), "the parent's engine runs")
	got := eval[map[string]any](tb, `(async () => {
		const fr = document.createElement("iframe");
		fr.src = "/frames-slow.html?mode=worker";
		document.body.append(fr);
		const mark = Symbol.for("dev.veil/frames");
		const early = await fx.until(() => fr.contentDocument?.URL.endsWith("/frames-slow.html?mode=worker") && fr.contentDocument.documentElement);
		const d = fr.contentDocument;
		const form = d.createElement("form");
		form.setAttribute("toolname", "c_early");
		form.setAttribute("tooldescription", "Makes an API key");
		form.setAttribute("toolautosubmit", "");
		form.setAttribute("tooloutputschema", JSON.stringify({type: "object", properties: {secret: {type: "string", "x-sensitive": true}}}));
		form.addEventListener("submit", (e) => { e.preventDefault(); e.respondWith(Promise.resolve({secret: `+js(pretendSecret)+`})); });
		d.documentElement.append(form);
		const veilBefore = !!fr.contentWindow[mark];
		const moved = await fx.until(() => form.getAttribute("data-veil-toolname") === "c_early" && !form.hasAttribute("toolname"));
		let t;
		const listed = await fx.until(async () => (t = (await document.modelContext.getTools()).find((t) => t.name === "c_early")));
		return {early, veilBefore, moved, listed, window: t?.window === fr.contentWindow,
			view: t ? await document.modelContext.executeTool(t, {}).catch((e) => e.name + ": " + e.message) : ""};
	})()`)
	require.Equal(t, true, got["early"], "the child's document came")
	require.Equal(t, false, got["veilBefore"], "the form came before the child's Veil ran")
	assert.Equal(t, true, got["moved"], "the parent's guard moved the form's toolname")
	require.Equal(t, true, got["listed"], "the form is a tool of the child's Veil: %v", got)
	assert.Equal(t, true, got["window"], "listed with the child's window")
	view, _ := got["view"].(string)
	assert.Contains(t, view, "dev.veil/withheld", "the child's agent view")
	assertWithheld(t, view, pretendSecret, "the parent's call of the child's form")
}

// TestAttackFramePopupPretends: the page opens a same-origin window
// (window.open) whose document holds the sensitive form and a script that
// sets the mark. The popup is no frame of the page: neither the page's
// API nor Chromium's native paths in the opener's tab list or run its
// form, so its answer does not reach the opener's agent. (The popup is a
// page of its own, in a tab of its own; without Veil there, its forms are
// the browser's tools in that tab.)
func TestAttackFramePopupPretends(t *testing.T) {
	t.Parallel() // in a tab of its own
	site := pretendSite(t)
	tb := openTab(t, native)
	reg := tb.followNative()
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(site.URL+"/top.html")))
	got := eval[map[string]any](tb, `(async () => {
		await veil.ready;
		const w = open("/pretend.html?p=script", "_blank");
		const waitFor = async (p) => { for (let i = 0; i < 500 && !p(); i++) await new Promise((r) => setTimeout(r, 10)); return !!p(); };
		const loaded = await waitFor(() => w?.document?.URL.includes("/pretend.html") && w.document.readyState === "complete");
		await new Promise((r) => setTimeout(r, 600));
		const listed = (await document.modelContext.getTools()).map((t) => t.name);
		const call = await navigator.modelContextTesting.executeTool("frame_key", '{"label":"x"}').catch((e) => e.name);
		w.close();
		return {opened: !!w, loaded, listed, call: String(call)};
	})()`)
	require.Equal(t, true, got["opened"], "the popup opened")
	require.Equal(t, true, got["loaded"], "the popup loaded its document")
	assert.NotContains(t, got["listed"], "frame_key", "the opener's getTools lists the popup's form")
	assertWithheld(t, got["call"].(string), pretendSecret, "the opener's modelContextTesting")
	assert.False(t, reg.has("frame_key"), "the opener's native registry holds the popup's form")
	for where, outcome := range invokeInFrames(tb, "frame_key", `{"label":"x"}`) {
		assertWithheld(t, outcome, pretendSecret, "WebMCP.invokeTool in the opener's "+where)
	}
}

// TestAttackFramePretendsVeilControl: the probe of TestAttackFramePretendsVeil
// sees a leak where there is one. In the same page without the runtime,
// the frame's form is the browser's tool, and WebMCP.invokeTool hands
// its answer, the secret, to the agent whole.
func TestAttackFramePretendsVeilControl(t *testing.T) {
	t.Parallel() // in a tab of its own
	site := pretendSite(t)
	tb := openTab(t, native)
	reg := tb.followNative()
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(site.URL+"/bare.html")))
	require.True(t, eval[bool](tb, `(async () => {
		const f = document.getElementById("f");
		f.srcdoc = `+js(pretendDoc("script"))+`;
		for (let i = 0; i < 500 && !f.contentDocument?.querySelector("form[toolname]"); i++) await new Promise((r) => setTimeout(r, 10));
		await new Promise((r) => setTimeout(r, 300));
		return !!f.contentDocument.querySelector("form[toolname]");
	})()`), "the frame's form keeps its toolname")
	assert.True(t, reg.has("frame_key"), "the browser's registry holds the frame's form")
	leaked := false
	for _, outcome := range invokeInFrames(tb, "frame_key", `{"label":"x"}`) {
		leaked = leaked || strings.Contains(outcome, pretendSecret)
	}
	assert.True(t, leaked, "no native path handed out the unguarded form's answer: the probe cannot see a leak")
}
