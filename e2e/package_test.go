package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/wpt"
	"github.com/veilmcp/veil/js/build"
)

// The npm package, and docs/install.md's recipes with it: TestPackage packs
// the module's package.json with the runtime as dist/, as `npm pack` after
// `make build` does, installs the tarball into the recipes' projects from
// the file, offline, and builds them with the Vite of the module's
// node_modules (package.json pins it; npm ci installs it). Nothing is
// fetched from the network.

// installDoc is the document whose recipes TestPackage runs.
const installDoc = "docs/install.md"

// packageSecret is what the recipes' backend gives their tool as the
// secret: it must never reach an agent.
const packageSecret = "sk-from-the-package-91"

// npmRun runs npm with args in dir, with env added to the environment,
// and returns its standard output.
func npmRun(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("npm", append(args, "--no-audit", "--no-fund")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "npm %s in %s:\n%s%s", strings.Join(args, " "), dir, out, stderr.String())
	return string(out)
}

// packed is what `npm pack --json` says of the tarball it wrote.
type packed struct {
	Name     string `json:"name"`
	Filename string `json:"filename"`
	Files    []struct {
		Path string `json:"path"`
	} `json:"files"`
}

// pack packs the package: package.json, the LICENSE and README.md of the
// module root when there are, and the runtime the suite built as dist/.
// It returns the tarball's path and what npm says of it.
func pack(t *testing.T) (string, packed) {
	t.Helper()
	src := t.TempDir()
	for _, f := range []string{"package.json", "LICENSE", "README.md"} {
		err := wpt.CopyFile(filepath.Join(moduleRoot, f), filepath.Join(src, f))
		if f != "package.json" && os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
	}
	require.NoError(t, os.Mkdir(filepath.Join(src, "dist"), 0o755))
	entries, err := os.ReadDir(distDir)
	require.NoError(t, err)
	for _, e := range entries {
		require.NoError(t, wpt.CopyFile(filepath.Join(distDir, e.Name()), filepath.Join(src, "dist", e.Name())))
	}
	var got []packed
	require.NoError(t, json.Unmarshal([]byte(npmRun(t, src, nil, "pack", "--json")), &got))
	require.Len(t, got, 1, "npm pack writes one tarball")
	return filepath.Join(src, got[0].Filename), got[0]
}

// recipeProject writes the files of a recipe of installDoc into a new
// directory and installs the packed tarball there, offline: the recipe's
// package.json loses its dependencies (the tarball is installed in place
// of the package, and the module's Vite in place of its own).
func recipeProject(t *testing.T, files map[string]string, tarball string) string {
	t.Helper()
	dir := t.TempDir()
	for p, code := range files {
		if p == "package.json" {
			var pkg map[string]any
			require.NoError(t, json.Unmarshal([]byte(code), &pkg), "%s: the recipe's package.json", installDoc)
			delete(pkg, "dependencies")
			delete(pkg, "devDependencies")
			b, err := json.MarshalIndent(pkg, "", "  ")
			require.NoError(t, err)
			code = string(b)
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(code), 0o644))
	}
	require.NoError(t, wpt.CopyFile(tarball, filepath.Join(dir, filepath.Base(tarball))))
	npmRun(t, dir, nil, "install", "--offline", "./"+filepath.Base(tarball))
	return dir
}

// copyTree copies the directory from, which holds no symbolic link, into
// to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, os.CopyFS(to, os.DirFS(from)))
}

// recipeSite serves a built project's dist/ as a static folder, and the
// backend the recipes' tool calls: POST /api/keys answers {id, name,
// secret}.
func recipeSite(t *testing.T, dist string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(dist)))
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /api/keys", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Name string `json:"name"`
		}
		json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&in)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"id": "key_pkg", "name": in.Name, "secret": packageSecret})
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	return site
}

// reactMain mounts the React recipe's component as Vite's react-ts
// template mounts its App, under StrictMode, and counts the component's
// registerTool calls in window.registrations.
const reactMain = `import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ApiKeys } from "./ApiKeys";

const register = document.modelContext.registerTool.bind(document.modelContext);
(window as any).registrations = 0;
document.modelContext.registerTool = (...args: Parameters<typeof register>) => {
  (window as any).registrations++;
  return register(...args);
};
const root = document.createElement("div");
document.body.append(root);
createRoot(root).render(<StrictMode><ApiKeys /></StrictMode>);
`

