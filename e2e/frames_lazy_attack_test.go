package e2e

import (
	"html/template"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/bound"
	"github.com/veilmcp/veil/js/serve"
)

// The frames code, redeeming a secret_reference and starting an engine
// again are modules webmcp.js loads when it needs them (veil-frames.js,
// veil-redeem.js, veil-restart.js). These tests attack the moments around
// those loads: a frame's first request before its parent loaded the
// frames code, requests forged before and while it loads, windows that
// are not of the page, and each module failing to load. Their pages are
// served under /lazy/<variant>/, with the runtime under
// /lazy/<variant>/dist/, where the variant names what goes wrong with
// which file (lazyVariants).

// lazyHTML is the page of these tests, as parent, child and popup: the
// frames harness (frames.js), lazy-attack.js, faults.js when asked, and
// the runtime from the variant's folder.
var lazyHTML = template.Must(template.New("lazy").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>lazy</title>
<link rel="icon" href="data:,">
<style>body { margin: 0 } iframe { display: block; border: 0; width: 300px; height: 80px }</style>
<script src="/harness.js"></script>
<script src="/frames.js"></script>
<script src="/lazy-attack.js"></script>
{{if .Faults}}<script src="/faults.js"></script>{{end}}
<script src="/lazy/{{.Variant}}/dist/webmcp.js" data-veil-mode="{{.Mode}}" data-veil-redeem-path="/redeem/"{{if .Wait}} data-veil-frame-wait="{{.Wait}}"{{end}}></script>
<script>if (document.modelContext) fx.listen();</script>
</head>
<body>
<button id="reveal" style="display: block; width: 120px; height: 30px">Reveal</button>
{{if .Unseen}}<div><template shadowrootmode="closed"><iframe src="{{.Unseen}}"{{if .Allow}} allow="{{.Allow}}"{{end}}></iframe></template></div>{{end}}
<script>
  // Reveals the first reference this page holds, on a trusted click.
  document.getElementById("reveal").onclick = async () => {
    const [item] = (await veil.items()).filter((i) => i.kind === "reference");
    window.revealed = item ? await veil.reveal(item.handle) : null;
  };
</script>
</body>
</html>
`))

// lazyVariants says, for each variant, what is done to which of the
// runtime's files: "404", "html" (a page served in its place), "hang"
// (never answered), "slow" (answered after 300 ms), "csp" (the page's CSP
// allows only the runtime's own files by name). A variant not listed
// serves them all as they are.
var lazyVariants = map[string]struct{ file, fault string }{
	"frames404":  {"veil-frames.js", "404"},
	"frameshtml": {"veil-frames.js", "html"},
	"framesslow": {"veil-frames.js", "slow"},
	"csp":        {"veil-frames.js", "csp"},
	"restart404": {"veil-restart.js", "404"},
	"redeem404":  {"veil-redeem.js", "404"},
}

var (
	lazyOnce sync.Once
	// lazyProbes counts the requests of /lazy/probe/, by host and path.
	lazyProbes sync.Map
)

// lazyServe adds the handler of /lazy/ to the test server, once.
func lazyServe(t testing.TB) {
	t.Helper()
	mux, ok := server.Config.Handler.(*http.ServeMux)
	require.True(t, ok, "the test server's handler is a ServeMux")
	lazyOnce.Do(func() { mux.HandleFunc("/lazy/", handleLazy) })
}

// probeHits is how many requests reached /lazy/probe/<name> at host.
func probeHits(host, name string) int64 {
	if n, ok := lazyProbes.Load(host + " /lazy/probe/" + name); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// handleLazy serves /lazy/probe/ (a redemption endpoint that counts its
// requests), /lazy/<variant>/page.html and /lazy/<variant>/dist/.
func handleLazy(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/lazy/")
	if strings.HasPrefix(rest, "probe/") {
		n, _ := lazyProbes.LoadOrStore(r.Host+" "+r.URL.Path, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"value": "probe-secret-4e1d"}`))
		return
	}
	variant, file, _ := strings.Cut(rest, "/")
	fault := lazyVariants[variant]
	origin := "http://" + r.Host
	if file == "page.html" {
		mode := r.URL.Query().Get("mode")
		if mode != "main" {
			mode = "worker"
		}
		if fault.fault == "csp" {
			// Scripts from the harness's files and the runtime's own, not
			// its folder: veil-frames.js is refused.
			srcs := []string{"'unsafe-inline'", "'unsafe-eval'", "'wasm-unsafe-eval'"}
			for _, f := range []string{"/harness.js", "/frames.js", "/lazy-attack.js", "/lazy/csp/dist/webmcp.js", "/lazy/csp/dist/worker.js", "/lazy/csp/dist/wasm_exec.js"} {
				srcs = append(srcs, origin+f)
			}
			w.Header().Set("Content-Security-Policy", "script-src "+strings.Join(srcs, " "))
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := lazyHTML.Execute(w, map[string]any{"Variant": variant, "Mode": mode, "Faults": r.URL.Query().Get("faults") == "1",
			"Unseen": r.URL.Query().Get("unseen"), "Allow": r.URL.Query().Get("allow"), "Wait": r.URL.Query().Get("wait")}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
		return
	}
	name, ok := strings.CutPrefix(file, "dist/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	if name == fault.file {
		switch fault.fault {
		case "404":
			http.NotFound(w, r)
			return
		case "html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<!doctype html><title>Not here</title><p>Try our home page."))
			return
		case "hang":
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Minute):
			}
			return
		case "slow":
			time.Sleep(300 * time.Millisecond)
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/" + name
	serve.Handler(os.DirFS(distDir)).ServeHTTP(w, r2)
}

