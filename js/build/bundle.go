package build

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/veilmcp/veil/js"
)

// bundles maps each script Dist writes from ES modules to its entry
// module in package js: webmcp.js is js/webmcp/main.js and what it
// imports, bundled into one classic script; veil-secrets.js is
// js/secrets/main.js's; veil-forms.js, veil-frames.js, veil-redeem.js
// and veil-restart.js are the entries of forms/, frames/, reveal/ and
// restart/, each bundled into one ES module (see [esModules]).
var bundles = map[string]string{"webmcp.js": "webmcp/main.js", "veil-secrets.js": "secrets/main.js", "veil-forms.js": "forms/main.js", "veil-frames.js": "frames/main.js", "veil-redeem.js": "reveal/main.js", "veil-restart.js": "restart/main.js"}

// esModules are the bundled scripts a page imports as ES modules rather
// than includes with a script tag, each loaded only when needed:
// veil-forms.js when the page has a form tool, veil-frames.js when it has
// other frames, veil-redeem.js at the first reveal of a secret_reference,
// veil-restart.js when an engine is lost. Their bundle is one module with
// one export, named here, the rest of its code local to it.
var esModules = map[string]string{"veil-forms.js": "start", "veil-frames.js": "start", "veil-redeem.js": "redeem", "veil-restart.js": "restart"}

// bundled reports whether the script called name is built from modules.
func bundled(name string) bool {
	_, ok := bundles[name]
	return ok
}

// Source is the source of the script called name as it is read and
// reviewed: the file of package js, or, for a script bundled from
// modules, its modules' text one after another, the entry first.
func Source(name string) ([]byte, error) {
	entry, ok := bundles[name]
	if !ok {
		return fs.ReadFile(js.Files, name)
	}
	src, err := fs.ReadFile(js.Files, entry)
	if err != nil {
		return nil, err
	}
	mods, err := fs.Glob(js.Files, path.Join(path.Dir(entry), "*.js"))
	if err != nil {
		return nil, err
	}
	slices.Sort(mods)
	for _, m := range mods {
		if m == entry {
			continue
		}
		b, err := fs.ReadFile(js.Files, m)
		if err != nil {
			return nil, err
		}
		src = append(src, b...)
	}
	return src, nil
}

// built returns the script called name as Dist writes it: bundled
// from its modules, or its source minified.
func built(name string) ([]byte, error) {
	if bundled(name) {
		return bundle(name)
	}
	src, err := Source(name)
	if err != nil {
		return nil, err
	}
	return minify(name, src)
}

// bundle returns the script called name built from its entry module and
// every module it imports, read from package js, as minify would write
// it: one classic script, its code inside one function (nothing declared
// at the top level of the page), minified, names kept where [namesSeen]
// says, 'use strict' first; or, for one of [esModules], one module that
// exports what its entry does. document.currentScript is still the
// script's own tag while the bundle's first statements run.
func bundle(name string) ([]byte, error) {
	entry, ok := bundles[name]
	if !ok {
		return nil, fmt.Errorf("bundling %s: no entry module", name)
	}
	const ns = "veil-js"
	names, define, err := contractNames()
	if err != nil {
		return nil, err
	}
	v, err := Version()
	if err != nil {
		return nil, err
	}
	define["VEIL_VERSION"] = strconv.Quote(v)
	format := api.FormatIIFE
	if esModules[name] != "" {
		format = api.FormatESModule
	}
	res := api.Build(api.BuildOptions{
		EntryPoints:       []string{entry},
		Bundle:            true,
		Write:             false,
		Format:            format,
		Target:            api.ES2022,
		Platform:          api.PlatformBrowser,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		KeepNames:         namesSeen[name],
		Charset:           api.CharsetUTF8,
		LegalComments:     api.LegalCommentsNone,
		Outfile:           name,
		Define:            define,
		LogLevel:          api.LogLevelSilent,
		Plugins: []api.Plugin{{
			Name: "veil-js",
			Setup: func(b api.PluginBuild) {
				// Every module comes from package js, never from the disk.
				b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
					if a.Kind == api.ResolveEntryPoint {
						return api.OnResolveResult{Path: a.Path, Namespace: ns}, nil
					}
					if !strings.HasPrefix(a.Path, "./") && !strings.HasPrefix(a.Path, "../") {
						return api.OnResolveResult{}, fmt.Errorf("%s imports %q: only the runtime's own modules (./…) can be bundled", a.Importer, a.Path)
					}
					return api.OnResolveResult{Path: path.Join(path.Dir(a.Importer), a.Path), Namespace: ns}, nil
				})
				b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: ns}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
					src, err := fs.ReadFile(js.Files, a.Path)
					if err != nil {
						return api.OnLoadResult{}, err
					}
					s, err := inlineContract(a.Path, string(src), names)
					if err != nil {
						return api.OnLoadResult{}, err
					}
					return api.OnLoadResult{Contents: &s, Loader: api.LoaderJS, ResolveDir: path.Dir(a.Path)}, nil
				})
			},
		}},
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return nil, fmt.Errorf("bundling %s: %s", name, strings.Join(msgs, ""))
	}
	if len(res.OutputFiles) != 1 {
		return nil, fmt.Errorf("bundling %s: %d output files, want 1", name, len(res.OutputFiles))
	}
	return res.OutputFiles[0].Contents, nil
}

