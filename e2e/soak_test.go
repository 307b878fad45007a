//go:build soak

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/webmcp"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/demo/demoserver"
	"github.com/veilmcp/veil/wasm/leakcheck"
)

// The browser soak (make soak; the soak build tag keeps it out of go test
// ./...): for SOAK (default 10m) an agent drives the demo page, in the
// browser with native WebMCP on and the engine in a Worker, through every
// agent path at once: document.modelContext.executeTool,
// navigator.modelContext.executeTool, navigator.modelContextTesting,
// Chromium's own executeTool on the runtime's mirror, the DevTools
// protocol's WebMCP.invokeTool and an MCP client on the tab transport. It
// picks random tools with random inputs (valid and not), aborts calls at
// random moments, runs calls in parallel, and now and then reveals an
// item of the <veil-secrets> tray with a click, as the user does.
//
// Every view an agent gets, and the page's console, is searched for every
// sensitive value the demo's backend handed the page (soakSite learns them
// from the backend's answers, not from the engine). Every call must settle
// within soakCallDeadline. After the soak, every held value must expire,
// and the engine's memory is measured again.
//
// Environment (defaults in parentheses):
//
//	SOAK          how long the agent calls tools (10m)
//	SOAK_WORKERS  agents calling at once (6)
//	SOAK_HOLD     the page's data-veil-hold-ttl, in seconds (15)
//	SOAK_SAMPLES  memory samples during the soak (10)

// soakCallDeadline is how long a call may take to settle before it counts
// as a hang.
const soakCallDeadline = 30 * time.Second

// soakMaxKeyTTL is the longest ttl the soak asks create_api_key for, in
// seconds: the engine holds a reference until its ttl if that is later
// than the hold time.
const soakMaxKeyTTL = 20

// soakPaths are the agent paths, by the names soak.js takes and "devtools".
var soakPaths = []string{"document", "navigator", "testing", "native", "devtools", "mcp"}

// soakAbortable are the paths whose caller can abort a call.
var soakAbortable = map[string]bool{"document": true, "navigator": true, "devtools": true, "mcp": true}

type soakConfig struct {
	length  time.Duration
	workers int
	hold    int
	samples int
}

func soakEnv(t *testing.T) soakConfig {
	t.Helper()
	c := soakConfig{length: 10 * time.Minute, workers: 6, hold: 15, samples: 10}
	if v := os.Getenv("SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "SOAK=%q", v)
		c.length = d
	}
	for name, into := range map[string]*int{"SOAK_WORKERS": &c.workers, "SOAK_HOLD": &c.hold, "SOAK_SAMPLES": &c.samples} {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			require.NoError(t, err, "%s=%q", name, v)
			require.Positive(t, n, name)
			*into = n
		}
	}
	return c
}

// soakInput is one random input for a demo tool, and whether the tool's
// inputSchema accepts it.
type soakInput struct {
	json  string
	valid bool
}

// soakNames are key names the agent picks from: plain, with characters
// that need escaping, non-ASCII, and the longest allowed.
var soakNames = []string{"ci", "deploy-bot", `quote " and \ backslash`, "<script>alert(1)</script>", "naïve 🔑 ключ", "café\u00a0au lait", strings.Repeat("x", 64), "tab\tnew\nline"}

// randomInput makes an input for the tool.
func randomInput(r *rand.Rand, tool string) soakInput {
	bad := r.IntN(8) == 0
	switch tool {
	case "create_api_key":
		if bad {
			return []soakInput{
				{`{}`, false},
				{`{"name":""}`, false},
				{`{"name":"` + strings.Repeat("y", 65) + `"}`, false},
				{`{"name":"a","ttl":0}`, false},
				{`{"name":"a","extra":true}`, false},
			}[r.IntN(5)]
		}
		name, _ := json.Marshal(soakNames[r.IntN(len(soakNames))])
		return soakInput{fmt.Sprintf(`{"name":%s,"ttl":%d}`, name, 1+r.IntN(soakMaxKeyTTL)), true}
	case "list_orders":
		if bad {
			return soakInput{`{"status":"refunded"}`, false}
		}
		return []soakInput{{`{}`, true}, {`{"status":"paid"}`, true}, {`{"status":"pending"}`, true}}[r.IntN(3)]
	default:
		if bad {
			return soakInput{`{"unexpected":1}`, false}
		}
		return soakInput{`{}`, true}
	}
}