// lazyPage is the path of the page of variant, its engine in mode.
func lazyPage(variant, mode string) string {
	return "lazy/" + variant + "/page.html?mode=" + mode
}

// lazyAnswerWait is how long a frame of a patient page (patientPage)
// waits for another frame's answer, scaled by bound.Of: long enough for a
// parent on a busy machine to load veil-frames.js at a frame's first
// request and answer it. The runtime's own wait, a second, is a page's
// default, not a bound of these tests.
const lazyAnswerWait = 20 * time.Second

// patientPage is the path of the page of variant as lazyPage has it,
// whose frames wait lazyAnswerWait for each other
// (data-veil-frame-wait): where a test needs another frame's answer, that
// answer coming late on a busy machine does not fail it, and where it
// needs no waiting, a wait it did not skip shows as lazyAnswerWait.
func patientPage(variant, mode string) string {
	return lazyPage(variant, mode) + "&wait=" + strconv.FormatInt(bound.Millis(lazyAnswerWait), 10)
}

// craftAnswered is the body of lazy.craft's call for a request that is
// answered with n messages: it resolves once they came, and waits for
// them up to lazyAnswerWait.
func craftAnswered(w, origin, message string, n int) string {
	return `return lazy.craft(` + w + `, ` + origin + `, ` + message + `, ` + js(bound.Millis(lazyAnswerWait)) + `, ` + js(n) + `)`
}

// openLazy opens the page of variant in a tab of run's browser, with the
// query parameters query adds ("" for none).
func openLazy(t *testing.T, run frameRun, variant, query string) *frames {
	t.Helper()
	lazyServe(t)
	tb := openTab(t, run.b())
	tb.navigate(lazyPage(variant, run.mode) + query)
	require.Equal(t, run.mode, eval[string](tb, `veil.ready.then(() => veil.mode)`), "the engine runs")
	return &frames{tab: tb, parent: server.URL}
}

// openPatient opens the patient page of variant (patientPage) as openLazy
// opens its page.
func openPatient(t *testing.T, run frameRun, variant, query string) *frames {
	t.Helper()
	return openLazy(t, run, variant, strings.TrimPrefix(patientPage(variant, run.mode), lazyPage(variant, run.mode))+query)
}

