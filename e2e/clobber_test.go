package e2e

import (
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	veiljs "github.com/veilmcp/veil/js"
	"github.com/veilmcp/veil/js/serve"
)

// Markup the page shows (a comment, an e-mail, a shared document) takes
// names: an element with an id, or a form, img, iframe, embed or object
// with a name, is the window's and the document's property of that name
// (the document's over its own members), and a control with a name is
// its form's. These tests plant an element by every name the runtime
// reads (js.PageReads) in each place it can be, before and after the
// runtime, however the page includes the runtime, in both engine modes,
// and hold that the runtime installs, loads only its own files from its
// own origin, withholds, and renders its tray and its question, and that
// a planted form tool stays out of the browser's registry.

// clobberShapes are the markup a page's content plants for a name: an
// img by name (it points elsewhere, as a stolen document.currentScript
// would), a form by name holding a veil-base meta that names another
// origin (as a stolen document.head would), an object by id, and all
// three at once (the document's property is then a collection).
var clobberShapes = map[string]func(name, other string) string{
	"img": func(name, other string) string {
		return fmt.Sprintf(`<img name="%s" src="%s/evil/img.gif" alt="">`, name, other)
	},
	"form": func(name, other string) string {
		return fmt.Sprintf(`<form name="%[1]s" action="%[2]s/evil/"><meta name="veil-base" content="%[2]s/evil/"></form>`, name, other)
	},
	"id": func(name, other string) string { return fmt.Sprintf(`<object id="%s"></object>`, name) },
	"all": func(name, other string) string {
		return fmt.Sprintf(`<img name="%[1]s" src="%[2]s/evil/img.gif" alt=""><form name="%[1]s" action="%[2]s/evil/"><meta name="veil-base" content="%[2]s/evil/"></form><object id="%[1]s"></object>`, name, other)
	},
}

// clobberPlaces are where the markup is, relative to the runtime: in the
// head (appended there by the page's own script, as a page that puts
// content in its head does) or in the body, before or after it.
var clobberPlaces = []string{"head-before", "head-after", "body-before", "body-after"}

// clobberIncludes are how the page includes the runtime: the script tag,
// a bundle that took webmcp.js in (a classic script without a src), and
// a module script; the last two name the folder with veil-base.
var clobberIncludes = []string{"tag", "bundle", "module"}

// clobberMarkup is the planted markup of one shape: an element by each
// of js.PageReads, and a form tool whose controls take each name on it.
func clobberMarkup(shape, other string) string {
	var b strings.Builder
	for _, name := range veiljs.PageReads {
		b.WriteString(clobberShapes[shape](name, other))
	}
	fmt.Fprintf(&b, `<form toolname="planted" tooldescription="planted" action="%s/evil/sink">`, other)
	for _, name := range veiljs.PageReads {
		fmt.Fprintf(&b, `<input name="%s" value="x">`, name)
	}
	b.WriteString(`</form>`)
	return b.String()
}

// inHead is markup the page's own script appends to its head, read
// through the DOM's prototypes, since what it appends may already be
// there.
func inHead(id, markup string) string {
	return fmt.Sprintf(`<template id="%s">%s</template><script>Node.prototype.appendChild.call(Object.getOwnPropertyDescriptor(Document.prototype, "head").get.call(document), Document.prototype.getElementById.call(document, %q).content);</script>`, id, markup, id)
}