// soakOutcome is how one call ended.
type soakOutcome struct {
	OK      bool   `json:"ok"`
	View    string `json:"view"`
	Type    string `json:"type"`
	Name    string `json:"name"`
	Message string `json:"message"`
}

// soakStats counts what the soak did.
type soakStats struct {
	mu       sync.Mutex
	calls    map[string]int // by path
	ok       map[string]int
	errs     map[string]map[string]int // path -> error name -> count
	samples  map[string]string         // "path name" -> the first message
	aborts   map[string]int            // calls aborted, by path
	hangs    []string
	leaks    []string
	oracle   int // leakcheck.Find searches
	screened int // plain searches of every value produced
	reveals  map[string]int
	bad      []string // outcomes that break a promise other than a leak
}

func newSoakStats() *soakStats {
	return &soakStats{calls: map[string]int{}, ok: map[string]int{}, errs: map[string]map[string]int{}, aborts: map[string]int{}, reveals: map[string]int{}, samples: map[string]string{}}
}

// soakMemory is one sample of the engine's memory.
type soakMemory struct {
	at         time.Duration
	calls      int
	wasm       int64 // WebAssembly memory of the page and its workers
	workerHeap int64 // the engine worker's JavaScript heap, used
	pageHeap   int64 // the page's JavaScript heap, used
	goLive     int64 // the engine's Go heap, live after a collection
	held       int   // items veil.items() lists
}

// soakRun is the state of one soak.
type soakRun struct {
	t     *testing.T
	cfg   soakConfig
	site  *soakSite
	tb    *tab
	tools []string
	paths []string
	stats *soakStats
	calls atomic.Int64
	frame cdp.FrameID

	// responded hands each WebMCP.toolResponded event to the call that
	// waits for it, or keeps it until that call asks.
	mu        sync.Mutex
	waiting   map[string]chan []byte
	early     map[string][]byte
	revealSeq atomic.Int64
}

