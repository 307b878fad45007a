package build

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js/serve"
)

func TestModuleRoot(t *testing.T) {
	root, err := moduleRoot()
	require.NoError(t, err, "moduleRoot")
	assert.FileExists(t, filepath.Join(root, "wasm", "main.go"))

	// From a working directory outside the module, the source file's own
	// location still finds it.
	t.Chdir(t.TempDir())
	got, err := moduleRoot()
	require.NoError(t, err, "moduleRoot from elsewhere")
	assert.Equal(t, root, got)
}

func TestIsModuleRoot(t *testing.T) {
	tests := []struct {
		name, gomod string
		want        bool
	}{
		{"this module", "module github.com/veilmcp/veil\n\ngo 1.25.0\n", true},
		{"quoted", "module \"github.com/veilmcp/veil\"\n", true},
		{"another module", "module example.com/other\n", false},
		{"a module whose path starts like ours", "module github.com/veilmcp/veil/js\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(tt.gomod), 0o644))
			assert.Equal(t, tt.want, isModuleRoot(dir))
		})
	}
	assert.False(t, isModuleRoot(t.TempDir()), "no go.mod")
}

func TestCopyWasmExec(t *testing.T) {
	out := t.TempDir()
	require.NoError(t, copyWasmExec(runtime.GOROOT(), out), "copyWasmExec")
	b, err := os.ReadFile(filepath.Join(out, "wasm_exec.js"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "globalThis.Go")

	err = copyWasmExec(t.TempDir(), out)
	assert.ErrorContains(t, err, "wasm_exec.js", "copyWasmExec from a directory without it")
}

func TestCompress(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "webmcp.js")
	src := bytes.Repeat([]byte("document.modelContext.registerTool({});\n"), 200)
	require.NoError(t, os.WriteFile(path, src, 0o644))
	require.NoError(t, compress(path), "compress")

	gz, err := os.Open(path + ".gz")
	require.NoError(t, err)
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	require.NoError(t, err)
	got, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, src, got, "gunzip of .gz")

	br, err := os.Open(path + ".br")
	require.NoError(t, err)
	defer br.Close()
	got, err = io.ReadAll(brotli.NewReader(br))
	require.NoError(t, err)
	assert.Equal(t, src, got, "brotli decode of .br")

	// Compressed files newer than the source are kept; a newer source
	// rewrites them.
	require.NoError(t, os.WriteFile(path+".br", []byte("kept"), 0o644))
	require.NoError(t, compress(path))
	kept, _ := os.ReadFile(path + ".br")
	assert.Equal(t, "kept", string(kept), ".br newer than its source")

	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(path, later, later))
	require.NoError(t, compress(path))
	redone, _ := os.ReadFile(path + ".br")
	assert.NotEqual(t, "kept", string(redone), ".br older than its source")
}

func TestUpdateKeepsUnchangedFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "worker.js")
	require.NoError(t, update(path, []byte("a")))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(path, old, old))

	require.NoError(t, update(path, []byte("a")))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.True(t, fi.ModTime().Equal(old), "update with the same content: got mtime %v, want %v", fi.ModTime(), old)

	require.NoError(t, update(path, []byte("b")))
	b, _ := os.ReadFile(path)
	assert.Equal(t, "b", string(b))
}

func TestMinify(t *testing.T) {
	for _, name := range []string{"webmcp.js", "worker.js", "veil-secrets.js", "veil-confirm.js"} {
		t.Run(name, func(t *testing.T) {
			src, err := Source(name)
			require.NoError(t, err)
			got, err := built(name)
			require.NoError(t, err, "minify(%s)", name)
			assert.Less(t, len(got), len(src)*2/3, "minify(%s): got %d bytes of %d, want under two thirds", name, len(got), len(src))
			header, _, _ := strings.Cut(string(src), "\n")
			assert.NotContains(t, string(got), header, "minify(%s): the header comment is left", name)
			if name != "veil-confirm.js" {
				assert.True(t, strings.HasPrefix(string(got), `"use strict";`), "minify(%s): got %.40q, want the 'use strict' directive first", name, got)
			}
		})
	}
}

