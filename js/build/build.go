// Package build writes Veil's distribution: the directory a site serves
// and a page includes webmcp.js from.
//
// [Dist] writes webmcp.js, worker.js, veil-secrets.js, veil-confirm.js,
// veil-forms.js, veil-frames.js, veil-redeem.js, veil-restart.js,
// veil-mcp.js, webmcp.d.ts, veil.wasm (the engine, built for
// GOOS=js GOARCH=wasm) and wasm_exec.js from the same Go toolchain, each
// with precompressed .gz and .br files beside it, and THIRD_PARTY_NOTICES
// ([NoticesFile]) with the license of every module the engine links and of
// Go, and SHA256SUMS ([serve.SumsFile]) with the hash of each of these
// files, by which a server knows a .br or .gz for its file's whatever
// their times after a copy. The scripts are minified
// ([Minified]), webmcp.js bundled from the ES modules of package js's
// webmcp/ into one classic script ([Source]), veil-secrets.js from those
// of secrets/ into another, and veil-forms.js, veil-frames.js,
// veil-redeem.js and veil-restart.js, which webmcp.js imports when it
// needs them, from those of forms/, frames/, reveal/ and restart/ into
// one ES module each; webmcp.d.ts is written as it is.
package build

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"

	"github.com/veilmcp/veil/js"
	"github.com/veilmcp/veil/js/serve"
)

// modulePath is the module whose ./wasm package is the engine.
const modulePath = "github.com/veilmcp/veil"

// Files lists what Dist writes, before compression, in the order a page
// loads them.
var Files = []string{"webmcp.js", "worker.js", "wasm_exec.js", "veil.wasm", "veil-secrets.js", "veil-confirm.js", "veil-forms.js", "veil-frames.js", "veil-redeem.js", "veil-restart.js", "veil-mcp.js", "webmcp.d.ts"}

// wasmGCFlags keep the compiler from inlining in the packages that run
// at registration, to word an error or once per call, never per value of
// an output: JSON Schema compilation and its messages, fmt, URLs,
// big numbers, Go's regexp (pages' patterns use the browser's), the risk
// policy and encoding/json (the hot headers are read by hand). That
// makes veil.wasm about 60 KB smaller in brotli, inside the runtime's
// 1.3 MB transfer budget; a small call's cost does not move measurably.
var wasmGCFlags = []string{
	"-gcflags=github.com/santhosh-tekuri/...=-l",
	"-gcflags=fmt=-l",
	"-gcflags=net/...=-l",
	"-gcflags=math/big=-l",
	"-gcflags=regexp/...=-l",
	"-gcflags=github.com/veilmcp/veil/wasm/risk=-l",
	"-gcflags=encoding/json=-l",
}

