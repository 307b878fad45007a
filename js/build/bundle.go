package build

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/veilmcp/veil/js"
)

// bundles maps each script Dist writes from ES modules to its entry
// module in package js: webmcp.js is js/webmcp/main.js and what it
// imports, bundled into one classic script.
var bundles = map[string]string{"webmcp.js": "webmcp/main.js"}

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
// says, 'use strict' first. document.currentScript is still the script's
// own tag while the bundle's first statements run.
func bundle(name string) ([]byte, error) {
	entry, ok := bundles[name]
	if !ok {
		return nil, fmt.Errorf("bundling %s: no entry module", name)
	}
	const ns = "veil-js"
	res := api.Build(api.BuildOptions{
		EntryPoints:       []string{entry},
		Bundle:            true,
		Write:             false,
		Format:            api.FormatIIFE,
		Target:            api.ES2022,
		Platform:          api.PlatformBrowser,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		KeepNames:         namesSeen[name],
		Charset:           api.CharsetUTF8,
		LegalComments:     api.LegalCommentsNone,
		Outfile:           name,
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
					s := string(src)
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