// TestFramesLazyUnseenFrame: a frame the parent's guard cannot see (in
// a closed declarative shadow root, and that frame's own child) asks the
// parent for its tools before the parent loaded veil-frames.js. The
// parent loads it at that first message and answers that very request,
// before the frame stops waiting (its wait is lazyAnswerWait here, so
// that a load slowed by a busy machine is not taken for no answer); the
// frame runs the parent's tool, and the parent runs the frame's by hand. Across origins (the "tools" policy allowing it)
// the same. (A frame in a shadow tree is not among window.frames, so the
// parent's getTools does not list its tools: it asks the frames it finds.)
func TestFramesLazyUnseenFrame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, variant string
		run           frameRun
		cross, nested bool
	}{
		{"same-origin", "ok", runWorker, false, false},
		{"same-origin, main thread", "ok", runMain, false, false},
		{"same-origin, the frame's own child", "ok", runWorker, false, true},
		{"same-origin, veil-frames.js slow", "framesslow", runWorker, false, false},
		{"cross-origin", "ok", runLayered, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			child, allow := server.URL, ""
			if tt.cross {
				child, allow = crossOrigin(t), "tools *"
			}
			f := openPatient(t, tt.run, tt.variant, "&unseen="+url.QueryEscape(child+"/"+patientPage(tt.variant, tt.run.mode))+"&allow="+url.QueryEscape(allow))
			f.child = child
			require.Equal(t, 0, eval[int](f.tab, `lazy.adopt(`+js(child)+`)`), "the child's index")
			require.Equal(t, 0, eval[int](f.tab, `window.length`), "a frame in a shadow tree is not among window.frames")
			require.Nil(t, f.inParent(`await fx.register({name: "p_tool", description: "Parent tool",
				inputSchema: {type: "object", properties: {q: {type: "string"}}}, execute: ({q}) => "hello " + q}, {exposedTo: [`+js(f.child)+`]})`).Error)
			assert.Equal(t, false, eval[bool](f.tab, `lazy.loaded()`), "the parent loaded veil-frames.js before any frame asked it")

			// ask runs body in the frame that asks: the child, or its own child.
			ask := f.inChild
			asker, parentLabel := f.child, "parent"
			if tt.nested {
				require.Equal(t, 0, value[int](t, f.inChild(`return fx.open(location.origin + "/" + `+js(patientPage(tt.variant, tt.run.mode))+`)`), "opening the child's child"))
				ask = func(body string) settled {
					t.Helper()
					return f.inChild(`const r = await fx.in(0, ` + js(body) + `); if (!r.ok) throw Object.assign(new Error(r.error.message), {name: r.error.name}); return r.value;`)
				}
				parentLabel = "-1" // the top is not the asker's parent
				assert.Equal(t, false, eval[bool](f.tab, `lazy.loaded()`), "the parent loaded veil-frames.js before any frame asked it")
			}
			from := `{fromOrigins: [` + js(f.parent) + `]}`
			got := value[map[string]any](t, ask(`const r = await lazy.timed(() => fx.names(`+from+`)); return {ms: r.ms, names: r.value, error: r.error ?? null}`), "getTools in the asking frame")
			assert.Equal(t, []any{"p_tool@" + parentLabel + ":" + f.parent}, got["names"], "the parent's tool, listed by a frame it did not see: %v", got)
			assert.Less(t, got["ms"], float64(bound.Millis(lazyAnswerWait)), "getTools waited out a frame's wait: a request went unanswered")
			assert.Equal(t, "hello "+asker, value[string](t, ask(`const t = (await document.modelContext.getTools(`+from+`)).find((t) => t.name === "p_tool");
				return document.modelContext.executeTool(t, {q: `+js(asker)+`})`), "the frame runs the parent's tool"))
			assert.Equal(t, true, eval[bool](f.tab, `lazy.loaded()`), "the parent loaded veil-frames.js at the first request")

			if !tt.nested {
				registerInChild(t, f, `{name: "c_tool", description: "Child tool", execute: () => "hello from the child"}`)
				assert.Equal(t, "hello from the child", value[string](t, f.inParent(`return document.modelContext.executeTool({name: "c_tool", description: "Child tool",
					origin: `+js(f.child)+`, window: fx.children[0].frame.contentWindow})`), "the parent runs the child's tool by hand"))
			}
			assert.Empty(t, eval[[]string](f.tab, `lazy.rejections`), "unhandled rejections in the parent")
		})
	}
}