func TestSoak(t *testing.T) {
	cfg := soakEnv(t)
	site := &soakSite{holdTTL: cfg.hold, fixed: map[string]bool{}}
	h, err := demoserver.New(&demoserver.Options{Dist: os.DirFS(distDir), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err, "demoserver.New")
	site.demo = h
	s := httptest.NewServer(site)
	t.Cleanup(s.Close)

	// The tab lives for the soak, the wait for expiry and the samples.
	expiry := time.Duration(max(cfg.hold, soakMaxKeyTTL))*time.Second + time.Minute
	if skipReason != "" {
		t.Skip(skipReason)
	}
	visit, cancel := chromedp.NewContext(native.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(visit), "opening a browser context")
	tb := openTabFor(t, &browser{ctx: visit}, cfg.length+expiry+5*time.Minute)
	// A reveal of a key already revealed, or expired, is refused by the
	// server with 410, which Chromium logs.
	tb.allowConsole(failedStatus("410"))
	// Chromium logs every call of its own paths that rejects: invalid
	// input, an abort.
	tb.allowConsole(failedExecute)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(s.URL+"/")), "opening the demo")
	tb.poll(`document.querySelector("#engine.ready") !== null && document.querySelector("#account .who") !== null`)
	driver, err := os.ReadFile("testdata/soak.js")
	require.NoError(t, err)
	eval[chromedp.Void](tb, string(driver))
	type soakStarted struct {
		Tools []string `json:"tools"`
		Paths []string `json:"paths"`
		MCP   bool     `json:"mcp"`
	}
	started := eval[soakStarted](tb, `soak.start()`)
	require.True(t, started.MCP, "the MCP client did not connect; console: %q", tb.consoleTexts())
	require.Contains(t, started.Paths, "native executeTool", "the browser has native WebMCP: the runtime's paths must include Chromium's own")
	require.Len(t, started.Tools, 5, "the demo's tools")

	run := &soakRun{t: t, cfg: cfg, site: site, tb: tb, tools: started.Tools, paths: soakPaths, stats: newSoakStats(),
		waiting: map[string]chan []byte{}, early: map[string][]byte{}}
	run.followDevTools()

	start := time.Now()
	var curve []soakMemory
	curve = append(curve, run.sample(0))
	// The warm baseline: a page in use holds state of a fixed size that a
	// page just started does not yet (the decision log's last
	// risk.DefaultLogSize decisions, encoding/json's cache of each reply
	// type). A few hundred calls fill it; once their values expire, what
	// the engine holds is the baseline the soak's end is held to.
	eval[any](tb, soakWarmUp)
	require.True(t, run.waitExpired(expiry), "the warm-up's values expire")
	warm := run.sample(time.Since(start))
	curve = append(curve, warm)

	ctx, stop := context.WithTimeout(context.Background(), cfg.length)
	defer stop()
	var wg sync.WaitGroup
	for w := range cfg.workers {
		wg.Go(func() { run.agent(ctx, rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano())))) })
	}
	wg.Go(func() { run.user(ctx, rand.New(rand.NewPCG(99, uint64(start.UnixNano())))) })
	every := cfg.length / time.Duration(cfg.samples)
	tick := time.NewTicker(every)
	for sampling := true; sampling; {
		select {
		case <-tick.C:
			curve = append(curve, run.sample(time.Since(start)))
		case <-ctx.Done():
			sampling = false
		}
	}
	tick.Stop()
	wg.Wait()
	soaked := time.Since(start)
	curve = append(curve, run.sample(soaked))

	// Every held value expires: the hold time, or a reference's ttl.
	// veil.items() sweeps the vault as it answers.
	expired := run.waitExpired(expiry)
	curve = append(curve, run.sample(time.Since(start)))

	// The console is an agent path too: agents read it.
	tb.flushConsole()
	secrets, fixed := site.snapshot()
	for _, text := range tb.consoleTexts() {
		for _, v := range fixed {
			run.oracle(text, v, "the console")
		}
		for _, sec := range secrets {
			run.screen(text, sec.value, "the console")
		}
	}

	t.Log(run.report(soaked, curve, len(secrets)+len(fixed)))
	st := run.stats
	assert.Empty(t, st.leaks, "withheld values that reached an agent")
	assert.Empty(t, st.hangs, "calls that did not settle within %v", soakCallDeadline)
	assert.Empty(t, st.bad, "calls that ended otherwise than they should")
	assert.True(t, expired, "items still held %v after the soak", expiry)
	// The budget: the engine's heap, once what it held has expired, is
	// within 20% of its heap before the soak, warm (against the cold
	// start-up it is reported). WebAssembly memory only grows, so it is
	// reported, not held to this.
	last := curve[len(curve)-1]
	assert.LessOrEqual(t, float64(last.goLive), 1.2*float64(warm.goLive),
		"the engine's live Go heap after expiry (%d B) against before the soak, warm (%d B)", last.goLive, warm.goLive)
	for _, p := range soakPaths {
		assert.Positive(t, st.calls[p], "calls through %s", p)
	}
	assert.Positive(t, st.reveals["value"], "reveals that showed a value")
}

// agent calls tools until ctx ends: one call at a time, or, one time in
// eight, a burst of four at once.
func (r *soakRun) agent(ctx context.Context, rnd *rand.Rand) {
	for ctx.Err() == nil {
		n := 1
		if rnd.IntN(8) == 0 {
			n = 4
		}
		var wg sync.WaitGroup
		for range n {
			path := r.paths[rnd.IntN(len(r.paths))]
			tool := r.tools[rnd.IntN(len(r.tools))]
			in := randomInput(rnd, tool)
			abort := -1
			if soakAbortable[path] && rnd.IntN(5) == 0 {
				// A signal aborted before the call, or at a random moment
				// of it: the demo's calls take a few milliseconds.
				abort = rnd.IntN(40) - 2
				if abort == -1 {
					abort = 0
				}
			}
			wg.Go(func() { r.call(path, tool, in, abort) })
		}
		wg.Wait()
	}
}