// The contract's names (js/webmcp/contract.js) that the bundle writes as
// their values: esbuild inlines no string constant of another module, and
// an op's name where it is sent is shorter than a variable of its own.
var inlined = regexp.MustCompile(`^(?:OP|KIND|OUTCOME|ERR)_[A-Z_]+$`)

// contractNames reads the names js/webmcp/contract.js exports with their
// values, and the define option that writes those of [inlined] as their
// values.
func contractNames() (map[string]string, map[string]string, error) {
	b, err := fs.ReadFile(js.Files, "webmcp/contract.js")
	if err != nil {
		return nil, nil, err
	}
	names, define := map[string]string{}, map[string]string{}
	// A string constant, or a number (a limit, with its comment).
	for _, m := range regexp.MustCompile(`(?m)^export const ([A-Z_]+) = (?:'([^'\\]*)'|([0-9]+));(?: //.*)?$`).FindAllStringSubmatch(string(b), -1) {
		value, literal := m[2], strconv.Quote(m[2])
		if m[3] != "" {
			value, literal = m[3], m[3]
		}
		names[m[1]] = value
		if inlined.MatchString(m[1]) {
			define[m[1]] = literal
		}
	}
	if len(names) == 0 {
		return nil, nil, errors.New("bundling: js/webmcp/contract.js exports nothing")
	}
	return names, define, nil
}

var contractImport = regexp.MustCompile(`import\s*\{([^}]*)\}\s*from\s*'\./contract\.js';`)

// inlineContract takes out of the module p's import of the contract the
// names the define option writes as their values, so that they are free
// names the define replaces; it keeps the others. A name the contract
// does not export stops the bundle, as an import of it would.
func inlineContract(p, src string, names map[string]string) (string, error) {
	if p == "webmcp/contract.js" {
		return src, nil
	}
	var bad error
	out := contractImport.ReplaceAllStringFunc(src, func(imp string) string {
		var kept []string
		for _, n := range strings.Split(contractImport.FindStringSubmatch(imp)[1], ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			if _, ok := names[n]; !ok {
				bad = fmt.Errorf("bundling: %s imports %s, which js/webmcp/contract.js does not export", p, n)
			}
			if !inlined.MatchString(n) {
				kept = append(kept, n)
			}
		}
		if len(kept) == 0 {
			return ""
		}
		return "import { " + strings.Join(kept, ", ") + " } from './contract.js';"
	})
	return out, bad
}

// Version is the runtime's version, which veil.version gives the page:
// the version of the module root's package.json, the npm package's. A
// checkout and the module cache (go run …/veil-dist@version) both hold it.
func Version() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err != nil {
		return "", fmt.Errorf("reading the version: %w", err)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("reading the version from package.json: %w", err)
	}
	if !semver.MatchString(pkg.Version) {
		return "", fmt.Errorf("package.json's version %q is not MAJOR.MINOR.PATCH", pkg.Version)
	}
	return pkg.Version, nil
}

// semver is a version npm publishes: MAJOR.MINOR.PATCH with an optional
// pre-release.
var semver = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)