// TestFramesLazyForgedFirstRequest: a cross-origin frame crafts requests
// by hand, and the first is the first message the parent hears, so the
// parent checks it with the code it loads for it. A call of a tool not
// exposed to the frame's origin gets no answer and runs nothing; a list
// shows the exposed tool only, and a call of it is answered. Where the
// browser does not know the "tools" policy, Veil reads it from the
// iframe's allow attribute, and the parent cannot find this iframe (in a
// closed shadow root): cross-origin is off for it, and even the exposed
// tool's call gets no answer and runs nothing.
func TestFramesLazyForgedFirstRequest(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		run   frameRun
		allow string
		open  bool
	}{
		{"policy known", runLayered, "tools *", true},
		{"policy unknown", runWorker, "tools *", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			child := crossOrigin(t)
			f := openLazy(t, tt.run, "framesslow", "&unseen="+url.QueryEscape(child+"/"+lazyPage("framesslow", tt.run.mode))+"&allow="+url.QueryEscape(tt.allow))
			f.child = child
			require.Equal(t, 0, eval[int](f.tab, `lazy.adopt(`+js(child)+`)`), "the child's index")
			require.Nil(t, f.inParent(`window.ran = [];
				await fx.register({name: "p_private", description: "d", execute: () => (ran.push("p_private"), "private")});
				await fx.register({name: "p_shared", description: "d", execute: () => (ran.push("p_shared"), "shared")}, {exposedTo: [`+js(child)+`]});`).Error)
			require.Equal(t, false, eval[bool](f.tab, `lazy.loaded()`), "the parent loaded veil-frames.js before any frame asked it")

			craft := func(message string) []any {
				t.Helper()
				return value[[]any](t, f.inChild(`return lazy.craft(parent, `+js(f.parent)+`, `+message+`)`), "a crafted request: "+message)
			}
			assert.Equal(t, []any{}, craft(`{type: "call", name: "p_private", input: "{}"}`), "the first request, a call of a tool not exposed")
			assert.Equal(t, true, eval[bool](f.tab, `lazy.loaded()`), "the parent loaded veil-frames.js at the first request")
			assert.Equal(t, []any{}, craft(`{type: "call", name: "p_private", input: "{}", exposedTo: [location.origin]}`), "a call of a tool not exposed, claiming an exposure")
			if tt.open {
				assert.Equal(t, []any{[]any{"p_shared"}}, value[[]any](t, f.inChild(`return (await (async () => { `+craftAnswered("parent", js(f.parent), `{type: "list"}`, 1)+` })()).map((m) => m.tools.map((t) => t.name))`), "a list"), "a list")
				assert.Equal(t, []any{map[string]any{"type": "accepted"}, map[string]any{"type": "result", "value": "shared"}},
					value[[]any](t, f.inChild(craftAnswered("parent", js(f.parent), `{type: "call", name: "p_shared", input: "{}"}`, 2)), "a call of the exposed tool"), "a call of the exposed tool")
				assert.Equal(t, []string{"p_shared"}, value[[]string](t, f.inParent(`return ran`), "tools run in the parent"))
			} else {
				assert.Equal(t, []any{}, craft(`{type: "list"}`), "a list")
				assert.Equal(t, []any{}, craft(`{type: "call", name: "p_shared", input: "{}"}`), "a call of the exposed tool")
				assert.Equal(t, []string{}, value[[]string](t, f.inParent(`return ran`), "tools run in the parent"))
			}
			assert.Empty(t, eval[[]string](f.tab, `lazy.rejections`), "unhandled rejections in the parent")
		})
	}
}