// checkRecipePage opens the site's page in Chromium as shipped: the
// engine starts, the tray is defined, and the tool's secret reaches no
// agent. It returns the paths of the scripts and the engine the page
// loaded.
func checkRecipePage(t *testing.T, site string) []string {
	t.Helper()
	_, loaded := checkRecipeTab(t, site)
	return loaded
}

// checkRecipeTab is checkRecipePage that also returns the tab, for more
// questions to the page.
func checkRecipeTab(t *testing.T, site string) (*tab, []string) {
	t.Helper()
	tb := openTab(t, plain)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(site+"/")))
	tb.poll(`window.veil`)
	require.Empty(t, eval[string](tb, `veil.ready.then(() => "", (e) => e.message)`), "veil.ready")
	require.Equal(t, "worker", eval[string](tb, `veil.mode`))
	tb.poll(`customElements.get("veil-secrets") !== undefined`)
	view := eval[string](tb, `(async () => {
		for (;;) {
			const t = (await document.modelContext.getTools()).find((t) => t.name === "generate_api_key");
			if (t) return document.modelContext.executeTool(t, {name: "ci"});
			await new Promise((r) => setTimeout(r, 10));
		}
	})()`)
	assert.Contains(t, view, "key_pkg")
	assertWithheld(t, view, packageSecret, "generate_api_key")
	return tb, eval[[]string](tb, `performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname)`)
}

