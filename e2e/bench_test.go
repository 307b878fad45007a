package e2e

import (
	"bufio"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// The budgets of the runtime, each a ratio to a floor of the architecture
// measured in the same run. Native is Chromium's own executeTool of the
// same tool; the hops are two round trips to a Worker that does nothing
// (a call through the engine in a Worker crosses to it and back twice);
// the library floor is a Go WebAssembly program of jsonschema/v6 alone,
// which the engine requires, started as the engine is
// (bench_floor_test.go).
const (
	budgetSmallWorker    = 1.2    // small result, engine in a Worker: ≤ 1.2× (native + the hops)
	budgetSmallMain      = 1.0    // small result, engine on the main thread: ≤ native
	budgetSmallHeld      = 1.1    // small result with 1,000 values held: ≤ 1.1× the same with none
	budgetBigRatio       = 3.0    // 1 MiB with x-sensitive items: ≤ 3× native
	budgetReadyRatio     = 1.3    // engine ready plus registering the page's tools: ≤ 1.3× the library floor's ready
	budgetLongTaskMs     = 50.0   // Worker mode: no main-thread task over 50 ms
	budgetWasmMiB        = 16.0   // WebAssembly memory after ten 1 MiB x-sensitive calls
	budgetTabRatio       = 1.35   // the tab's memory then: ≤ 1.35× the library floor's page after the same calls to native
	budgetTransferRatio  = 1.25   // all the runtime's files, brotli: ≤ 1.25× the library floor's
	budgetBlockingBr     = 10_000 // the page-blocking script, brotli
	benchSmallBatches    = 10     // small calls: batches per tab, interleaved
	benchSmallBatchCalls = 50     // calls per batch
	benchSmallCalls      = benchSmallBatches * benchSmallBatchCalls
	benchBigCalls        = 10
	benchLoads           = 5
)

// modes are where the engine runs: ?mode= of the benchmark page and
// data-veil-mode of the script tag.
var modes = []string{"worker", "main"}

// where names a mode in the report.
func where(mode string) string {
	if mode == "worker" {
		return "engine in a Worker"
	}
	return "engine on the main thread"
}

// pageFiles are the files a page that uses the runtime loads: the script it
// includes, which blocks the page, and what that script loads itself.
var pageFiles = []string{"webmcp.js", "worker.js", "wasm_exec.js", "veil.wasm"}

// trayFile is what a page that shows the <veil-secrets> tray loads too.
const trayFile = "veil-secrets.js"

var benchHTML = template.Must(template.New("bench").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Veil benchmark</title>
<link rel="icon" href="data:,">
<script src="/bench.js"></script>
{{if .Mode}}<script>window.scriptStart = performance.now();</script>
{{if .Floor}}<script src="/floor.js" data-floor-mode="{{.Mode}}" data-floor-program="{{.Floor}}"></script>
<script>window.benchReady = floor.ready.then(() => performance.now());</script>
{{else}}<script src="/dist/webmcp.js" data-veil-mode="{{.Mode}}"></script>
<script>window.benchReady = veil.ready.then(() => performance.now());</script>
{{end}}{{end}}</head>
<body>
<p>The benchmark runs here.</p>
</body>
</html>
`))

// handleBench serves the benchmark page: ?mode=worker or main loads the
// runtime with its engine there, or with &floor=1 the floor program and
// &floor=library the library floor; no mode loads neither.
func handleBench(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	data := struct {
		Mode  string
		Floor string
	}{Mode: q.Get("mode")}
	switch q.Get("floor") {
	case "1":
		data.Floor = "floor"
	case "library":
		data.Floor = "library"
	}
	if !slices.Contains(modes, data.Mode) {
		data.Mode = ""
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := benchHTML.Execute(w, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

type latencyResult struct {
	Mean         float64 `json:"mean"`
	Median       float64 `json:"median"`
	P90          float64 `json:"p90"`
	AnswerLength int     `json:"answerLength"`
	LongestTask  float64 `json:"longestTask"`
}

// setupResult is what bench.setup reports.
type setupResult struct {
	Bytes            int     `json:"bytes"`
	Items            int     `json:"items"`
	RegisterMs       float64 `json:"registerMs"`
	RegisterNativeMs float64 `json:"registerNativeMs"`
}

type taskResult struct {
	Count   int     `json:"count"`
	Longest float64 `json:"longest"`
}

// modeResult is what one run measured of one engine mode. Memory is in
// MiB, NaN where it could not be measured.
type modeResult struct {
	small, smallNative latencyResult
	// hops is two round trips to a Worker that does nothing, per call.
	hops float64
	// smallHeld is the small call once the session holds 1,000 withheld
	// values.
	smallHeld          latencyResult
	big, bigNative     latencyResult
	plain, plainNative latencyResult
	setup              setupResult
	readyAfterScript   []float64
	readyAfterNav      []float64
	floorAfterScript   []float64
	libraryAfterScript []float64 // the library floor's
	loadTasks          []float64 // the longest task of each load
	wasmAfterLoad      float64
	wasmAfterBig       float64
	wasmAfterPlain     float64
	tabAfterLoad       float64
	tabAfterBig        float64
}

// benchRun is one run of the whole benchmark.
type benchRun struct {
	load     [2]string // the system's load average at the start and the end
	modes    map[string]*modeResult
	baseline []float64 // the longest task of each load without the runtime
	// The library floor page's memory (native WebMCP, the library floor
	// running in a Worker), after load and after the same ten calls as the
	// runtime's, in MiB.
	nativeTabAfterLoad, nativeTab float64
	notes                         []string // why a number is missing
}

// BenchmarkBrowser measures the runtime against Chromium's own WebMCP, and
// its start-up against the floor, in one Chromium with native WebMCP on.
// Each iteration is one run of every measure; it prints the last run's
// table, then each budget's range over all runs with a verdict. It is not a
// timed test: it never fails on a number. `make bench` runs
//
//	go test ./e2e -run '^$' -bench BenchmarkBrowser -benchtime 3x
func BenchmarkBrowser(b *testing.B) {
	if skipReason != "" {
		b.Skip(skipReason)
	}
	require.NoError(b, buildFloor(), "building the floor program")
	var runs []*benchRun
	for b.Loop() {
		r := &benchRun{modes: map[string]*modeResult{}}
		r.load[0] = loadAverage()
		for _, mode := range modes {
			r.modes[mode] = benchMode(b, r, mode)
		}
		r.nativeTabAfterLoad, r.nativeTab = benchNativeMemory(b, r)
		r.baseline = benchBaseline(b)
		r.load[1] = loadAverage()
		runs = append(runs, r)
	}
	last := runs[len(runs)-1]
	w := last.modes["worker"]
	b.ReportMetric(w.small.Mean, "small-ms")
	b.ReportMetric(w.smallNative.Mean, "small-native-ms")
	b.ReportMetric(w.big.Median, "1MiB-ms")
	b.ReportMetric(w.bigNative.Median, "1MiB-native-ms")
	b.ReportMetric(median(w.readyAfterScript), "ready-ms")
	b.ReportMetric(median(w.floorAfterScript), "floor-ms")
	b.ReportMetric(median(w.libraryAfterScript), "library-floor-ms")
	fmt.Print(benchReport(b, runs))
}

// benchMode measures one engine mode: loads, calls, then memory.
func benchMode(b *testing.B, run *benchRun, mode string) *modeResult {
	r := &modeResult{}
	tb := benchLoading(b, r, mode)
	benchCalls(b, r, tb)
	tb.close()
	benchMemory(b, run, r, mode)
	return r
}

// benchLoading loads the page benchLoads times, each followed by a load of
// the floor page and one of the library floor's, and returns the last tab.
func benchLoading(b *testing.B, r *modeResult, mode string) *tab {
	var tb *tab
	for range benchLoads {
		if tb != nil {
			tb.close()
		}
		tb = openTab(b, native)
		tb.navigate("bench.html?mode=" + mode)
		ready := eval[float64](tb, `window.benchReady`)
		start := eval[float64](tb, `window.scriptStart`)
		r.readyAfterScript = append(r.readyAfterScript, ready-start)
		r.readyAfterNav = append(r.readyAfterNav, ready)
		r.loadTasks = append(r.loadTasks, eval[taskResult](tb, `bench.loadTasks()`).Longest)

		ft := openTab(b, native)
		ft.navigate("bench.html?floor=1&mode=" + mode)
		ready = eval[float64](ft, `window.benchReady`)
		start = eval[float64](ft, `window.scriptStart`)
		r.floorAfterScript = append(r.floorAfterScript, ready-start)
		ft.close()

		lt := openTab(b, native)
		lt.navigate("bench.html?floor=library&mode=" + mode)
		ready = eval[float64](lt, `window.benchReady`)
		start = eval[float64](lt, `window.scriptStart`)
		r.libraryAfterScript = append(r.libraryAfterScript, ready-start)
		lt.close()
	}
	return tb
}

// latency calls a tool n times in the tab, after warm calls; which is
// "runtime" or "native".
func latency(tb *tab, which, name string, n, warm int) latencyResult {
	return eval[latencyResult](tb, fmt.Sprintf(`bench.latency(%q, %q, %d, %d)`, which, name, n, warm))
}

// benchCalls registers the tools in the tab and measures calls to them,
// and to the same tools of Chromium's own WebMCP in a page without the
// runtime (beside the runtime, a tool registered around it would make
// every call ask the user).
func benchCalls(b *testing.B, r *modeResult, tb *tab) {
	require.True(b, eval[bool](tb, `bench.hasNative()`), "Chromium's own WebMCP")
	r.setup = eval[setupResult](tb, `bench.setup()`)
	nt := openTab(b, native)
	defer nt.close()
	nt.navigate("bench.html")
	r.setup.RegisterNativeMs = eval[setupResult](nt, `bench.setup()`).RegisterNativeMs
	// Small calls in interleaved batches, the medians of the batch means:
	// the machine's load falls on each alike.
	latency(tb, "runtime", "small", 0, 50)
	latency(nt, "native", "small", 0, 50)
	eval[float64](nt, `bench.roundTrips(1, 50)`)
	var rt, na, hops []float64
	for range benchSmallBatches {
		rt = append(rt, latency(tb, "runtime", "small", benchSmallBatchCalls, 0).Mean)
		na = append(na, latency(nt, "native", "small", benchSmallBatchCalls, 0).Mean)
		hops = append(hops, eval[float64](nt, fmt.Sprintf(`bench.roundTrips(%d, 0)`, benchSmallBatchCalls)))
	}
	r.small.Mean, r.smallNative.Mean, r.hops = median(rt), median(na), median(hops)
	// The session's scrub set then holds 1,000 values, and every later
	// output is searched for them.
	latency(tb, "runtime", "hold", 1, 0)
	r.smallHeld = latency(tb, "runtime", "small", benchSmallCalls, 50)
	r.big = latency(tb, "runtime", "big", benchBigCalls, 2)
	r.bigNative = latency(nt, "native", "big", benchBigCalls, 2)
	r.plain = latency(tb, "runtime", "plain", benchBigCalls, 2)
	r.plainNative = latency(nt, "native", "plain", benchBigCalls, 2)
}

// benchMemory measures memory in fresh pages: after load and after ten
// 1 MiB x-sensitive calls in one, after ten plain 1 MiB calls in another.
// What it cannot measure is NaN, and the run notes why.
func benchMemory(b *testing.B, run *benchRun, r *modeResult, mode string) {
	mib := func(what string, n int64, err error) float64 {
		if err != nil {
			run.notes = append(run.notes, fmt.Sprintf("%s, %s: %v", what, where(mode), err))
			return math.NaN()
		}
		return float64(n) / (1 << 20)
	}
	tb := openTab(b, native)
	tb.navigate("bench.html?mode=" + mode)
	eval[float64](tb, `window.benchReady`)
	n, err := wasmMemory(tb)
	r.wasmAfterLoad = mib("WebAssembly memory after load", n, err)
	n, err = tabMemory(tb)
	r.tabAfterLoad = mib("the tab's memory after load", n, err)
	eval[setupResult](tb, `bench.setup()`)
	latency(tb, "runtime", "big", benchBigCalls, 0)
	n, err = wasmMemory(tb)
	r.wasmAfterBig = mib("WebAssembly memory after ten x-sensitive calls", n, err)
	n, err = tabMemory(tb)
	r.tabAfterBig = mib("the tab's memory after ten x-sensitive calls", n, err)
	tb.close()

	tb = openTab(b, native)
	tb.navigate("bench.html?mode=" + mode)
	eval[float64](tb, `window.benchReady`)
	eval[setupResult](tb, `bench.setup()`)
	latency(tb, "runtime", "plain", benchBigCalls, 0)
	n, err = wasmMemory(tb)
	r.wasmAfterPlain = mib("WebAssembly memory after ten plain calls", n, err)
	tb.close()
}

// benchNativeMemory measures the memory of the same page without the
// runtime but with the library floor running in a Worker, after load and
// after the same ten 1 MiB calls to Chromium's own executeTool.
func benchNativeMemory(b *testing.B, run *benchRun) (afterLoad, afterBig float64) {
	tb := openTab(b, native)
	defer tb.close()
	mib := func(what string) float64 {
		n, err := tabMemory(tb)
		if err != nil {
			run.notes = append(run.notes, fmt.Sprintf("the native page's memory %s: %v", what, err))
			return math.NaN()
		}
		return float64(n) / (1 << 20)
	}
	// The library floor keeps running in a Worker, as the engine does.
	tb.navigate("bench.html?floor=library&mode=worker")
	eval[float64](tb, `window.benchReady`)
	afterLoad = mib("after load")
	eval[setupResult](tb, `bench.setup()`)
	latency(tb, "native", "big", benchBigCalls, 0)
	return afterLoad, mib("after ten calls")
}

// benchBaseline measures the longest task of loading the same page without
// the runtime, to tell the runtime's tasks from the browser's own.
func benchBaseline(b *testing.B) []float64 {
	var longest []float64
	for range benchLoads {
		tb := openTab(b, native)
		tb.navigate("bench.html")
		longest = append(longest, eval[taskResult](tb, `bench.loadTasks()`).Longest)
		tb.close()
	}
	return longest
}

// budget is one of the runtime's budgets: a value each run measures,
// and the most it may be.
type budget struct {
	name  string
	limit float64
	unit  string // "×" for a ratio
	value func(*benchRun) float64
}

// budgets lists the budgets in the order the report prints them.
func budgets() []budget {
	var bs []budget
	for _, mode := range modes {
		m := func(r *benchRun) *modeResult { return r.modes[mode] }
		small := budgetSmallMain
		if mode == "worker" {
			small = budgetSmallWorker
		}
		where := where(mode)
		bs = append(bs,
			budget{fmt.Sprintf("small result vs %s (%s)", smallRef(mode), where), small, "×", func(r *benchRun) float64 {
				return smallRatio(m(r), mode)
			}},
			budget{fmt.Sprintf("small result with 1,000 values held vs none (%s)", where), budgetSmallHeld, "×", func(r *benchRun) float64 {
				return m(r).smallHeld.Mean / m(r).small.Mean
			}},
			budget{fmt.Sprintf("1 MiB x-sensitive vs native (%s)", where), budgetBigRatio, "×", func(r *benchRun) float64 {
				return m(r).big.Median / m(r).bigNative.Median
			}},
			budget{fmt.Sprintf("ready plus registering the tools vs the library floor's ready (%s)", where), budgetReadyRatio, "×", func(r *benchRun) float64 {
				return readyRatio(m(r))
			}},
		)
		if mode == "worker" {
			bs = append(bs,
				budget{"longest main-thread task at load (engine in a Worker)", budgetLongTaskMs, "ms", func(r *benchRun) float64 {
					return slices.Max(m(r).loadTasks)
				}},
				budget{"longest main-thread task during 1 MiB calls (engine in a Worker)", budgetLongTaskMs, "ms", func(r *benchRun) float64 {
					return max(m(r).big.LongestTask, m(r).plain.LongestTask)
				}},
			)
		}
		bs = append(bs,
			budget{fmt.Sprintf("WebAssembly memory after ten 1 MiB x-sensitive calls (%s)", where), budgetWasmMiB, "MiB", func(r *benchRun) float64 {
				return m(r).wasmAfterBig
			}},
			budget{fmt.Sprintf("the tab's memory then vs the library floor's page after the same calls to native (%s)", where), budgetTabRatio, "×", func(r *benchRun) float64 {
				return m(r).tabAfterBig / r.nativeTab
			}},
		)
	}
	bs = append(bs,
		budget{"all the runtime's files vs the library floor's, brotli", budgetTransferRatio, "×", func(*benchRun) float64 {
			return transferRatio()
		}},
		budget{"the page-blocking script (webmcp.js), brotli", budgetBlockingBr, "B", func(*benchRun) float64 {
			return float64(distSizes(nil, "webmcp.js").br)
		}},
	)
	return bs
}

// smallRef names what a small call is compared with: native plus the
// hops in a Worker, native on the main thread.
func smallRef(mode string) string {
	if mode == "worker" {
		return "native + two empty Worker round trips"
	}
	return "native"
}

// smallRatio is a small call against its reference (smallRef).
func smallRatio(m *modeResult, mode string) float64 {
	if mode == "worker" {
		return m.small.Mean / (m.smallNative.Mean + m.hops)
	}
	return m.small.Mean / m.smallNative.Mean
}

// readyRatio is ready after the script tag plus registering the page's
// tools, against the library floor's ready after its script tag.
func readyRatio(m *modeResult) float64 {
	return (median(m.readyAfterScript) + m.setup.RegisterMs) / median(m.libraryAfterScript)
}

// transferRatio is the brotli size of the runtime's page files against the
// library floor program's.
func transferRatio() float64 {
	var total int64
	for _, name := range pageFiles {
		total += distSizes(nil, name).br
	}
	return float64(total) / float64(floorBrotli("library"))
}

// benchReport renders the machine, the last run's measures and each
// budget's range over the runs, as Markdown.
func benchReport(b *testing.B, runs []*benchRun) string {
	var out strings.Builder
	version, err := chromedp.CallBrowser(native.ctx, cdpbrowser.GetVersion, struct{}{})
	require.NoError(b, err, "Browser.getVersion")
	fmt.Fprintf(&out, "\nMachine: %d CPUs, %s; %s; %s; %s/%s\n", runtime.NumCPU(), cpuModel(), version.Product, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&out, "Date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))

	fmt.Fprintf(&out, "\n### The last run (%d of %d)\n\n", len(runs), len(runs))
	out.WriteString(runTable(b, runs[len(runs)-1]))

	fmt.Fprintf(&out, "\n### Budgets over %d runs\n\n", len(runs))
	out.WriteString("| budget | limit |")
	for i := range runs {
		fmt.Fprintf(&out, " run %d |", i+1)
	}
	out.WriteString(" range | verdict |\n|---|---|")
	for range runs {
		out.WriteString("---|")
	}
	out.WriteString("---|---|\n")
	for _, bg := range budgets() {
		var vs []float64
		fmt.Fprintf(&out, "| %s | ≤ %s |", bg.name, format(bg.limit, bg.unit))
		for _, r := range runs {
			v := bg.value(r)
			vs = append(vs, v)
			fmt.Fprintf(&out, " %s |", format(v, bg.unit))
		}
		fmt.Fprintf(&out, " %s | %s |\n", formatRange(vs, bg.unit), verdictOver(vs, bg.limit))
	}
	out.WriteString("\nThe system's load average (1 minute) at the start and the end of each run:")
	for i, r := range runs {
		fmt.Fprintf(&out, " run %d: %s → %s;", i+1, r.load[0], r.load[1])
	}
	out.WriteString("\n")
	for i, r := range runs {
		for _, n := range r.notes {
			fmt.Fprintf(&out, "\nRun %d: %s", i+1, n)
		}
	}
	out.WriteString("\n")
	return out.String()
}

// runTable renders one run's measures next to their references and
// budgets.
func runTable(b *testing.B, r *benchRun) string {
	var out strings.Builder
	row := func(cells ...string) { fmt.Fprintf(&out, "| %s |\n", strings.Join(cells, " | ")) }
	ms := func(v float64) string { return format(v, "ms") }
	within := func(v, limit float64, what string) string {
		return fmt.Sprintf("≤ %s: %s", what, verdict(v, limit))
	}
	row("measure", "Veil", "reference", "ratio", "budget")
	row("---", "---", "---", "---", "---")
	for _, mode := range modes {
		m := r.modes[mode]
		row("**"+where(mode)+"**", "", "", "", "")
		small := m.small.Mean / m.smallNative.Mean
		limit := budgetSmallMain
		if mode == "worker" {
			limit = budgetSmallWorker
			small = smallRatio(m, mode)
			row("two round trips to an empty Worker, median of batch means", format(m.hops, "ms3"), "", "", "")
		}
		row(fmt.Sprintf("small result, median of %d batch means of %d calls", benchSmallBatches, benchSmallBatchCalls), format(m.small.Mean, "ms3"), format(m.smallNative.Mean, "ms3")+" native", format(small, "×"), within(small, limit, format(limit, "×")+" "+smallRef(mode)))
		held := m.smallHeld.Mean / m.small.Mean
		row("the same with 1,000 values held", format(m.smallHeld.Mean, "ms3"), format(m.small.Mean, "ms3")+" none held", format(held, "×"), within(held, budgetSmallHeld, format(budgetSmallHeld, "×")+" none held"))
		big := m.big.Median / m.bigNative.Median
		row(fmt.Sprintf("1 MiB with x-sensitive items, median of %d", benchBigCalls), ms(m.big.Median), ms(m.bigNative.Median)+" native", format(big, "×"), within(big, budgetBigRatio, format(budgetBigRatio, "×")+" native"))
		row(fmt.Sprintf("1 MiB, nothing marked sensitive, median of %d", benchBigCalls), ms(m.plain.Median), ms(m.plainNative.Median)+" native", format(m.plain.Median/m.plainNative.Median, "×"), "")
		ready, fl := median(m.readyAfterScript), median(m.floorAfterScript)
		lib := median(m.libraryAfterScript)
		row(fmt.Sprintf("engine ready after the script tag, median of %d loads", benchLoads), ms(ready), ms(fl)+" floor", format(ready/fl, "×"), "")
		row("the same plus registering the four tools", ms(ready+m.setup.RegisterMs), ms(lib)+" library floor", format(readyRatio(m), "×"), within(readyRatio(m), budgetReadyRatio, format(budgetReadyRatio, "×")+" library floor"))
		row("the same, after navigation start", ms(median(m.readyAfterNav)), "", "", "")
		row("registering the four tools", ms(m.setup.RegisterMs), ms(m.setup.RegisterNativeMs)+" native", "", "")
		load := slices.Max(m.loadTasks)
		during := max(m.big.LongestTask, m.plain.LongestTask)
		duringNative := max(m.bigNative.LongestTask, m.plainNative.LongestTask)
		taskBudget := func(v float64) string {
			if mode != "worker" {
				return "none on the main thread"
			}
			return within(v, budgetLongTaskMs, "50 ms")
		}
		row(fmt.Sprintf("longest main-thread task at load, median / worst of %d", benchLoads), ms(median(m.loadTasks))+" / "+ms(load), ms(median(r.baseline))+" / "+ms(slices.Max(r.baseline))+" no runtime", "", taskBudget(load))
		row(fmt.Sprintf("longest main-thread task during %d + %d calls of 1 MiB", benchBigCalls, benchBigCalls), ms(during), ms(duringNative)+" native", "", taskBudget(during))
		row("WebAssembly memory after load", format(m.wasmAfterLoad, "MiB"), "", "", "")
		row("the same after ten 1 MiB calls, nothing sensitive", format(m.wasmAfterPlain, "MiB"), "", "", "")
		row("the same after ten 1 MiB x-sensitive calls", format(m.wasmAfterBig, "MiB"), "", "", within(m.wasmAfterBig, budgetWasmMiB, format(budgetWasmMiB, "MiB")))
		tabRatio := m.tabAfterBig / r.nativeTab
		row("the tab's private memory after load", format(m.tabAfterLoad, "MiB"), format(r.nativeTabAfterLoad, "MiB")+" library floor, native", format(m.tabAfterLoad/r.nativeTabAfterLoad, "×"), "")
		row("the same after ten 1 MiB x-sensitive calls", format(m.tabAfterBig, "MiB"), format(r.nativeTab, "MiB")+" library floor, native", format(tabRatio, "×"), within(tabRatio, budgetTabRatio, format(budgetTabRatio, "×")+" library floor, native"))
	}

	var total fileSizes
	for _, name := range pageFiles {
		s := distSizes(b, name)
		total.raw, total.gz, total.br = total.raw+s.raw, total.gz+s.gz, total.br+s.br
	}
	blocking := distSizes(b, "webmcp.js")
	tray := distSizes(b, trayFile)
	row("**transfer**", "", "", "", "")
	lib := float64(floorBrotli("library"))
	row("all the runtime's files, brotli", fmt.Sprintf("%d B", total.br), fmt.Sprintf("%.0f B library floor", lib), format(float64(total.br)/lib, "×"), within(float64(total.br)/lib, budgetTransferRatio, format(budgetTransferRatio, "×")+" library floor"))
	row("the same with the `<veil-secrets>` tray", fmt.Sprintf("%d B", total.br+tray.br), "", format(float64(total.br+tray.br)/lib, "×"), "")
	row("page-blocking script (webmcp.js), brotli", fmt.Sprintf("%d B", blocking.br), "", "", within(float64(blocking.br), budgetBlockingBr, "10 KB"))

	out.WriteString("\n| file | raw | gzip | brotli |\n|---|--:|--:|--:|\n")
	for _, name := range pageFiles {
		s := distSizes(b, name)
		fmt.Fprintf(&out, "| %s | %d | %d | %d |\n", name, s.raw, s.gz, s.br)
	}
	fmt.Fprintf(&out, "| total | %d | %d | %d |\n", total.raw, total.gz, total.br)
	fmt.Fprintf(&out, "| %s (with the tray) | %d | %d | %d |\n", trayFile, tray.raw, tray.gz, tray.br)
	return out.String()
}

// format renders a measure in its unit; "ms3" is milliseconds to three
// places.
func format(v float64, unit string) string {
	n, suffix := formatParts(v, unit)
	return n + suffix
}

func formatParts(v float64, unit string) (number, suffix string) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a", ""
	}
	switch unit {
	case "×":
		return fmt.Sprintf("%.2f", v), "×"
	case "ms":
		return fmt.Sprintf("%.0f", v), " ms"
	case "ms3":
		return fmt.Sprintf("%.3f", v), " ms"
	case "MiB":
		return fmt.Sprintf("%.1f", v), " MiB"
	}
	return fmt.Sprintf("%g", v), " " + unit
}

// formatRange renders the least and the greatest of vs.
func formatRange(vs []float64, unit string) string {
	var ok []float64
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			ok = append(ok, v)
		}
	}
	if len(ok) == 0 {
		return "n/a"
	}
	lo, _ := formatParts(slices.Min(ok), unit)
	hi, suffix := formatParts(slices.Max(ok), unit)
	if lo == hi {
		return hi + suffix
	}
	return lo + "–" + hi + suffix
}

func verdict(v, limit float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case v <= limit:
		return "within"
	}
	return "OVER"
}

// verdictOver judges a budget over several runs: within or OVER when all
// runs agree, else in how many runs it was over.
func verdictOver(vs []float64, limit float64) string {
	over, missing := 0, 0
	for _, v := range vs {
		switch verdict(v, limit) {
		case "OVER":
			over++
		case "n/a":
			missing++
		}
	}
	switch {
	case missing == len(vs):
		return "n/a"
	case over == 0 && missing == 0:
		return "within"
	case over == len(vs):
		return "OVER"
	case over == 0:
		return fmt.Sprintf("within; n/a in %d of %d", missing, len(vs))
	}
	return fmt.Sprintf("OVER in %d of %d", over, len(vs))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// fileSizes are a dist file's raw, gzip and brotli sizes.
type fileSizes struct{ raw, gz, br int64 }

func distSizes(b *testing.B, name string) fileSizes {
	size := func(p string) int64 {
		fi, err := os.Stat(filepath.Join(distDir, p))
		if b != nil {
			require.NoError(b, err)
		}
		if err != nil {
			return -1
		}
		return fi.Size()
	}
	return fileSizes{size(name), size(name + ".gz"), size(name + ".br")}
}

// loadAverage is the system's load average over the last minute, where
// the system says it: other work on the machine slows every measure.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// cpuModel is the processor's model name, where the system says it.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