// TestFramesLazyPopup: a window the page opened is not of its frame
// tree, so it gets nothing: requests it crafts to its opener (a list, a
// call of a tool exposed to no one, a call of a tool exposed to its very
// origin) get no answer and run nothing, and its getTools lists none of
// the opener's tools; nor does the opener list the popup's. The opener has
// no frame, so the popup's requests are the first it hears. A child frame
// of the popup's origin crafting the same call is answered, so the
// crafting is sound.
func TestFramesLazyPopup(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		run   frameRun
		cross bool
	}{
		{"same-origin", runWorker, false},
		{"cross-origin, exposed to", runLayered, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := openLazy(t, tt.run, "ok", "")
			other := server.URL
			if tt.cross {
				other = crossOrigin(t)
			}
			require.Nil(t, f.inParent(`window.ran = [];
				await fx.register({name: "p_private", description: "d", execute: () => (ran.push("p_private"), "private")});
				await fx.register({name: "p_shared", description: "d", execute: () => (ran.push("p_shared"), "shared")}, {exposedTo: [`+js(other)+`]});`).Error)
			report := value[map[string]any](t, f.inParent(`const report = new Promise((resolve) => addEventListener("message", (e) => {
					if (e.origin === `+js(other)+` && e.data?.["lazy.report"]) resolve(e.data["lazy.report"]);
				}));
				window.popup = open(`+js(other+"/"+lazyPage("ok", tt.run.mode)+"&craft=")+` + encodeURIComponent(location.origin), "_blank");
				if (!popup) throw new Error("the popup was blocked");
				return report`), "what the popup got")
			t.Cleanup(func() { eval[any](f.tab, `popup.close()`) })
			assert.Equal(t, map[string]any{"list": []any{}, "callPrivate": []any{}, "callShared": []any{}}, report["got"], "answers to the popup's crafted requests")
			assert.Equal(t, []any{}, report["tools"], "getTools in the popup")
			assert.Equal(t, []string{}, value[[]string](t, f.inParent(`return ran`), "tools run in the opener"))
			assert.Equal(t, []string{"p_private@self:" + f.parent, "p_shared@self:" + f.parent},
				value[[]string](t, f.inParent(`return fx.names({fromOrigins: [`+js(other)+`]})`), "getTools in the opener"))

			// The same call from a child frame of the popup's origin is answered.
			allow := any(nil)
			if tt.cross {
				allow = "tools *"
			}
			f.child = other
			require.Equal(t, 0, eval[int](f.tab, `fx.open(`+js(other+"/"+lazyPage("ok", tt.run.mode))+`, `+js(allow)+`)`))
			assert.Equal(t, []any{map[string]any{"type": "accepted"}, map[string]any{"type": "result", "value": "shared"}},
				value[[]any](t, f.inChild(craftAnswered("parent", js(f.parent), `{type: "call", name: "p_shared", input: "{}"}`, 2)), "a child's crafted call"))
			assert.Equal(t, []string{"p_shared"}, value[[]string](t, f.inParent(`return ran`), "tools run in the opener"))
		})
	}
}

// TestFramesLazyForgedBeforeLoad: before the page has loaded
// veil-frames.js (it has no frame), and while it loads, tagged requests
// page script posts to its own window, with ports of its own, and
// MessageEvents script makes, get no answer and run nothing; nor do
// replays of a real request from a child (the browser's event
// dispatched again, or copied into a new one with a fresh port), which
// ran its tool once.
func TestFramesLazyForgedBeforeLoad(t *testing.T) {
	t.Parallel()
	for _, run := range []frameRun{runWorker, runMain} {
		t.Run(run.name, func(t *testing.T) {
			f := openLazy(t, run, "framesslow", "")
			f.child = server.URL
			require.Nil(t, f.inParent(`window.ran = 0;
				await fx.register({name: "p_count", description: "Counts its runs", execute: () => "run " + ++ran})`).Error)
			require.Equal(t, false, eval[bool](f.tab, `lazy.loaded()`), "veil-frames.js loaded in a page with no frame")

			got := value[map[string]any](t, f.inParent(`const call = {type: "call", name: "p_count", input: "{}"};
				const made = (source, origin) => {
					const {port1, port2} = new MessageChannel();
					const got = [];
					port1.onmessage = (e) => got.push(e.data);
					dispatchEvent(new MessageEvent("message", {data: {"dev.veil/frames": 1, ...call}, origin, source, ports: [port2]}));
					return new Promise((resolve) => setTimeout(() => resolve(got), 1500));
				};
				const [self, selfList, star, scripted] = await Promise.all([
					lazy.craft(window, location.origin, call),
					lazy.craft(window, location.origin, {type: "list"}),
					(() => { const {port1, port2} = new MessageChannel(); const got = []; port1.onmessage = (e) => got.push(e.data);
						postMessage({"dev.veil/frames": 1, ...call}, "*", [port2]); return new Promise((r) => setTimeout(() => r(got), 1500)); })(),
					made(window, location.origin),
				]);
				return {self, selfList, star, scripted, ran}`), "forged requests in the page")
			assert.Equal(t, map[string]any{"self": []any{}, "selfList": []any{}, "star": []any{}, "scripted": []any{}, "ran": float64(0)}, got)

			// A real request from a child, then replays of it.
			require.Equal(t, 0, eval[int](f.tab, `fx.open(location.origin + "/" + `+js(lazyPage("framesslow", run.mode))+`)`))
			require.Nil(t, f.inParent(`addEventListener("message", (e) => {
				if (e.data?.["dev.veil/frames"] === 1 && e.data.type === "call") window.captured = e;
			});`).Error)
			// The child lists the parent's tools once veil-frames.js, served
			// slowly here, answers: each getTools waits a bounded time for
			// other frames, which a loaded machine can pass, so it asks again.
			assert.Equal(t, "run 1", value[string](t, f.inChild(`for (let i = 0; ; i++) {
					const t = (await document.modelContext.getTools()).find((t) => t.name === "p_count");
					if (t) return document.modelContext.executeTool(t, {});
					if (i === 9) throw new Error("the parent's p_count was not listed in ten getTools");
				}`), "the child runs the parent's tool"))
			replays := value[map[string]any](t, f.inParent(`const e = window.captured;
				if (!e?.isTrusted) throw new Error("no trusted request captured");
				dispatchEvent(e);
				const {port1, port2} = new MessageChannel();
				const got = [];
				port1.onmessage = (m) => got.push(m.data);
				dispatchEvent(new MessageEvent("message", {data: e.data, origin: e.origin, source: e.source, ports: [port2]}));
				await new Promise((r) => setTimeout(r, 1500));
				return {got, ran}`), "replays in the parent")
			assert.Equal(t, map[string]any{"got": []any{}, "ran": float64(1)}, replays)
			assert.Empty(t, eval[[]string](f.tab, `lazy.rejections`), "unhandled rejections in the parent")
		})
	}
}