func TestMinifyNames(t *testing.T) {
	src := []byte("'use strict';\n(() => {\n  class ModelContext extends EventTarget {}\n  globalThis.mc = new ModelContext();\n})();\n")
	tests := []struct {
		name string
		keep bool
	}{
		{"webmcp.js", false},
		{"veil-secrets.js", true},
		{"worker.js", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := minify(tt.name, src)
			require.NoError(t, err)
			assert.Equal(t, tt.keep, strings.Contains(string(got), `"ModelContext"`), "minify(%s) keeps the class's name: %s", tt.name, got)
		})
	}
}

// TestMinifyNoGlobals: the helpers that keep names stay inside the
// script, which declares nothing at its top level: a global of theirs
// would be the page's too, and the page's own of the same name would
// replace it.
func TestMinifyNoGlobals(t *testing.T) {
	for name := range namesSeen {
		t.Run(name, func(t *testing.T) {
			got, err := built(name)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(string(got), `"use strict";(()=>{`), "minify(%s): got %.60q, want one function around the whole script", name, got)
			assert.True(t, strings.HasSuffix(strings.TrimSpace(string(got)), `})();`), "minify(%s): the script ends with its function's call", name)
		})
	}
}

func TestMinifyModule(t *testing.T) {
	got, err := minify("veil-confirm.js", []byte("const longName = (x) => x + 1;\nexport const confirm = (r) => longName(r);\n"))
	require.NoError(t, err)
	assert.Contains(t, string(got), "export const confirm=", "minify of a module keeps its export: %s", got)
	assert.NotContains(t, string(got), "longName", "minify of a module shortens its local names: %s", got)
}

func TestMinifyKeepsCopyright(t *testing.T) {
	src := "// Copyright 2018 The Go Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style\n\n\"use strict\";\n// a comment\nglobalThis.Go = class { run() { return 1; } };\n"
	got, err := minify("wasm_exec.js", []byte(src))
	require.NoError(t, err)
	assert.Equal(t, "// Copyright 2018 The Go Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style\n\"use strict\";globalThis.Go=class{run(){return 1}};\n", string(got))
}

func TestMinifyError(t *testing.T) {
	_, err := minify("webmcp.js", []byte("'use strict';\nconst = 1;\n"))
	require.Error(t, err, "minify of a script that doesn't parse")
	assert.ErrorContains(t, err, "minifying webmcp.js")
	assert.ErrorContains(t, err, "webmcp.js:2")
}

func TestWriteScript(t *testing.T) {
	dir := t.TempDir()
	src := []byte("'use strict';\n// a comment\nconst greeting = 'hi';\n")
	require.NoError(t, writeScript(dir, "worker.js", src))
	require.NoError(t, writeScript(dir, "webmcp.d.ts", src))
	got, _ := os.ReadFile(filepath.Join(dir, "worker.js"))
	assert.Equal(t, "\"use strict\";const greeting=\"hi\";\n", string(got), "worker.js, minified")
	got, _ = os.ReadFile(filepath.Join(dir, "webmcp.d.ts"))
	assert.Equal(t, string(src), string(got), "webmcp.d.ts, as written")
}

func TestInlineContract(t *testing.T) {
	names := map[string]string{"FAILURE": "{}", "OP_INIT": "init", "KIND_TEXT": "text"}
	got, err := inlineContract("webmcp/a.js", "import { FAILURE, OP_INIT } from './contract.js';\nimport { KIND_TEXT } from './contract.js';\ncall(OP_INIT);\n", names)
	require.NoError(t, err)
	assert.Equal(t, "import { FAILURE } from './contract.js';\n\ncall(OP_INIT);\n", got)
	_, err = inlineContract("webmcp/a.js", "import { OP_GONE } from './contract.js';\n", names)
	assert.ErrorContains(t, err, "OP_GONE")

	b, err := bundle("webmcp.js")
	require.NoError(t, err)
	assert.NotRegexp(t, `\b(?:OP|KIND|OUTCOME|ERR)_[A-Z]`, string(b), "a contract name left in the bundle")
}

