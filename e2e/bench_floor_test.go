package e2e

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/andybalholm/brotli"

	"github.com/veilmcp/veil/js/serve"
)

// The floor under the runtime's start-up is the time the same browser
// takes to fetch, compile and start the smallest Go WebAssembly program,
// testdata/floor, which does nothing but say that it runs; the library
// floor, testdata/floor-library, links the JSON Schema library the engine
// requires and nothing else of Veil's. The benchmark builds both for
// GOOS=js GOARCH=wasm as the build builds veil.wasm, serves them as the
// runtime is served (precompressed, under /floor/), and starts them with
// floor.js the way webmcp.js starts the engine, in a Worker or on the main
// thread.

// floor is floor.wasm and its compressed variants, built once per test
// binary, when first needed; the suite's end removes them.
var floor struct {
	once    sync.Once
	dir     string
	err     error
	handler http.Handler
}

// buildFloor builds the floor program, once.
func buildFloor() error {
	floor.once.Do(func() {
		floor.dir, floor.err = writeFloor()
		if floor.err == nil {
			floor.handler = serve.Handler(os.DirFS(floor.dir))
		}
	})
	return floor.err
}

// floorPrograms are the floor programs, by the name their files are
// served under: floor, which does nothing, and library, which links the
// JSON Schema library the engine requires and nothing else of Veil's.
var floorPrograms = map[string]string{"floor": "./testdata/floor", "library": "./testdata/floor-library"}

func writeFloor() (string, error) {
	dir, err := os.MkdirTemp("", "veil-bench-floor-")
	if err != nil {
		return "", err
	}
	for name, pkg := range floorPrograms {
		if err := writeFloorProgram(dir, name, pkg); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// writeFloorProgram builds pkg into dir as name.wasm, as the build builds
// veil.wasm, with its compressed variants beside it.
func writeFloorProgram(dir, name, pkg string) error {
	wasm := filepath.Join(dir, name+".wasm")
	cmd := exec.Command(goCommand(), "build", "-trimpath", "-ldflags=-s -w", "-o", wasm, pkg)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s.wasm: %w\n%s", name, err, out)
	}
	b, err := os.ReadFile(wasm)
	if err != nil {
		return err
	}
	var gz, br bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	bw := brotli.NewWriterLevel(&br, brotli.BestCompression)
	for _, w := range []interface {
		Write([]byte) (int, error)
		Close() error
	}{zw, bw} {
		if _, err := w.Write(b); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
	if err := os.WriteFile(wasm+".gz", gz.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(wasm+".br", br.Bytes(), 0o644)
}

// floorBrotli is the size of a floor program's .br file.
func floorBrotli(name string) int64 {
	fi, err := os.Stat(filepath.Join(floor.dir, name+".wasm.br"))
	if err != nil {
		return -1
	}
	return fi.Size()
}

// goCommand is the go command of the toolchain running the tests, whose
// wasm_exec.js the runtime's build copies into dist, or else the one on
// PATH.
func goCommand() string {
	if root := runtime.GOROOT(); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}

// handleFloor serves what buildFloor wrote under /floor/. The benchmark
// builds it before a page asks, so that no load waits for the build.
func handleFloor(w http.ResponseWriter, r *http.Request) {
	if err := buildFloor(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	http.StripPrefix("/floor", floor.handler).ServeHTTP(w, r)
}

// removeFloor deletes what buildFloor wrote.
func removeFloor() {
	if floor.dir != "" {
		os.RemoveAll(floor.dir)
	}
}
