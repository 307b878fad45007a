// Command veil-wpt runs a suite in the format of web-platform-tests
// (testharness.js pages) against Veil in Chromium, Firefox and WebKit,
// in three modes: runtime (Veil's webmcp.js injected into every page),
// native (Chromium's own WebMCP) and none (no WebMCP at all); and, when
// -modes names it, runtime-main (the runtime with its engine on the
// page's main thread). See package [github.com/veilmcp/veil/e2e/wpt] for
// the server, the fixtures and the engines.
//
// It prints, per mode and engine, "N passed, M failed" (subtests; a
// timeout, a test that did not run and a harness error are failures),
// then the names of the runtime's failures, and exits 1 when a runtime
// mode has any failure and 2 when a run could not start at all.
//
// VEIL_TEST_TIMEOUT_SCALE, a positive number, multiplies the bounds of a
// browser's start and of a page's opening (package
// [github.com/veilmcp/veil/e2e/bound]); -timeout-multiplier multiplies
// the files' timeouts.
//
// Usage, from a checkout of Veil after npm ci:
//
//	go run ./js/cmd/veil-wpt [flags]
//	go run ./js/cmd/veil-wpt -serve 127.0.0.1:8000   # serve for a browser of your own
//
// and `make wpt`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/veilmcp/veil/e2e/bound"
	"github.com/veilmcp/veil/e2e/wpt"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// flags are the command line.
type flags struct {
	dir      string
	engines  []*wpt.Engine
	modes    []wpt.Mode
	run      *regexp.Regexp
	serve    string
	dist     string
	timeout  time.Duration
	multiply float64
	parallel int
	verbose  bool
}