// TestBundleModule: each script webmcp.js imports is bundled into one ES
// module, minified, whose one export is its entry's.
func TestBundleModule(t *testing.T) {
	for name, export := range esModules {
		t.Run(name, func(t *testing.T) {
			src, err := Source(name)
			require.NoError(t, err)
			got, err := built(name)
			require.NoError(t, err)
			assert.Less(t, len(got), len(src)*2/3, "bundle(%s): got %d bytes of %d, want under two thirds", name, len(got), len(src))
			assert.Regexp(t, `export\{[A-Za-z_$][\w$]* as `+export+`\};\s*$`, string(got), "bundle(%s) ends with its export", name)
			assert.Equal(t, 1, strings.Count(string(got), "export{"), "bundle(%s): one export", name)
			assert.False(t, strings.HasPrefix(string(got), `"use strict";(()=>{`), "bundle(%s): a module, not a classic script", name)
		})
	}
}

// TestWriteSums: the sums Dist writes let js/serve send a variant older
// than its file, as a copy leaves it, and list every file as sha256sum
// does.
func TestWriteSums(t *testing.T) {
	out := t.TempDir()
	names := []string{NoticesFile}
	for _, name := range Files {
		names = append(names, name, name+".br", name+".gz")
	}
	for _, name := range names {
		require.NoError(t, os.WriteFile(filepath.Join(out, name), []byte("bytes of "+name), 0o644))
	}
	require.NoError(t, writeSums(out), "writeSums")
	b, err := os.ReadFile(filepath.Join(out, serve.SumsFile))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.Len(t, lines, len(names), "a line per file")
	assert.Contains(t, lines, fmt.Sprintf("%x  veil.wasm.br", sha256.Sum256([]byte("bytes of veil.wasm.br"))))

	// As npm install leaves them: each variant written before its file.
	early, late := time.Now().Add(-time.Hour), time.Now()
	for _, name := range names {
		mod := late
		if strings.HasSuffix(name, ".br") || strings.HasSuffix(name, ".gz") {
			mod = early
		}
		require.NoError(t, os.Chtimes(filepath.Join(out, name), mod, mod))
	}
	r := httptest.NewRequest("GET", "/veil.wasm", nil)
	r.Header.Set("Accept-Encoding", "br")
	w := httptest.NewRecorder()
	serve.Handler(os.DirFS(out)).ServeHTTP(w, r)
	assert.Equal(t, "br", w.Result().Header.Get("Content-Encoding"), "Content-Encoding of veil.wasm")
	assert.Equal(t, "bytes of veil.wasm.br", w.Body.String())

	// A file missing is an error that names it.
	require.NoError(t, os.Remove(filepath.Join(out, "veil.wasm.gz")))
	assert.ErrorContains(t, writeSums(out), "veil.wasm.gz", "writeSums without a file")
}

// TestVersion: the runtime's version is package.json's, and webmcp.js
// carries it for veil.version.
func TestVersion(t *testing.T) {
	v, err := Version()
	require.NoError(t, err, "Version")
	root, err := moduleRoot()
	require.NoError(t, err)
	pkg, err := os.ReadFile(filepath.Join(root, "package.json"))
	require.NoError(t, err)
	assert.Contains(t, string(pkg), `"version": "`+v+`"`, "package.json")
	got, err := bundle("webmcp.js")
	require.NoError(t, err, "bundle(webmcp.js)")
	assert.Contains(t, string(got), `"`+v+`"`, "webmcp.js holds the version")
	assert.NotContains(t, string(got), "VEIL_VERSION", "the build defines VEIL_VERSION")
	assert.NotContains(t, string(got), "0.0.0-source", "the version outside a bundle is left out")

	// The changelog's newest entry is this version's.
	log, err := os.ReadFile(filepath.Join(root, "docs", "CHANGELOG.md"))
	require.NoError(t, err)
	for line := range strings.Lines(string(log)) {
		if strings.HasPrefix(line, "## ") {
			assert.True(t, strings.HasPrefix(line, "## "+v+" ") || strings.TrimSpace(line) == "## "+v,
				"docs/CHANGELOG.md: the newest entry is %q, want package.json's version %s", strings.TrimSpace(line), v)
			break
		}
	}
}