// call makes one call and checks what the agent got.
func (r *soakRun) call(path, tool string, in soakInput, abort int) {
	started := time.Now()
	var views []string
	var out soakOutcome
	var settledOK bool
	if path == "devtools" {
		out, views, settledOK = r.invoke(tool, in.json, abort)
	} else {
		ctx, cancel := context.WithTimeout(r.tb.ctx, soakCallDeadline)
		v, err := chromedp.Run(ctx, chromedp.Evaluate[soakOutcome](
			fmt.Sprintf(`soak.call(%s, %s, %s, %d)`, js(path), js(tool), js(in.json), abort), chromedp.EvalAwaitPromise))
		cancel()
		settledOK = err == nil
		out = v
		views = []string{out.View, out.Message}
	}
	ended := time.Now()
	r.calls.Add(1)
	what := fmt.Sprintf("%s %s %s (abort %d ms)", path, tool, in.json, abort)

	st := r.stats
	st.mu.Lock()
	st.calls[path]++
	switch {
	case !settledOK:
		st.hangs = append(st.hangs, what)
	case out.OK:
		st.ok[path]++
	default:
		if st.errs[path] == nil {
			st.errs[path] = map[string]int{}
		}
		st.errs[path][out.Name]++
		if _, ok := st.samples[path+" "+out.Name]; !ok {
			st.samples[path+" "+out.Name] = out.Message
		}
	}
	if abort != -1 {
		st.aborts[path]++
	}
	// A valid call that nobody aborted must give the agent a view; an
	// invalid one must not run.
	switch {
	case !settledOK:
	case abort == -1 && in.valid && !out.OK:
		st.bad = append(st.bad, fmt.Sprintf("%s: %s: %s", what, out.Name, out.Message))
	case !in.valid && out.OK && path != "mcp":
		st.bad = append(st.bad, fmt.Sprintf("%s: invalid input ran: %s", what, out.View))
	case !in.valid && out.OK && path == "mcp" && !strings.Contains(out.View, `"isError":true`):
		st.bad = append(st.bad, fmt.Sprintf("%s: invalid input ran: %s", what, out.View))
	}
	st.mu.Unlock()

	r.check(views, started, ended, what)
}

// check searches what the agent got for the values the backend produced.
// The oracle (package leakcheck, every decoding a reader applies) searches
// for every value produced while the call ran, which holds the call's
// own, for the values every call of a tool produces alike, and for a
// sample of sixteen other values still held; every value ever produced is
// searched for as it is written, which costs nanoseconds.
func (r *soakRun) check(views []string, started, ended time.Time, what string) {
	secrets, fixed := r.site.snapshot()
	live := time.Duration(max(r.cfg.hold, soakMaxKeyTTL)) * time.Second
	var window, older []string
	for _, s := range secrets {
		switch {
		case !s.at.Before(started) && !s.at.After(ended):
			window = append(window, s.value)
		case s.at.After(started.Add(-live)):
			older = append(older, s.value)
		}
	}
	rand.Shuffle(len(older), func(i, j int) { older[i], older[j] = older[j], older[i] })
	full := slices.Concat(window, fixed, older[:min(16, len(older))])
	for _, view := range views {
		if view == "" {
			continue
		}
		for _, v := range full {
			r.oracle(view, v, what)
		}
		for _, s := range secrets {
			r.screen(view, s.value, what)
		}
	}
}

// oracle searches view for value with package leakcheck.
func (r *soakRun) oracle(view, value, what string) {
	where, found := leakcheck.Find(view, value)
	r.stats.mu.Lock()
	defer r.stats.mu.Unlock()
	r.stats.oracle++
	if found {
		r.stats.leaks = append(r.stats.leaks, fmt.Sprintf("%s: %q in %s of %q", what, value, where, view))
	}
}

// screen searches view for value as it is written.
func (r *soakRun) screen(view, value, what string) {
	found := strings.Contains(view, value)
	r.stats.mu.Lock()
	defer r.stats.mu.Unlock()
	r.stats.screened++
	if found {
		r.stats.leaks = append(r.stats.leaks, fmt.Sprintf("%s: %q as written in %q", what, value, view))
	}
}