// TestFramesLazyLoadFails: veil-frames.js does not load (404, served as
// HTML, refused by the page's CSP) in a parent and its same-origin child.
// There are no tools across frames, and it fails closed: each frame's
// getTools lists its own tools only, at once; executeTool of the other
// frame's tool rejects with UnknownError naming the file and runs
// nothing; each frame's console says why once, however often it is
// asked, and no rejection goes unhandled.
func TestFramesLazyLoadFails(t *testing.T) {
	t.Parallel()
	for _, variant := range []string{"frames404", "frameshtml", "csp"} {
		t.Run(variant, func(t *testing.T) {
			f := openPatient(t, runWorker, variant, "")
			f.tab.allowConsole(`veil: tools across frames are off: .*/lazy/` + variant + `/dist/veil-frames\.js did not load`)
			f.tab.allowConsole(`Failed to load resource|violates the following Content Security Policy directive|MIME type|Failed to fetch dynamically imported module`)
			f.child = server.URL
			require.Equal(t, 0, eval[int](f.tab, `fx.open(location.origin + "/" + `+js(patientPage(variant, "worker"))+`)`))
			require.Nil(t, f.inParent(`window.ran = [];
				await fx.register({name: "p_tool", description: "d", execute: () => (ran.push("p_tool"), "p")})`).Error)
			require.Nil(t, f.inChild(`window.ran = [];
				await fx.register({name: "c_tool", description: "d", execute: () => (ran.push("c_tool"), "c")})`).Error)

			// listed runs getTools three times, and a call of the other frame's tool, in a frame.
			listed := `const lists = [];
				for (let i = 0; i < 3; i++) lists.push(await lazy.timed(() => fx.names()));
				const call = await lazy.timed(() => document.modelContext.executeTool({name: OTHER, description: "d", origin: location.origin, window: WIN}, {}));
				return {lists: lists.map((l) => l.value), slowest: Math.max(...lists.map((l) => l.ms)), call: call.error ?? call.value, callMs: call.ms,
					ran, off: lazy.errors.filter((m) => m.includes("tools across frames are off")).length, rejections: lazy.rejections}`
			for _, side := range []struct {
				who, own, other string
				in              func(string) settled
			}{
				{"parent", "p_tool@self:", "c_tool", f.inParent},
				{"child", "c_tool@self:", "p_tool", f.inChild},
			} {
				win := `fx.children[0].frame.contentWindow`
				if side.who == "child" {
					win = `parent`
				}
				got := value[map[string]any](t, side.in(strings.NewReplacer("OTHER", js(side.other), "WIN", win).Replace(listed)), "getTools and executeTool in the "+side.who)
				own := []any{side.own + server.URL}
				assert.Equal(t, []any{own, own, own}, got["lists"], "getTools in the %s: its own tools only", side.who)
				assert.Less(t, got["slowest"], float64(bound.Millis(lazyAnswerWait)), "getTools in the %s waited out a frame's wait", side.who)
				call, _ := got["call"].(map[string]any)
				assert.Equal(t, "UnknownError", call["name"], "executeTool of the other frame's tool in the %s: %v", side.who, got["call"])
				assert.Contains(t, call["message"], "veil-frames.js did not load", "executeTool's error in the %s names the file", side.who)
				assert.Less(t, got["callMs"], float64(bound.Millis(lazyAnswerWait)), "executeTool in the %s waited out a frame's wait", side.who)
				assert.Equal(t, float64(1), got["off"], "the %s's console says tools across frames are off, once", side.who)
				assert.Equal(t, []any{}, got["rejections"], "unhandled rejections in the %s", side.who)
			}
			assert.Equal(t, []string{}, value[[]string](t, f.inParent(`return ran`), "tools run in the parent"))
			assert.Equal(t, []string{}, value[[]string](t, f.inChild(`return ran`), "tools run in the child"))
		})
	}
}

