package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js/build"
)

// shop is a program of another module: it imports the engine, the risk
// policy and redeem, as a backend or a tool of its own would.
const shop = `package main

import (
	"fmt"

	"github.com/veilmcp/veil/redeem"
	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/risk"
)

func main() {
	e := engine.New(&engine.Options{Origin: "https://shop.example"})
	if _, err := e.Register(` + "`" + `{"name": "new_key", "description": "Creates a key",
		"outputSchema": {"type": "object", "properties": {"secret": {"type": "string", "x-sensitive": true}}}}` + "`" + `); err != nil {
		panic(err)
	}
	d, err := e.Decide("new_key", "{}", engine.Resolution{})
	if err != nil {
		panic(err)
	}
	res := e.Output(engine.Outcome{Kind: engine.Returned, Data: ` + "`" + `{"secret":"sk_shop_1"}` + "`" + `, Call: d.Call})
	if _, err := risk.NewPolicy(nil); err != nil {
		panic(err)
	}
	_ = redeem.NewMemoryStore(nil)
	fmt.Println(res.Agent)
}
`

// beforeRelease returns the go commands of docs/install.md's "Before a
// release" that point a module at a checkout, with the checkout's path
// for "../veil".
func beforeRelease(t *testing.T, root string) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "install.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(doc), "\n## Before a release\n")
	require.True(t, ok, "docs/install.md has a section Before a release")
	section, _, _ = strings.Cut(section, "\n## ")
	var lines []string
	for line := range strings.Lines(section) {
		if strings.HasPrefix(line, "go mod edit ") || strings.HasPrefix(line, "go run ") {
			lines = append(lines, strings.ReplaceAll(strings.TrimSpace(line), "../veil", root))
		}
	}
	require.Len(t, lines, 2, "docs/install.md, Before a release: a go mod edit and a go run line")
	return lines
}

// TestFromAnotherModule follows docs/install.md in modules outside this
// repository: each points at this checkout, as the document's lines do
// before a release; one writes the runtime's dist/ with this command, and
// another builds a program that imports the engine, the risk policy and
// redeem. The two are independent (the program needs no dist/), so they
// run side by side, each in a module of its own: the build of dist/
// compresses the engine for a while, on its own.
func TestFromAnotherModule(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	lines := beforeRelease(t, root)
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	// module makes a module of its own and runs the document's lines in
	// it, the first n of them, and returns its directory and what the last
	// one wrote.
	module := func(t *testing.T, n int) (string, string) {
		t.Helper()
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/shop\n\ngo 1.25\n"), 0o644))
		var out string
		for _, line := range lines[:n] {
			args := strings.Fields(line)
			require.Equal(t, "go", args[0])
			cmd := exec.Command(gobin, args[1:]...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
			b, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s:\n%s", line, b)
			out = string(b)
		}
		return dir, out
	}

	t.Run("dist", func(t *testing.T) {
		t.Parallel()
		dir, out := module(t, len(lines))
		for _, name := range append(build.Files, build.NoticesFile) {
			assert.FileExists(t, filepath.Join(dir, "dist", name))
		}
		assert.Contains(t, out, "veil.wasm")
		notices, err := os.ReadFile(filepath.Join(dir, "dist", build.NoticesFile))
		require.NoError(t, err)
		assert.Contains(t, string(notices), "github.com/santhosh-tekuri/jsonschema/v6")
	})

	t.Run("program", func(t *testing.T) {
		t.Parallel()
		// The go mod edit line alone: the program imports packages of the
		// checkout and needs no dist/.
		require.True(t, strings.HasPrefix(lines[0], "go mod edit "), "the document's first line points the module at the checkout: %s", lines[0])
		dir, _ := module(t, 1)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(shop), 0o644))
		run := func(env []string, args ...string) string {
			t.Helper()
			cmd := exec.Command(gobin, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), append([]string{"GOWORK=off", "GOFLAGS=-mod=mod"}, env...)...)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
			return string(out)
		}
		run(nil, "mod", "tidy")
		out := run(nil, "run", ".")
		assert.NotContains(t, out, "sk_shop_1", "the agent's view holds the secret")
		assert.Contains(t, out, `"withheld":["/secret"]`)
		// The engine also builds for the browser from there.
		run([]string{"GOOS=js", "GOARCH=wasm"}, "build", "-o", os.DevNull, "github.com/veilmcp/veil/wasm")
	})
}

// moduleRoot is the directory of this repository's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "env", "GOMOD")
	b, err := cmd.Output()
	require.NoError(t, err)
	return filepath.Dir(strings.TrimSpace(string(b)))
}