// followDevTools enables the WebMCP domain and routes each
// WebMCP.toolResponded event to the call waiting for it.
func (r *soakRun) followDevTools() {
	frame, err := chromedp.Call(r.tb.ctx, page.GetFrameTree, cdp.Empty{})
	require.NoError(r.t, err, "Page.getFrameTree")
	r.frame = frame.FrameTree.Frame.ID
	require.NoError(r.t, chromedp.Listen(r.tb.ctx, func(ev any) {
		e, ok := ev.(*webmcp.EventToolResponded)
		if !ok {
			return
		}
		raw, _ := json.Marshal(e)
		objectID := ""
		if e.Exception != nil {
			objectID = string(e.Exception.ObjectID)
		}
		raw = []byte(withoutBrowserIDs(string(raw), e.InvocationID, objectID))
		r.mu.Lock()
		defer r.mu.Unlock()
		if ch, ok := r.waiting[e.InvocationID]; ok {
			ch <- raw
			delete(r.waiting, e.InvocationID)
			return
		}
		r.early[e.InvocationID] = raw
	}))
	_, err = chromedp.Call(r.tb.ctx, webmcp.Enable, cdp.Empty{})
	require.NoError(r.t, err, "WebMCP.enable")
}

// invoke calls the tool over the DevTools protocol, cancelling the
// invocation after abort ms when abort is not -1, and returns how it
// ended and the whole event, which is what such an agent reads.
func (r *soakRun) invoke(tool, input string, abort int) (soakOutcome, []string, bool) {
	ctx, cancel := context.WithTimeout(r.tb.ctx, soakCallDeadline)
	defer cancel()
	res, err := chromedp.Call(ctx, webmcp.InvokeTool, webmcp.InvokeToolParams{FrameID: r.frame, ToolName: tool, Input: jsonv2.Value(input)})
	if err != nil {
		return soakOutcome{Name: "refused", Message: err.Error()}, []string{err.Error()}, ctx.Err() == nil
	}
	ch := make(chan []byte, 1)
	r.mu.Lock()
	if raw, ok := r.early[res.InvocationID]; ok {
		ch <- raw
		delete(r.early, res.InvocationID)
	} else {
		r.waiting[res.InvocationID] = ch
	}
	r.mu.Unlock()
	if abort != -1 {
		go func() {
			time.Sleep(time.Duration(max(abort, 0)) * time.Millisecond)
			// It may have ended already; then there is nothing to cancel.
			chromedp.Call(ctx, webmcp.CancelInvocation, webmcp.CancelInvocationParams{InvocationID: res.InvocationID})
		}()
	}
	select {
	case raw := <-ch:
		var ev webmcp.EventToolResponded
		json.Unmarshal(raw, &ev)
		out := soakOutcome{OK: ev.Status == webmcp.InvocationStatusCompleted, View: string(raw), Name: string(ev.Status), Message: ev.ErrorText}
		return out, []string{string(raw)}, true
	case <-ctx.Done():
		r.mu.Lock()
		delete(r.waiting, res.InvocationID)
		r.mu.Unlock()
		return soakOutcome{}, nil, false
	}
}

// user reveals a random item of the tray with a click, every half second
// or so, until ctx ends, and checks that what it shows is a value the
// backend produced.
func (r *soakRun) user(ctx context.Context, rnd *rand.Rand) {
	for ctx.Err() == nil {
		select {
		case <-time.After(time.Duration(200+rnd.IntN(600)) * time.Millisecond):
		case <-ctx.Done():
			return
		}
		mark := strconv.FormatInt(r.revealSeq.Add(1), 10)
		got := r.reveal(mark)
		r.stats.mu.Lock()
		r.stats.reveals[got.State]++
		if got.State == "value" && !r.site.isSecret(got.Value) {
			r.stats.bad = append(r.stats.bad, fmt.Sprintf("the tray revealed %q, which the backend never produced", got.Value))
		}
		r.stats.mu.Unlock()
	}
}

type soakRevealed struct {
	State   string `json:"state"`
	Value   string `json:"value"`
	Message string `json:"message"`
}