// TestRestartLazyFails: the engine is lost, and veil-restart.js does not
// load. The runtime goes down: the next call fails at once with
// OperationError and no output, as does every later one; no engine is
// started; the console says why once.
func TestRestartLazyFails(t *testing.T) {
	t.Parallel()
	for _, mode := range engineModes {
		t.Run(mode, func(t *testing.T) {
			lazyServe(t)
			tb := openTab(t, plain)
			tb.navigate(lazyPage("restart404", mode) + "&faults=1")
			tb.allowConsole(`veil: the engine was lost|veil: the engine could not be started again|Failed to load resource|Failed to fetch dynamically imported module`)
			got := eval[map[string]any](tb, `(async () => {
				await veil.ready;
				const lost = [];
				veil.addEventListener("enginelost", (e) => lost.push(e.detail.restarting));
				window.ran = [];
				await document.modelContext.registerTool({name: "greet", description: "Greets", annotations: {readOnlyHint: true},
					execute: () => (ran.push("greet"), "Hello")});
				const before = await e2e.execute("document", "greet", {});
				faults.exit();
				while (!lost.length) await new Promise((r) => setTimeout(r, 5));
				const calls = [];
				for (let i = 0; i < 3; i++) calls.push(await lazy.timed(() => navigator.modelContextTesting.executeTool("greet", "{}")));
				return {before: before.value, lost, calls: calls.map((c) => c.error?.name ?? "resolved: " + c.value), slowest: Math.max(...calls.map((c) => c.ms)),
					ran, engines: faults.engines, busy: veil.calls.length, rejections: lazy.rejections,
					said: lazy.errors.filter((m) => m.includes("could not be started again")).length};
			})()`)
			assert.Equal(t, "Hello", got["before"], "the call before the loss")
			assert.Equal(t, []any{true}, got["lost"], "one loss, restarting")
			assert.Equal(t, []any{"OperationError", "OperationError", "OperationError"}, got["calls"], "the calls after the loss")
			assert.Less(t, got["slowest"], float64(5000), "a call after the loss waited")
			assert.Equal(t, []any{"greet"}, got["ran"], "execute ran after the loss")
			assert.EqualValues(t, 1, got["engines"], "engines started")
			assert.EqualValues(t, 0, got["busy"], "calls in progress")
			assert.EqualValues(t, 1, got["said"], "the console says the engine could not be started again, once")
			assert.Equal(t, []any{}, got["rejections"], "unhandled rejections")
		})
	}
}

