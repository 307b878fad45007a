package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js/build"
)

// TestDistMinified checks that pages load the minified scripts the build
// writes, not the sources, and that what a page can see of them by name is
// as in the sources. Every other test of the suite runs against them too.
func TestDistMinified(t *testing.T) {
	t.Parallel() // in a tab of its own
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	require.NoError(t, err, "go env GOROOT")
	for _, name := range build.Minified {
		src, err := build.Source(name)
		if name == "wasm_exec.js" {
			src, err = os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", name))
		}
		require.NoError(t, err, "reading the source of %s", name)
		got, err := os.ReadFile(filepath.Join(distDir, name))
		require.NoError(t, err, "reading the built %s", name)
		assert.Less(t, len(got), len(src)*2/3, "%s: got %d bytes built from %d of source, want it minified", name, len(got), len(src))
	}

	tb := openRuntime(t, plain, "worker")
	want, err := os.ReadFile(filepath.Join(distDir, "webmcp.js"))
	require.NoError(t, err)
	assert.Equal(t, string(want), eval[string](tb, `fetch("/dist/webmcp.js").then(r => r.text())`), "the webmcp.js the page loads")

	names := eval[map[string]string](tb, `(async () => {
		const s = document.createElement("script");
		s.src = "/dist/veil-secrets.js";
		document.head.append(s);
		return {
			context: document.modelContext.constructor.name,
			testing: navigator.modelContextTesting.constructor.name,
			veil: veil.constructor.name,
			tray: (await customElements.whenDefined("veil-secrets")).name,
		};
	})()`)
	assert.Equal(t, map[string]string{"context": "ModelContext", "testing": "ModelContextTesting", "veil": "Veil", "tray": "VeilSecrets"}, names, "constructor names")
}

// TestDistNotices: THIRD_PARTY_NOTICES names every module whose code is in
// veil.wasm, as the binary itself shows it (the package paths in its
// function names), with a license text for each, and Go's.
func TestDistNotices(t *testing.T) {
	t.Parallel() // in a tab of its own
	wasm, err := os.ReadFile(filepath.Join(distDir, "veil.wasm"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(distDir, build.NoticesFile))
	require.NoError(t, err)
	notices := string(b)
	linked := map[string]bool{}
	for _, m := range modulePathRE.FindAllString(string(wasm), -1) {
		if !strings.HasPrefix(m, "github.com/veilmcp/veil") {
			linked[m] = true
		}
	}
	require.NotEmpty(t, linked, "no module path in veil.wasm: is the pattern right?")
	for m := range linked {
		assert.Contains(t, notices, "\n"+m, "veil.wasm links %s, which the notices do not name", m)
	}
	assert.Contains(t, notices, "wasm_exec.js is Go's")
	assert.Contains(t, notices, "Copyright 2009 The Go Authors", "Go's license")
	assert.Contains(t, notices, "Apache License", "jsonschema/v6's license")
}

// modulePathRE matches the module part of a package path in a binary: a
// host of the module proxies' usual kind, then two elements.
var modulePathRE = regexp.MustCompile(`(?:github\.com|golang\.org|gopkg\.in|go\.uber\.org|google\.golang\.org)/[A-Za-z0-9_.-]+/[A-Za-z0-9_-]+`)