// reveal clicks Reveal on a random item of the tray and waits for what it
// shows: "value", "message" (refused: a one-time secret already revealed,
// expired, no longer held), "gone" (the item expired before it showed
// anything), "none" (nothing to reveal) or "unclickable" (it left the
// tray before the click).
func (r *soakRun) reveal(mark string) soakRevealed {
	if !eval[bool](r.tb, `soak.pickReveal(`+js(mark)+`)`) {
		return soakRevealed{State: "none"}
	}
	ctx, cancel := context.WithTimeout(r.tb.ctx, 5*time.Second)
	defer cancel()
	// The button has the focus; Enter is trusted input, which gives the
	// page the user activation a reveal needs. A click by coordinates
	// would hit another row as often as not: the tray inserts each new
	// call at its top, moving the rest down, many times a second.
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\r")); err != nil {
		return soakRevealed{State: "no key"}
	}
	for ctx.Err() == nil {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[soakRevealed](`soak.revealed(`+js(mark)+`)`))
		if err == nil && got.State != "waiting" {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	return soakRevealed{State: "no answer"}
}

// waitExpired polls veil.items() until nothing is held, for at most
// limit, and reports whether it got there.
func (r *soakRun) waitExpired(limit time.Duration) bool {
	ctx, cancel := context.WithTimeout(r.tb.ctx, limit)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`veil.items().then((items) => items.length === 0)`,
		chromedp.WithPollingInterval(500*time.Millisecond), chromedp.WithPollingTimeout(limit)))
	return err == nil
}

// sample measures the engine's memory (bench_memory_test.go's
// wasmMemory, after a garbage collection) and the JavaScript heaps of
// the page and of the engine's worker.
func (r *soakRun) sample(at time.Duration) soakMemory {
	m := soakMemory{at: at, calls: int(r.calls.Load())}
	var err error
	m.wasm, err = wasmMemory(r.tb)
	require.NoError(r.t, err, "measuring WebAssembly memory")
	m.pageHeap = heapUsed(r.t, r.tb.ctx)
	workers, release, err := workerTargets(r.tb)
	defer release()
	require.NoError(r.t, err)
	for _, w := range workers {
		m.workerHeap += heapUsed(r.t, w)
		m.goLive += engineHeap(r.t, w)
	}
	m.held = eval[int](r.tb, `veil.items().then((items) => items.length)`)
	return m
}

// soakWarmUp makes a few hundred calls of the demo's tools, enough to
// fill the decision log, through the page's own executeTool.
const soakWarmUp = `(async () => {
	const mc = document.modelContext;
	const tools = await mc.getTools();
	const run = (name, input) => mc.executeTool(tools.find((t) => t.name === name), input).catch(() => {});
	for (let i = 0; i < 300; i++) await run("list_orders", {});
	for (const name of ["get_profile", "read_medical_record", "generate_recovery_codes"]) await run(name, {});
	await run("create_api_key", {name: "warm-up", ttl: 1});
})()`

// engineStats runs the engine's Stats op (wasm/ops) in the worker
// target ctx, the way worker.js runs every op, with a garbage collection
// first, and reads its reply: worker.js posts it, and the evaluation
// takes the post. A worker that is not the engine's answers nothing.
const engineStats = `(() => {
	if (typeof self.onmessage !== "function" || self.name !== "veil") return "";
	const post = self.postMessage;
	let got = null;
	self.postMessage = (m) => (got = m);
	try {
		self.onmessage({data: {id: -1, op: "stats", header: '{"gc":true}', body: ""}});
	} finally {
		self.postMessage = post;
	}
	return got?.header ?? "no reply";
})()`

// engineHeap is the Go heap of the engine in the worker target ctx that is
// live after a garbage collection, or 0 for a worker that is not the
// engine's.
func engineHeap(t *testing.T, ctx context.Context) int64 {
	h, err := chromedp.Run(ctx, chromedp.Evaluate[string](engineStats))
	require.NoError(t, err, "the engine's stats op")
	if h == "" {
		return 0
	}
	var st struct {
		HeapLiveBytes int64 `json:"heapLiveBytes"`
	}
	require.NoError(t, json.Unmarshal([]byte(h), &st), "the stats reply %s", h)
	require.Positive(t, st.HeapLiveBytes, "the stats reply %s", h)
	return st.HeapLiveBytes
}