// Dist builds the engine and writes the distribution into outDir, creating
// it if needed. It needs the module's source (found from this package's
// location or by walking up from the working directory) and the go
// command of the toolchain it runs under.
func Dist(outDir string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	gobin, err := goCommand()
	if err != nil {
		return err
	}
	out, err := filepath.Abs(outDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}

	tmp := filepath.Join(out, ".veil.wasm.tmp")
	defer os.Remove(tmp)
	cmd := exec.Command(gobin, append([]string{"build", "-trimpath", "-ldflags=-s -w"}, append(wasmGCFlags, "-o", tmp, "./wasm")...)...)
	cmd.Dir = root
	cmd.Env = append(buildEnv(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building veil.wasm: %w\n%s", err, b)
	}
	wasm, err := os.ReadFile(tmp)
	if err != nil {
		return err
	}
	if err := update(filepath.Join(out, "veil.wasm"), wasm); err != nil {
		return err
	}

	goroot, err := exec.Command(gobin, "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("finding GOROOT: %w", err)
	}
	if err := copyWasmExec(strings.TrimSpace(string(goroot)), out); err != nil {
		return err
	}
	if err := writeNotices(gobin, root, strings.TrimSpace(string(goroot)), out); err != nil {
		return err
	}

	err = fs.WalkDir(js.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if path.Dir(p) != "." {
			return nil // the modules of a bundled script
		}
		b, err := fs.ReadFile(js.Files, p)
		if err != nil {
			return err
		}
		return writeScript(out, p, b)
	})
	if err == nil {
		for name := range bundles {
			var b []byte
			if b, err = bundle(name); err != nil {
				break
			}
			if err = update(filepath.Join(out, name), b); err != nil {
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("writing scripts: %w", err)
	}

	var wg sync.WaitGroup
	errs := make([]error, len(Files))
	for i, name := range Files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = compress(filepath.Join(out, name))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return writeSums(out)
}

// writeSums writes serve.SumsFile into out: the SHA-256 of each file of
// Files, of its .br and .gz, and of NoticesFile, as sha256sum writes
// them.
func writeSums(out string) error {
	var names []string
	for _, name := range Files {
		names = append(names, name, name+".br", name+".gz")
	}
	names = append(names, NoticesFile)
	slices.Sort(names)
	var b bytes.Buffer
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			return fmt.Errorf("writing %s: %w", serve.SumsFile, err)
		}
		fmt.Fprintf(&b, "%x  %s\n", sha256.Sum256(data), name)
	}
	return update(filepath.Join(out, serve.SumsFile), b.Bytes())
}

// copyWasmExec copies the toolchain's wasm_exec.js: the glue must match the
// Go version that built the module.
func copyWasmExec(goroot, out string) error {
	var last error
	for _, dir := range []string{"lib/wasm", "misc/wasm"} {
		b, err := os.ReadFile(filepath.Join(goroot, dir, "wasm_exec.js"))
		if err != nil {
			last = err
			continue
		}
		return writeScript(out, "wasm_exec.js", b)
	}
	return fmt.Errorf("finding wasm_exec.js in %s: %w", goroot, last)
}

// writeScript writes the file called name into dir, minified when it is
// one of [Minified].
func writeScript(dir, name string, b []byte) error {
	if minified(name) {
		var err error
		if b, err = minify(name, b); err != nil {
			return err
		}
	}
	return update(filepath.Join(dir, name), b)
}

// update writes b to path unless path already holds exactly b, so that an
// unchanged file keeps its modification time.
func update(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	return os.WriteFile(path, b, 0o644)
}

// compress writes path.gz and path.br, unless both are newer than path:
// brotli's best quality takes a while on the engine.
func compress(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if newer(path+".gz", fi) && newer(path+".br", fi) {
		return nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err := write(zw, src); err != nil {
		return err
	}
	var br bytes.Buffer
	bw := brotli.NewWriterLevel(&br, brotli.BestCompression)
	if err := write(bw, src); err != nil {
		return err
	}
	if err := os.WriteFile(path+".gz", gz.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(path+".br", br.Bytes(), 0o644)
}

func newer(path string, than os.FileInfo) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.ModTime().Before(than.ModTime())
}

func write(w io.WriteCloser, b []byte) error {
	if _, err := w.Write(b); err != nil {
		return err
	}
	return w.Close()
}

// moduleRoot finds the directory holding this module's go.mod: from this
// source file's location when it is on disk, else from the working
// directory up.
func moduleRoot() (string, error) {
	var starts []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for {
			if isModuleRoot(dir) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("finding the source of module %s: no go.mod for it here or above", modulePath)
}

func isModuleRoot(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == modulePath {
			return true
		}
	}
	return false
}

// buildEnv is the environment the go command runs in: this module's own
// go.mod decides, wherever it is (a checkout, or the module cache under
// go run ...@version), not a workspace or flags of the caller's module.
func buildEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
}

// goCommand is the go command of the toolchain this program runs under, or
// the one on PATH.
func goCommand() (string, error) {
	exe := "go"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if root := runtime.GOROOT(); root != "" {
		p := filepath.Join(root, "bin", exe)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("finding the go command: %w", err)
	}
	return p, nil
}
