package wpt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// DefaultTimeout is how long a test file has to post its results before
// the runner records it as HarnessTimeout and moves on: longer than
// testharness.js's own 10 s, so that a stuck test is reported by the
// harness, with its name, whenever the page can still report. A file
// with <meta name="timeout" content="long"> gets LongFactor times as
// long, as testharness.js gives it 60 s.
const DefaultTimeout = 20 * time.Second

// LongFactor multiplies the timeout of a file marked long.
const LongFactor = 6

// skippedDirs are directories under the root that hold no test files:
// WPT's helpers, ours, and test data.
var skippedDirs = []string{"resources", "support", "tools", "common", "testdata", "node_modules", "harness"}

// Discover returns the test files under dir, as slash-separated paths
// relative to it, in lexical order: the .html and .htm files that load
// /resources/testharness.js, outside directories named in skippedDirs
// and those whose names start with "." or "_", and whose path matches
// run when run is not nil.
func Discover(dir string, run *regexp.Regexp) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (slices.Contains(skippedDirs, name) || name[0] == '.' || name[0] == '_') {
				return filepath.SkipDir
			}
			return nil
		}
		if !isPage(name) || name[0] == '.' || name[0] == '_' {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if run != nil && !run.MatchString(rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte("/resources/testharness.js")) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("finding the test files under %s: %w", dir, err)
	}
	return files, nil
}

// Config is what RunEngine runs.
type Config struct {
	// Dir is the tree's root.
	Dir string
	// Files are the test files, slash-separated paths under Dir.
	Files []string
	// Timeout is each file's; zero means DefaultTimeout. It is
	// multiplied by TimeoutMultiplier.
	Timeout time.Duration
	// TimeoutMultiplier multiplies testharness.js's timeouts and the
	// runner's; zero means 1. See Options.TimeoutMultiplier.
	TimeoutMultiplier float64
	// Dist is the runtime's dist/ directory, which runtime mode needs.
	Dist string
	// Root is the module root; empty means ModuleRoot.
	Root string
	// Progress, when set, gets a line per file as it ends.
	Progress io.Writer
}

var longTimeout = regexp.MustCompile(`(?i)<meta\s+name=["']?timeout["']?\s+content=["']?long`)

// RunEngine runs cfg's files in mode in engine e: it serves the tree,
// starts the browser, opens each file in turn and waits for its results
// or its timeout. It fails when the server or the browser cannot start;
// what happens to a file is in the report.
func RunEngine(ctx context.Context, cfg *Config, mode Mode, e *Engine) (*Report, error) {
	if !e.Runs(mode) {
		return nil, fmt.Errorf("%s does not run %s mode (it runs %s)", e.Name, mode, join(e.Modes))
	}
	root := cfg.Root
	if root == "" {
		var err error
		if root, err = ModuleRoot(); err != nil {
			return nil, err
		}
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if m := cfg.TimeoutMultiplier; m > 0 {
		timeout = time.Duration(float64(timeout) * m)
	}
	srv, err := NewServer(&Options{
		Dir:               cfg.Dir,
		Mode:              mode,
		Dist:              cfg.Dist,
		Testharness:       TestharnessPath(root),
		TimeoutMultiplier: cfg.TimeoutMultiplier,
	})
	if err != nil {
		return nil, err
	}
	if err := srv.Listen(""); err != nil {
		return nil, err
	}
	defer srv.Close()

	start := time.Now()
	b, err := e.Start(ctx, mode, root)
	if err != nil {
		return nil, err
	}
	defer b.Close()

	rep := &Report{Mode: mode, Engine: e.Name}
	for _, file := range cfg.Files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		limit := timeout
		if page, err := os.ReadFile(filepath.Join(cfg.Dir, filepath.FromSlash(file))); err == nil && longTimeout.Match(page) {
			limit *= LongFactor
		}
		res := runFile(ctx, srv, b, file, limit)
		rep.Files = append(rep.Files, res)
		if cfg.Progress != nil {
			p, f := res.Counts()
			fmt.Fprintf(cfg.Progress, "%s %s: %s: %s, %d passed, %d failed (%.1fs)\n", mode, e.Name, file, res.Harness, p, f, res.Duration.Seconds())
		}
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// runFile opens one file and waits for its results. Opening has its own
// bound (openTimeout), so a browser slow to load a page on a busy
// machine does not eat the file's time: the runner's timeout counts
// from the page being open, as testharness.js's own does.
func runFile(ctx context.Context, srv *Server, b Browser, file string, timeout time.Duration) FileResult {
	results, stop := srv.await(file)
	defer stop()
	start := time.Now()
	none := func(status, msg string) FileResult {
		return FileResult{File: file, Harness: status, Message: msg, Subtests: []Subtest{}, Duration: time.Since(start)}
	}
	if err := b.Open(ctx, srv.URL(file)); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return none(HarnessTimeout, fmt.Sprintf("not opened within %v", openTimeout()))
		}
		return none(HarnessError, "opening the file: "+strings.TrimSpace(err.Error()))
	}
	start = time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case res := <-results:
		res.Duration = time.Since(start)
		return res
	case <-ctx.Done():
		return none(HarnessTimeout, fmt.Sprintf("no results within %v (the runner's timeout)", timeout))
	}
}