// clobberPage writes the page of one case.
func clobberPage(bundle []byte, shape, place, include, mode, other string) string {
	markup := clobberMarkup(shape, other)
	runtime := `<script src="/veil/webmcp.js"` + map[bool]string{true: ` data-veil-mode="main"`, false: ``}[mode == "main"] + `></script>`
	var meta string
	switch include {
	case "bundle":
		runtime = "<script>" + string(bundle) + "</script>"
	case "module":
		runtime = `<script type="module" src="/veil/webmcp.js"></script>`
	}
	if include != "tag" {
		meta = `<meta name="veil-base" content="/veil/">`
		if mode == "main" {
			// Without a script tag to force the mode: no Worker may run.
			meta += `<meta http-equiv="Content-Security-Policy" content="worker-src 'none'">`
		}
	}
	var headBefore, headAfter, bodyBefore, bodyAfter, headRuntime, bodyRuntime string
	headRuntime = runtime
	switch place {
	case "head-before":
		headBefore = inHead("plant", markup)
	case "head-after":
		headAfter = inHead("plant", markup)
	case "body-before":
		bodyBefore, bodyRuntime, headRuntime = markup, runtime, ""
	case "body-after":
		bodyAfter = markup
	}
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>clobber</title><link rel="icon" href="data:,">` +
		meta + headBefore + headRuntime + headAfter +
		`</head><body><veil-secrets></veil-secrets>` + bodyBefore + bodyRuntime + bodyAfter + `</body></html>`
}

// clobberSite serves the runtime at /veil/ and each case's page at
// /page/<shape>/<place>/<include>/<mode>, and keeps every request by
// host and path: the same server, reached as localhost, is the other
// origin.
type clobberSite struct {
	*httptest.Server
	other    string
	mu       sync.Mutex
	requests []string
	// raw are pages served as they are at /raw/<name>, OTHER replaced by
	// the other origin.
	raw map[string]string
}

func newClobberSite(t *testing.T) *clobberSite {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	bundle, err := os.ReadFile(path.Join(distDir, "webmcp.js"))
	require.NoError(t, err)
	// A script's text ends at the first "</script": the bundle has none.
	require.NotContains(t, strings.ToLower(string(bundle)), "</script")
	s := &clobberSite{raw: map[string]string{}}
	files := serve.Handler(os.DirFS(distDir))
	mux := http.NewServeMux()
	mux.Handle("/veil/", http.StripPrefix("/veil", files))
	mux.HandleFunc("/evil/", func(w http.ResponseWriter, r *http.Request) {
		// What another origin would serve in the runtime's place.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Content-Type", "text/javascript")
		w.Write([]byte("globalThis.evilRan = true;"))
	})
	mux.HandleFunc("/raw/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		page, ok := s.raw[strings.TrimPrefix(r.URL.Path, "/raw/")]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(strings.ReplaceAll(page, "OTHER", s.other)))
	})
	mux.HandleFunc("/page/", func(w http.ResponseWriter, r *http.Request) {
		p := strings.Split(strings.TrimPrefix(r.URL.Path, "/page/"), "/")
		if len(p) != 4 {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(clobberPage(bundle, p[0], p[1], p[2], p[3], s.other)))
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Host+r.URL.Path)
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	s.other = strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	t.Cleanup(s.Close)
	return s
}

// since returns the requests made after the first n.
func (s *clobberSite) since(n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests[n:]...)
}

// clobberCheck is what the page reports, read through the DOM's
// prototypes and the runtime's own namespace.
const clobberCheck = `(async () => {
  const q = (s) => Document.prototype.querySelector.call(document, s);
  const body = Object.getOwnPropertyDescriptor(Document.prototype, "body").get.call(document);
  const out = { installed: Object.hasOwn(window, "veil") && navigator.modelContext !== undefined };
  if (!out.installed) return out;
  try {
    await veil.ready;
    out.mode = veil.mode;
    out.evilRan = globalThis.evilRan === true;
    out.plantedNeutralized = q("form[toolname]") === null && q('form[data-veil-toolname="planted"]') !== null;
    await navigator.modelContext.registerTool({ name: "secret", description: "a secret", inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { v: { type: "string", "x-sensitive": true } } },
      execute: () => ({ v: "clobber-secret-4f1d" }) });
    const r = await navigator.modelContextTesting.executeTool("secret", "{}");
    out.withheld = typeof r === "string" && !r.includes("clobber-secret-4f1d");
    for (let i = 0; i < 400 && !q("veil-secrets")?.shadowRoot?.querySelector("li"); i++) await new Promise((f) => setTimeout(f, 25));
    out.tray = !!q("veil-secrets")?.shadowRoot?.querySelector("li");
    await navigator.modelContext.registerTool({ name: "risky", description: "deletes", inputSchema: { type: "object" },
      annotations: { destructiveHint: true }, execute: () => "ran" });
    const ac = new AbortController();
    const p = navigator.modelContextTesting.executeTool("risky", "{}", { signal: ac.signal }).catch((e) => e.name);
    const open = () => q("veil-confirm")?.shadowRoot?.querySelector("dialog[open]");
    for (let i = 0; i < 400 && !open(); i++) await new Promise((f) => setTimeout(f, 25));
    out.question = !!open() && q("veil-confirm").parentNode === body;
    ac.abort();
    out.aborted = await p;
  } catch (e) {
    out.error = String(e && e.stack || e);
  }
  return out;
})()`

type clobberResult struct {
	Installed          bool   `json:"installed"`
	Mode               string `json:"mode"`
	EvilRan            bool   `json:"evilRan"`
	PlantedNeutralized bool   `json:"plantedNeutralized"`
	Withheld           bool   `json:"withheld"`
	Tray               bool   `json:"tray"`
	Question           bool   `json:"question"`
	Aborted            string `json:"aborted"`
	Error              string `json:"error"`
}

// clobberModes are the engine's modes a case's page asks for.
var clobberModes = []string{"worker", "main"}

// clobberCase is one page of TestClobberedNamesNeitherStopNorSteerTheRuntime.
type clobberCase struct{ shape, place, include, mode string }

// clobberCases are the pages of TestClobberedNamesNeitherStopNorSteerTheRuntime:
// with all, every shape, place, way of inclusion and engine mode (96
// pages); else 16 of them, one per shape and place, whose inclusion and
// mode turn with the sum of the two's indices, so that each pair of
// values of two factors has a page (checked by
// TestClobberCasesCoverEveryPair).
func clobberCases(all bool) []clobberCase {
	shapes := slices.Sorted(maps.Keys(clobberShapes))
	var cases []clobberCase
	for i, shape := range shapes {
		for j, place := range clobberPlaces {
			if !all {
				cases = append(cases, clobberCase{shape, place, clobberIncludes[(i+j)%len(clobberIncludes)], clobberModes[(i+j)%len(clobberModes)]})
				continue
			}
			for _, include := range clobberIncludes {
				for _, mode := range clobberModes {
					cases = append(cases, clobberCase{shape, place, include, mode})
				}
			}
		}
	}
	return cases
}

// TestClobberCasesCoverEveryPair: the pages make test runs hold each pair
// of values of two of the factors (shape, place, inclusion, mode), and the
// full set every combination.
func TestClobberCasesCoverEveryPair(t *testing.T) {
	factors := func(c clobberCase) []string { return []string{c.shape, c.place, c.include, c.mode} }
	values := [][]string{slices.Sorted(maps.Keys(clobberShapes)), clobberPlaces, clobberIncludes, clobberModes}
	all := 1
	for _, v := range values {
		all *= len(v)
	}
	full := clobberCases(true)
	assert.Len(t, full, all, "the full set")
	assert.Len(t, slices.Compact(slices.SortedFunc(slices.Values(full), func(a, b clobberCase) int {
		return strings.Compare(strings.Join(factors(a), "/"), strings.Join(factors(b), "/"))
	})), all, "the full set's pages are distinct")
	subset := clobberCases(false)
	assert.Len(t, subset, len(values[0])*len(values[1]))
	for x := range values {
		for y := x + 1; y < len(values); y++ {
			for _, vx := range values[x] {
				for _, vy := range values[y] {
					assert.True(t, slices.ContainsFunc(subset, func(c clobberCase) bool { return factors(c)[x] == vx && factors(c)[y] == vy }),
						"no page with %s and %s", vx, vy)
				}
			}
		}
	}
}

// TestClobberedNamesNeitherStopNorSteerTheRuntime: for every shape, place,
// way of inclusion and engine mode (each pair of them in make test,
// clobberCases), with an element by every name the runtime reads, the
// runtime installs in the mode asked for, loads its files from its own
// folder on the page's origin and nothing from the other, withholds a
// sensitive value, renders its tray and its question in the document's
// body, and the planted form tool is moved out of the browser's reach.
func TestClobberedNamesNeitherStopNorSteerTheRuntime(t *testing.T) {
	t.Parallel() // beside the other tests; its pages side by side too
	cases := clobberCases(fullMatrix())
	logSubset(t, len(cases), len(clobberCases(true)))
	for _, c := range cases {
		shape, place, include, mode := c.shape, c.place, c.include, c.mode
		t.Run(strings.Join([]string{shape, place, include, mode}, "/"), func(t *testing.T) {
			t.Parallel()
			site := newClobberSite(t)
			tb := openTab(t, native)
			// The page's policy, which keeps the engine off Workers.
			tb.allowConsole(`violates the following Content Security Policy directive: "worker-src 'none'"`)
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(site.URL+"/page/"+strings.Join([]string{shape, place, include, mode}, "/"))))
			got := eval[clobberResult](tb, clobberCheck)
			require.True(t, got.Installed, "the runtime did not install")
			require.Empty(t, got.Error, "the check failed")
			assert.Equal(t, mode, got.Mode, "engine mode")
			assert.False(t, got.EvilRan, "a script of the other origin ran")
			assert.True(t, got.PlantedNeutralized, "the planted form tool kept its toolname")
			assert.True(t, got.Withheld, "the sensitive value reached the agent")
			assert.True(t, got.Tray, "the tray shows nothing")
			assert.True(t, got.Question, "the question did not open in the body")
			assert.Equal(t, "AbortError", got.Aborted, "the aborted question's call")
			for _, r := range site.since(0) {
				host, p, _ := strings.Cut(r, "/")
				if p == "evil/img.gif" || strings.HasPrefix(p, "page/") {
					continue
				}
				assert.True(t, strings.HasPrefix(host, "127.0.0.1") && strings.HasPrefix(p, "veil/"), "a request that is not for the runtime's own files: %s", html.EscapeString(r))
			}
			tb.close()
		})
	}
}

// TestRuntimeFolderOnAnotherOriginRefused (issue 30, item 2): the folder
// of the runtime's files, whether a veil-base meta names it or the script
// was loaded from there, is on another origin: nothing is loaded from it,
// a console error names it, and the runtime is installed with every call
// failing.
func TestRuntimeFolderOnAnotherOriginRefused(t *testing.T) {
	t.Parallel() // in tabs of its own
	pages := map[string]string{
		"meta":   `<meta name="veil-base" content="OTHER/veil/"><script src="/veil/webmcp.js"></script>`,
		"script": `<script src="OTHER/veil/webmcp.js"></script>`,
		"module": `<meta name="veil-base" content="OTHER/veil/"><script type="module" src="/veil/webmcp.js"></script>`,
	}
	for name, head := range pages {
		t.Run(name, func(t *testing.T) {
			site := newClobberSite(t)
			site.raw["p.html"] = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title><link rel="icon" href="data:,">` + head + `</head><body></body></html>`
			tb := openTab(t, plain)
			tb.allowConsole(`not on the page's origin`)
			tb.allowConsole(`veil: the engine is unavailable`)
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(site.URL+"/raw/p.html")))
			got := eval[map[string]any](tb, `(async () => {
				const installed = Object.hasOwn(window, "veil");
				const ready = await veil.ready.then(() => "up", (e) => String(e.message));
				await navigator.modelContext.registerTool({name: "t", description: "d", execute: () => "ran"}).catch(() => {});
				const call = await navigator.modelContextTesting.executeTool("t", "{}").then((v) => "resolved: " + v, (e) => e.name);
				return {installed, ready, call};
			})()`)
			assert.Equal(t, true, got["installed"], "the runtime is installed")
			assert.NotEqual(t, "up", got["ready"], "the engine did not start")
			assert.NotContains(t, got["call"], "resolved", "a call fails")
			folder := site.other + "/veil/"
			assert.True(t, slices.ContainsFunc(tb.consoleTexts(), func(m string) bool {
				return strings.Contains(m, folder) && strings.Contains(m, "not on the page's origin")
			}), "a console error names %s: %v", folder, tb.consoleTexts())
			for _, r := range site.since(0) {
				host, p, _ := strings.Cut(r, "/")
				if strings.HasPrefix(host, "localhost") {
					assert.Equal(t, "veil/webmcp.js", p, "a request to the other origin")
					assert.Equal(t, "script", name, "a request to the other origin: %s", r)
				}
			}
		})
	}
}