// TestRedeemLazy: redeeming is veil-redeem.js's, and a page that imports
// it and asks it for another origin's URL, or a URL with no origin, gets
// "invalid" and nothing is fetched; its own origin's is fetched, so the
// check is sound. A tool's secret_reference on another origin, or with a
// dot segment percent-encoded, is never fetched either, whatever the
// user reveals. And where veil-redeem.js does not load, a reveal resolves
// at once with "network", and nothing is fetched.
func TestRedeemLazy(t *testing.T) {
	t.Parallel()
	t.Run("the module's own check", func(t *testing.T) {
		f := openLazy(t, runWorker, "ok", "")
		cross := crossOrigin(t)
		got := value[map[string]any](t, f.inParent(`const m = await import("/lazy/ok/dist/veil-redeem.js");
			return {
				cross: await m.redeem(`+js(cross+"/lazy/probe/module-cross")+`),
				relative: await m.redeem("/lazy/probe/module-relative"),
				javascript: await m.redeem("javascript:fetch('/lazy/probe/module-js')"),
				same: await m.redeem(location.origin + "/lazy/probe/module-same"),
			}`), "the module's answers")
		for _, k := range []string{"cross", "relative", "javascript"} {
			r, _ := got[k].(map[string]any)
			assert.Equal(t, false, r["ok"], "%s: %v", k, got[k])
			assert.Equal(t, "invalid", r["reason"], "%s: %v", k, got[k])
		}
		assert.Equal(t, map[string]any{"ok": true, "value": "probe-secret-4e1d"}, got["same"])
		host := strings.TrimPrefix(cross, "http://")
		assert.Zero(t, probeHits(host, "module-cross"), "requests to the other origin")
		assert.Zero(t, probeHits(strings.TrimPrefix(server.URL, "http://"), "module-relative"), "requests for the URL with no origin")
		assert.Zero(t, probeHits(strings.TrimPrefix(server.URL, "http://"), "module-js"), "requests from the javascript: URL")
		assert.EqualValues(t, 1, probeHits(strings.TrimPrefix(server.URL, "http://"), "module-same"), "requests to the page's origin")
	})

	for _, tt := range []struct{ name, variant, url, probe string }{
		{"another origin", "ok", "CROSS/lazy/probe/ref-cross", "ref-cross"},
		{"a dot segment", "ok", "/redeem/%2e%2e/lazy/probe/ref-dot", "ref-dot"},
		{"veil-redeem.js missing", "redeem404", "/redeem/../lazy/probe/ref-missing", "ref-missing"},
		{"veil-redeem.js missing, a valid reference", "redeem404", "/redeem/ref-ok", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := openLazy(t, runWorker, tt.variant, "")
			f.tab.allowConsole(`Failed to load resource|Failed to fetch dynamically imported module`)
			cross := crossOrigin(t)
			url := strings.Replace(tt.url, "CROSS", cross, 1)
			view := f.inParent(`await fx.register({name: "key", description: "Makes a key",
				execute: () => ({key: {type: "secret_reference", id: "ref-lazy-51", label: "Key", redeemUrl: ` + js(url) + `, ttl: 600}})});
				return document.modelContext.executeTool((await document.modelContext.getTools())[0], {})`).String(t)
			assert.NotContains(t, view, "ref-lazy-51", "the reference's id reaches the agent")
			assert.NotContains(t, view, "lazy/probe", "the reference's URL reaches the agent")
			refs := value[int](t, f.inParent(`return (await veil.items()).filter((i) => i.kind === "reference").length`), "references held")
			if refs > 0 {
				require.NoError(t, chromedp.Do(f.ctx, chromedp.MouseClickXY(60, 15)), "clicking Reveal")
				got := value[map[string]any](t, f.inParent(`await fx.until(() => window.revealed !== undefined); return window.revealed`), "the reveal")
				assert.Equal(t, false, got["ok"], "the reveal: %v", got)
				if tt.variant == "redeem404" {
					assert.Equal(t, "network", got["reason"], "the reveal: %v", got)
				}
			}
			if tt.probe != "" {
				assert.Zero(t, probeHits(strings.TrimPrefix(cross, "http://"), tt.probe), "requests to the other origin")
				assert.Zero(t, probeHits(strings.TrimPrefix(server.URL, "http://"), tt.probe), "requests to the page's origin")
			} else {
				assert.Equal(t, 1, refs, "the valid reference is held")
			}
			assert.Empty(t, eval[[]string](f.tab, `lazy.rejections`), "unhandled rejections")
		})
	}
}
