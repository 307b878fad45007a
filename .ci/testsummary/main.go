// Command testsummary runs the test suites of `make test` and ends with
// what a person wants to know: one line per suite with the tests passed,
// failed and skipped and how long the suite took, a total, the tests that
// failed, every skipped test with its reason, and the ten slowest tests
// that took a second or more (each top-level test, its subtests in its
// time), and for each package whose tests partly run side by side the
// time its other tests took one at a time, while those waited, so that a
// slow suite names what to look at.
//
// The commands run side by side; the report lists them in the order given.
//
// Usage:
//
//	go run ./.ci/testsummary suite=command [-as package=suite]... [suite=command]...
//
// Each command runs under sh -c. A command that writes `go test -json`
// events has its tests counted: each test, subtest and example that ran,
// except that a test with subtests counts only for what its subtests don't
// explain (it skipped, or failed while they passed). Its output is what
// `go test` prints without -v: a line per package, build errors, and the
// whole output of each test that failed, so a failure reads as it always
// did. A command that writes no events, such as tsc, is one check that
// passes when the command exits 0; its output is printed as it comes.
//
// -as counts a package's tests under another suite, whichever command runs
// them: `-as e2e=browser` lets one `go test ./...` keep the browser suite
// running beside the others and still report it on a line of its own. The
// package is its import path without the module path. Suites are listed in
// the order the arguments name them.
//
// testsummary exits 1 when a test failed, a package did not build, a test
// binary failed outside its tests or a command exited non-zero.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// A command is one suite=command argument.
type command struct {
	suite string
	line  string
}

// moves is the -as flag: package → suite, recorded in sum's order as it
// is parsed.
type moves struct {
	sum *Summary
	m   map[string]string
}

func (m *moves) String() string { return "" }

func (m *moves) Set(v string) error {
	pkg, suite, ok := strings.Cut(v, "=")
	if !ok || pkg == "" || suite == "" {
		return fmt.Errorf("-as %q: want package=suite", v)
	}
	m.m[pkg] = suite
	m.sum.suite(suite)
	return nil
}

func main() {
	sum := new(Summary)
	mv := &moves{sum: sum, m: map[string]string{}}
	fs := flag.NewFlagSet("testsummary", flag.ExitOnError)
	fs.Var(mv, "as", "count `package=suite`: the package's tests under suite")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: testsummary suite=command [-as package=suite]... [suite=command]...")
		fs.PrintDefaults()
	}
	// Flags and suites interleave, so that the order of the arguments is
	// the order of the report.
	var cmds []command
	args := os.Args[1:]
	for {
		if err := fs.Parse(args); err != nil {
			os.Exit(2)
		}
		if fs.NArg() == 0 {
			break
		}
		suite, line, ok := strings.Cut(fs.Arg(0), "=")
		if !ok || suite == "" || line == "" {
			fs.Usage()
			os.Exit(2)
		}
		sum.suite(suite)
		cmds = append(cmds, command{suite, line})
		args = fs.Args()[1:]
	}
	if len(cmds) == 0 {
		fs.Usage()
		os.Exit(2)
	}

	var module string
	if info, ok := debug.ReadBuildInfo(); ok {
		module = info.Main.Path
	}
	start := time.Now()
	runAll(sum, cmds, module, mv.m, os.Stdout)
	sum.Report(os.Stdout, time.Since(start))
	if sum.Failed() {
		os.Exit(1)
	}
}

// runAll runs the commands side by side: the suites' lines already wait
// on the browser, and a suite that only computes (the engine under Node)
// fits in beside it. The first command prints as it goes; each other's
// output is printed, in order, once it has ended and those before it have
// been printed. Each adds its results to sum when it ends.
func runAll(sum *Summary, cmds []command, module string, moved map[string]string, out io.Writer) {
	parts := make([]*Summary, len(cmds))
	bufs := make([]*bytes.Buffer, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		parts[i], bufs[i] = new(Summary), new(bytes.Buffer)
		w := io.Writer(bufs[i])
		if i == 0 {
			w = out
		}
		wg.Go(func() { run(parts[i], c, module, moved, w) })
	}
	wg.Wait()
	for i := range cmds {
		io.Copy(out, bufs[i])
		sum.merge(parts[i])
	}
}

// run runs one command, prints what it prints and adds its results to sum.
func run(sum *Summary, c command, module string, moved map[string]string, out io.Writer) {
	// Only the name: make has echoed the commands.
	fmt.Fprintf(out, "== %s\n", c.suite)
	cmd := exec.Command("sh", "-c", c.line)
	cmd.Stdin = os.Stdin
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		sum.commandFailed(c.suite, fmt.Errorf("starting: %w", err), 0)
		return
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		sum.commandFailed(c.suite, fmt.Errorf("starting: %w", err), 0)
		return
	}
	r := newReader(sum, c.suite, module, moved, start, out)
	r.read(stdout)
	r.finish(cmd.Wait(), time.Since(start))
}