func parse(args []string, stderr io.Writer) (*flags, error) {
	fs := flag.NewFlagSet("veil-wpt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f flags
	var engines, modes, run string
	fs.StringVar(&f.dir, "dir", "", "root of the WPT-format `tree` to serve and run (default e2e/wpt of this checkout)")
	fs.StringVar(&engines, "engines", "chromium,firefox,webkit", "comma-separated `engines` to run: chromium, firefox, webkit")
	fs.StringVar(&modes, "modes", "runtime,native,none", "comma-separated `modes`: runtime (Veil injected), runtime-main (Veil injected, its engine on the main thread), runtime-layered and runtime-main-layered (the same in front of Chromium's own WebMCP, which knows the tools permissions policy; Chromium only), native (Chromium's own WebMCP), none (no WebMCP); each runs in the engines that support it (native: Chromium only)")
	fs.StringVar(&run, "run", "", "run only the test files whose path under -dir matches this `regexp`")
	fs.StringVar(&f.serve, "serve", "", "only serve the tree at `addr` (e.g. 127.0.0.1:8000) in the one mode -modes names, print each page's results as they arrive, and run no browser")
	fs.StringVar(&f.dist, "dist", "", "serve the runtime from this `dir`, as veil-dist writes it (default: build it)")
	fs.DurationVar(&f.timeout, "timeout", wpt.DefaultTimeout, "how long each test file has to post its results (files marked long get 6 times as long)")
	fs.Float64Var(&f.multiply, "timeout-multiplier", 1, "multiply testharness.js's timeouts and -timeout by this `factor`, for a loaded or slow machine")
	fs.IntVar(&f.parallel, "parallel", 2, "how many runs (a mode in an engine) at once; browsers mostly wait, so two fit on two cores")
	fs.BoolVar(&f.verbose, "v", false, "print a line per test file as it ends, and the failures of every mode, not only runtime's")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: veil-wpt [flags]\n\nRuns the WPT-format suite under -dir in each mode and engine and prints each one's passed and failed subtests.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q: every option is a flag", fs.Args())
	}
	var err error
	if f.engines, err = wpt.ParseEngines(engines); err != nil {
		return nil, fmt.Errorf("-engines: %w", err)
	}
	modesSet := false
	fs.Visit(func(fl *flag.Flag) { modesSet = modesSet || fl.Name == "modes" })
	if f.serve != "" && !modesSet {
		modes = string(wpt.ModeRuntime)
	}
	if f.modes, err = wpt.ParseModes(modes); err != nil {
		return nil, fmt.Errorf("-modes: %w", err)
	}
	if f.serve != "" && len(f.modes) != 1 {
		return nil, fmt.Errorf("-serve serves one mode, and -modes names %d", len(f.modes))
	}
	if run != "" {
		if f.run, err = regexp.Compile(run); err != nil {
			return nil, fmt.Errorf("-run: %w", err)
		}
	}
	if f.timeout <= 0 {
		return nil, fmt.Errorf("-timeout %v: want a positive duration", f.timeout)
	}
	if f.multiply <= 0 {
		return nil, fmt.Errorf("-timeout-multiplier %v: want a positive number", f.multiply)
	}
	if f.parallel < 1 {
		return nil, fmt.Errorf("-parallel %d: want 1 or more", f.parallel)
	}
	return &f, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	f, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil {
		// The runner's start and open bounds scale with it.
		_, err = bound.Factor()
	}
	if err != nil {
		fmt.Fprintln(stderr, "veil-wpt:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	root, err := wpt.ModuleRoot()
	if err != nil {
		fmt.Fprintln(stderr, "veil-wpt:", err)
		return 2
	}
	if f.dir == "" {
		f.dir = filepath.Join(root, "e2e", "wpt")
	}
	dist, cleanup, err := runtimeDist(f)
	if err != nil {
		fmt.Fprintln(stderr, "veil-wpt: building the runtime:", err)
		return 2
	}
	defer cleanup()

	if f.serve != "" {
		return serve(ctx, f, root, dist, stdout, stderr)
	}

	files, err := wpt.Discover(f.dir, f.run)
	if err != nil {
		fmt.Fprintln(stderr, "veil-wpt:", err)
		return 2
	}
	if len(files) == 0 {
		what := ""
		if f.run != nil {
			what = fmt.Sprintf(" matching -run %q", f.run)
		}
		fmt.Fprintf(stderr, "veil-wpt: no test files under %s%s (pages that load /resources/testharness.js)\n", f.dir, what)
		return 2
	}
	cfg := &wpt.Config{Dir: f.dir, Files: files, Timeout: f.timeout, TimeoutMultiplier: f.multiply, Dist: dist, Root: root}
	if f.verbose {
		cfg.Progress = &lockedWriter{w: stderr}
	}
	return report(runAll(ctx, cfg, f), f.verbose, stdout, stderr)
}

// runtimeDist returns the runtime's directory: -dist, else a new build
// in a temporary directory that cleanup removes. Modes other than
// runtime need none.
func runtimeDist(f *flags) (dir string, cleanup func(), err error) {
	cleanup = func() {}
	needed := false
	for _, m := range f.modes {
		needed = needed || m.Runtime()
	}
	if !needed {
		return "", cleanup, nil
	}
	if f.dist != "" {
		if _, err := os.Stat(filepath.Join(f.dist, "webmcp.js")); err != nil {
			return "", cleanup, fmt.Errorf("-dist %s: %w", f.dist, err)
		}
		return f.dist, cleanup, nil
	}
	dir, err = os.MkdirTemp("", "veil-wpt-dist-")
	if err != nil {
		return "", cleanup, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	if err := wpt.BuildDist(dir); err != nil {
		cleanup()
		return "", func() {}, err
	}
	return dir, cleanup, nil
}

// outcome is one mode in one engine: its report, or why it did not run.
type outcome struct {
	mode   wpt.Mode
	engine *wpt.Engine
	report *wpt.Report
	err    error
}

// runAll runs every mode in every engine that runs it, f.parallel at a
// time, and returns the outcomes in mode, then engine, order.
func runAll(ctx context.Context, cfg *wpt.Config, f *flags) []*outcome {
	var out []*outcome
	for _, m := range f.modes {
		for _, e := range f.engines {
			if e.Runs(m) {
				out = append(out, &outcome{mode: m, engine: e})
			}
		}
	}
	sem := make(chan struct{}, f.parallel)
	var wg sync.WaitGroup
	for _, o := range out {
		sem <- struct{}{} // started in order: with -parallel 1, one after the other
		wg.Go(func() {
			defer func() { <-sem }()
			o.report, o.err = wpt.RunEngine(ctx, cfg, o.mode, o.engine)
		})
	}
	wg.Wait()
	return out
}

// report prints a line per outcome and runtime mode's failures (every
// mode's when verbose), and returns the exit status.
func report(outs []*outcome, verbose bool, stdout, stderr io.Writer) int {
	status := 0
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	for _, o := range outs {
		if o.err != nil {
			fmt.Fprintf(tw, "%s\t%s\tdid not run: %v\n", o.mode, o.engine.Name, o.err)
			status = 2
			continue
		}
		p, fl := o.report.Counts()
		fmt.Fprintf(tw, "%s\t%s\t%d passed, %d failed\t(%d files, %.1fs)\n", o.mode, o.engine.Name, p, fl, len(o.report.Files), o.report.Duration.Seconds())
	}
	tw.Flush()
	for _, o := range outs {
		if o.report == nil || (!o.mode.Runtime() && !verbose) {
			continue
		}
		fails := o.report.Failures()
		if len(fails) == 0 {
			continue
		}
		if status == 0 && o.mode.Runtime() {
			status = 1
		}
		fmt.Fprintf(stdout, "\n%s %s failures:\n", o.mode, o.engine.Name)
		for _, l := range fails {
			fmt.Fprintf(stdout, "  %s\n", oneLine(l))
		}
	}
	if status == 2 {
		fmt.Fprintln(stderr, "veil-wpt: some runs did not run (above)")
	}
	return status
}

// oneLine folds a message's lines into one.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// serve serves the tree until interrupted, printing each page's results.
func serve(ctx context.Context, f *flags, root, dist string, stdout, stderr io.Writer) int {
	out := &lockedWriter{w: stdout}
	srv, err := wpt.NewServer(&wpt.Options{
		Dir:               f.dir,
		Mode:              f.modes[0],
		Dist:              dist,
		Testharness:       wpt.TestharnessPath(root),
		TimeoutMultiplier: f.multiply,
		OnResult: func(r wpt.FileResult) {
			p, fl := r.Counts()
			fmt.Fprintf(out, "%s: %s, %d passed, %d failed\n", r.File, r.Harness, p, fl)
			for _, l := range r.Failures() {
				fmt.Fprintf(out, "  %s\n", oneLine(l))
			}
		},
	})
	if err != nil {
		fmt.Fprintln(stderr, "veil-wpt:", err)
		return 2
	}
	if err := srv.Listen(f.serve); err != nil {
		fmt.Fprintln(stderr, "veil-wpt:", err)
		return 2
	}
	defer srv.Close()
	same, remote := srv.Origins()
	fmt.Fprintf(out, "serving %s in %s mode at %s (cross-site: %s); interrupt to stop\n", f.dir, f.modes[0], same, remote)
	<-ctx.Done()
	return 0
}

// lockedWriter serializes writes from runs side by side.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