// TestPackage: the package holds the runtime and its types, and no
// JavaScript entry a bundle would break; docs/install.md's Vite recipes
// build, with the package installed from its tarball, into sites where the
// runtime starts and withholds a value marked x-sensitive.
func TestPackage(t *testing.T) {
	t.Parallel() // in a tab of its own
	if os.Getenv(envSkipNPM) == "1" {
		t.Skipf("%s=1: npm is not used", envSkipNPM)
	}
	_, err := exec.LookPath("npm")
	require.NoError(t, err, "npm is needed (make test installs it), or set %s=1 to skip", envSkipNPM)
	bin, err := filepath.Abs(filepath.Join(moduleRoot, "node_modules", ".bin"))
	require.NoError(t, err)
	for _, tool := range []string{"vite", "tsc"} {
		_, err := os.Stat(filepath.Join(bin, tool))
		require.NoError(t, err, "%s is missing: run npm ci at the module root (make test does), or set %s=1 to skip", tool, envSkipNPM)
	}
	// The recipes' scripts find the module's Vite, as their own.
	withBin := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}

	tarball, pkg := pack(t)
	recipes := recipeFiles(t, installDoc)
	require.Contains(t, recipes, "vite", "%s: the Vite recipe", installDoc)
	require.Contains(t, recipes, "vite-import", "%s: the recipe that imports webmcp.js", installDoc)

	t.Run("contents", func(t *testing.T) {
		assert.Equal(t, "@veilmcp/veil", pkg.Name)
		var paths []string
		for _, f := range pkg.Files {
			paths = append(paths, f.Path)
		}
		for _, f := range build.Files {
			assert.Contains(t, paths, "dist/"+f)
			if f != "webmcp.d.ts" {
				assert.Contains(t, paths, "dist/"+f+".br")
				assert.Contains(t, paths, "dist/"+f+".gz")
			}
		}
		assert.NotContains(t, paths, "dist/webmcp.d.ts.br", "the types' compressed copies stay out")
		assert.NotContains(t, paths, "dist/webmcp.d.ts.gz", "the types' compressed copies stay out")
		// What others put in place ships too: the license at the root,
		// the notices in dist/.
		if _, err := os.Stat(filepath.Join(moduleRoot, "LICENSE")); err == nil {
			assert.Contains(t, paths, "LICENSE")
		}
		entries, err := os.ReadDir(distDir)
		require.NoError(t, err)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "THIRD_PARTY_NOTICES") {
				assert.Contains(t, paths, "dist/"+e.Name())
			}
		}
	})

	require.Contains(t, recipes, "react", "%s: the React recipe", installDoc)
	app := recipeProject(t, recipes["vite"], tarball)
	// Vite's own types ("vite/client" in the recipe's tsconfig.json), as
	// the recipe's devDependencies would install them: the module's Vite.
	require.NoError(t, os.Symlink(filepath.Join(bin, "..", "vite"), filepath.Join(app, "node_modules", "vite")))
	// The other recipe is the same project with its own files; copied
	// before the build, so that its public/ is its own.
	imported := t.TempDir()
	copyTree(t, app, imported)
	reactApp := t.TempDir()
	copyTree(t, app, reactApp)

	t.Run("exports", func(t *testing.T) {
		// A bundler finds no JavaScript at the package's entry; each file
		// is under dist/.
		cmd := exec.Command("node", "--input-type=module", "-e", `
			const out = {};
			for (const s of ["@veilmcp/veil", "@veilmcp/veil/dist/webmcp.js", "@veilmcp/veil/dist/veil.wasm", "@veilmcp/veil/package.json"]) {
				try { out[s] = import.meta.resolve(s).replace(/^.*\/node_modules\//, ""); } catch (e) { out[s] = e.code; }
			}
			console.log(JSON.stringify(out));`)
		cmd.Dir = app
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "resolving the exports: %s", out)
		var got map[string]string
		require.NoError(t, json.Unmarshal(out, &got), "%s", out)
		assert.Equal(t, map[string]string{
			"@veilmcp/veil":                "ERR_PACKAGE_PATH_NOT_EXPORTED",
			"@veilmcp/veil/dist/webmcp.js": "@veilmcp/veil/dist/webmcp.js",
			"@veilmcp/veil/dist/veil.wasm": "@veilmcp/veil/dist/veil.wasm",
			"@veilmcp/veil/package.json":   "@veilmcp/veil/package.json",
		}, got)
	})

	t.Run("types", func(t *testing.T) {
		t.Parallel() // its own directory; the builds overlap the pages' waits
		// The recipe's tsconfig.json without the package's types: the
		// error a newcomer met, which the types line takes away.
		var cfg struct {
			CompilerOptions map[string]any `json:"compilerOptions"`
			Include         []string       `json:"include"`
		}
		require.NoError(t, json.Unmarshal([]byte(recipes["vite"]["tsconfig.json"]), &cfg), "the recipe's tsconfig.json")
		types, _ := cfg.CompilerOptions["types"].([]any)
		require.Contains(t, types, "@veilmcp/veil", "%s: the recipe's tsconfig.json names the package's types", installDoc)
		for _, with := range []bool{true, false} {
			if !with {
				cfg.CompilerOptions["types"] = slices.DeleteFunc(slices.Clone(types), func(v any) bool { return v == "@veilmcp/veil" })
			}
			b, err := json.Marshal(cfg)
			require.NoError(t, err)
			dir := t.TempDir()
			require.NoError(t, os.Symlink(filepath.Join(app, "node_modules"), filepath.Join(dir, "node_modules")))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "tsconfig.json"), b, 0o644))
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "main.ts"), []byte(
				recipes["vite"]["src/main.ts"]+"\nconst mode: 'worker' | 'main' = veil.mode;\nvoid mode;\n"), 0o644))
			cmd := exec.Command(filepath.Join(bin, "tsc"), "--strict", "-p", ".")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if with {
				assert.NoError(t, err, "tsc over the recipe's main.ts with the package's types:\n%s", out)
			} else {
				assert.Error(t, err, "tsc without the package's types")
				assert.Contains(t, string(out), "modelContext", "tsc without the package's types")
			}
		}
	})

	t.Run("react", func(t *testing.T) {
		t.Parallel() // its own directory; the builds overlap the pages' waits
		// The React recipe, with the package from the tarball and the
		// @types/react the module pins.
		dir := t.TempDir()
		for p, code := range recipes["react"] {
			writeTestFile(t, filepath.Join(dir, filepath.FromSlash(p)), code)
		}
		modules := filepath.Join(dir, "node_modules")
		require.NoError(t, os.Mkdir(modules, 0o755))
		// A copy, as npm installs it beside @types/react: TypeScript
		// resolves react/jsx-runtime from where the package really is.
		copyTree(t, filepath.Join(app, "node_modules", "@veilmcp"), filepath.Join(modules, "@veilmcp"))
		for _, m := range []string{"@types", "csstype"} {
			require.NoError(t, os.Symlink(filepath.Join(bin, "..", m), filepath.Join(modules, m)))
		}
		cmd := exec.Command(filepath.Join(bin, "tsc"), "--strict", "-p", ".")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		assert.NoError(t, err, "tsc --strict over the React recipe:\n%s", out)
	})

	t.Run("react-vite", func(t *testing.T) {
		t.Parallel() // its own directory; the builds overlap the pages' waits
		// The React recipe's component in the Vite project, mounted as
		// Vite's react-ts template mounts its App, under StrictMode, and
		// built as development (React runs StrictMode's second effect
		// only there): the effect registers, aborts and registers again,
		// the page logs no error, and the tool is there once and works.
		for p, code := range recipes["react"] {
			if strings.HasPrefix(p, "src/") {
				writeTestFile(t, filepath.Join(reactApp, filepath.FromSlash(p)), code)
			}
		}
		require.NoError(t, os.Remove(filepath.Join(reactApp, "src", "main.ts")))
		writeTestFile(t, filepath.Join(reactApp, "src", "main.tsx"), reactMain)
		page, err := os.ReadFile(filepath.Join(reactApp, "index.html"))
		require.NoError(t, err)
		require.Contains(t, string(page), `src="/src/main.ts"`, "%s: the Vite recipe's index.html", installDoc)
		writeTestFile(t, filepath.Join(reactApp, "index.html"), strings.Replace(string(page), `src="/src/main.ts"`, `src="/src/main.tsx"`, 1))
		// Vite's esbuild reads "jsx" from the project's tsconfig.json.
		writeTestFile(t, filepath.Join(reactApp, "tsconfig.json"), recipes["react"]["tsconfig.json"])
		for _, m := range []string{"react", "react-dom", "scheduler"} {
			require.NoError(t, os.Symlink(filepath.Join(bin, "..", m), filepath.Join(reactApp, "node_modules", m)))
		}
		npmRun(t, reactApp, withBin, "run", "veil")
		vite := exec.Command(filepath.Join(bin, "vite"), "build")
		vite.Dir = reactApp
		vite.Env = append(os.Environ(), "NODE_ENV=development")
		out, err := vite.CombinedOutput()
		require.NoError(t, err, "vite build:\n%s", out)
		tb, loaded := checkRecipeTab(t, recipeSite(t, filepath.Join(reactApp, "dist")).URL)
		assert.Contains(t, loaded, "/veil/webmcp.js")
		assert.Equal(t, 2, eval[int](tb, `window.registrations`), "StrictMode's effect registered twice (a development build)")
		assert.Equal(t, 1, eval[int](tb, `document.modelContext.getTools().then((ts) => ts.filter((t) => t.name === "generate_api_key").length)`),
			"the tool, once: the first registration was aborted")
	})

	t.Run("vite", func(t *testing.T) {
		t.Parallel() // its own directory; the builds overlap the pages' waits
		npmRun(t, app, withBin, "run", "build")
		dist := filepath.Join(app, "dist")
		for _, f := range build.Files {
			assert.FileExists(t, filepath.Join(dist, "veil", f), "the build holds the runtime under veil/")
		}
		loaded := checkRecipePage(t, recipeSite(t, dist).URL)
		assert.Contains(t, loaded, "/veil/webmcp.js")
		assert.Contains(t, loaded, "/veil/veil-secrets.js")
	})

	t.Run("vite-import", func(t *testing.T) {
		t.Parallel() // its own directory; the builds overlap the pages' waits
		for p, code := range recipes["vite-import"] {
			require.NoError(t, os.WriteFile(filepath.Join(imported, filepath.FromSlash(p)), []byte(code), 0o644))
		}
		npmRun(t, imported, withBin, "run", "build")
		dist := filepath.Join(imported, "dist")
		bundles, err := filepath.Glob(filepath.Join(dist, "assets", "*.js"))
		require.NoError(t, err)
		require.Len(t, bundles, 1, "one bundle")
		b, err := os.ReadFile(bundles[0])
		require.NoError(t, err)
		assert.Contains(t, string(b), "modelContextTesting", "the bundle holds the runtime")
		loaded := checkRecipePage(t, recipeSite(t, dist).URL)
		assert.False(t, slices.Contains(loaded, "/veil/webmcp.js"), "the runtime came with the bundle: %v", loaded)
		assert.Contains(t, loaded, "/veil/veil-secrets.js", "the tray, from the folder the meta names")
	})
}