// heapUsed is the used JavaScript heap of ctx's target after a garbage
// collection.
func heapUsed(t *testing.T, ctx context.Context) int64 {
	_, err := chromedp.Call(ctx, heapprofiler.CollectGarbage, cdp.Empty{})
	require.NoError(t, err, "HeapProfiler.collectGarbage")
	u, err := chromedp.Call(ctx, runtime.GetHeapUsage, cdp.Empty{})
	require.NoError(t, err, "Runtime.getHeapUsage")
	return int64(u.UsedSize)
}

// report renders the soak's counts and memory curve.
func (r *soakRun) report(soaked time.Duration, curve []soakMemory, secrets int) string {
	st := r.stats
	st.mu.Lock()
	defer st.mu.Unlock()
	var b strings.Builder
	total := 0
	fmt.Fprintf(&b, "browser soak: %v, %d agents, hold time %d s\n\n", soaked.Round(time.Second), r.cfg.workers, r.cfg.hold)
	b.WriteString("| path | calls | views | errors | aborted |\n|---|---:|---:|---:|---:|\n")
	for _, p := range soakPaths {
		total += st.calls[p]
		var errs []string
		for name, n := range st.errs[p] {
			errs = append(errs, fmt.Sprintf("%s %d", name, n))
		}
		slices.Sort(errs)
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %d |\n", p, st.calls[p], st.ok[p], strings.Join(errs, ", "), st.aborts[p])
	}
	fmt.Fprintf(&b, "\n%d calls (%.1f/s), %d leaks, %d hangs, %d broken promises; %d values produced, %d oracle searches, %d plain searches\n",
		total, float64(total)/soaked.Seconds(), len(st.leaks), len(st.hangs), len(st.bad), secrets, st.oracle, st.screened)
	var reveals []string
	for k, n := range st.reveals {
		reveals = append(reveals, fmt.Sprintf("%s %d", k, n))
	}
	slices.Sort(reveals)
	fmt.Fprintf(&b, "reveals: %s\n\n", strings.Join(reveals, ", "))
	b.WriteString("| time | calls | held items | engine Go heap, live | WebAssembly memory | worker JS heap | page JS heap |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range curve {
		fmt.Fprintf(&b, "| %v | %d | %d | %.2f MiB | %.1f MiB | %.2f MiB | %.2f MiB |\n", m.at.Round(time.Second), m.calls, m.held,
			float64(m.goLive)/(1<<20), float64(m.wasm)/(1<<20), float64(m.workerHeap)/(1<<20), float64(m.pageHeap)/(1<<20))
	}
	first, warm, last := curve[0], curve[1], curve[len(curve)-1]
	fmt.Fprintf(&b, "\nafter expiry / before the soak, warm (the second row): engine Go heap %.2f× (budget: 1.20×); WebAssembly memory %.2f×, worker JS heap %.2f×, page JS heap %.2f×\n",
		float64(last.goLive)/float64(warm.goLive), float64(last.wasm)/float64(warm.wasm), float64(last.workerHeap)/float64(warm.workerHeap), float64(last.pageHeap)/float64(warm.pageHeap))
	fmt.Fprintf(&b, "after expiry / after start-up, cold (the first row): engine Go heap %.2f×; WebAssembly memory %.2f×, worker JS heap %.2f×, page JS heap %.2f×\n",
		float64(last.goLive)/float64(first.goLive), float64(last.wasm)/float64(first.wasm), float64(last.workerHeap)/float64(first.workerHeap), float64(last.pageHeap)/float64(first.pageHeap))
	var kinds []string
	for k := range st.samples {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		fmt.Fprintf(&b, "error %s, for example: %.160s\n", k, st.samples[k])
	}
	for _, l := range st.leaks[:min(len(st.leaks), 10)] {
		fmt.Fprintf(&b, "LEAK %s\n", l)
	}
	for _, h := range st.hangs[:min(len(st.hangs), 10)] {
		fmt.Fprintf(&b, "HANG %s\n", h)
	}
	for _, x := range st.bad[:min(len(st.bad), 10)] {
		fmt.Fprintf(&b, "BROKEN %s\n", x)
	}
	return b.String()
}
