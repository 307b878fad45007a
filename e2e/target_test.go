package e2e

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// envConformanceTarget names another WebMCP implementation to run the data
// cases against instead of Veil: the URL of its script, or the path of a
// local script file, whose directory the test server then serves under
// /target/ so that the script can load its siblings. A script whose name
// ends in .mjs loads as a module.
//
// Against a target, the checks that only Veil can pass are left out: the
// exact views of the cases (Veil's wording) and the name of the _meta key
// that lists withheld pointers (any key whose value has a "withheld" array
// will do). Every other expectation holds, and the paths a target does not
// install (navigator.modelContext, navigator.modelContextTesting) are
// reported in the log, not failed.
const envConformanceTarget = "VEIL_CONFORMANCE_TARGET"

// conformanceTarget is the script URL or file of envConformanceTarget, or
// "" for Veil's own dist/webmcp.js.
var conformanceTarget = os.Getenv(envConformanceTarget)

// targetScript returns the URL the conformance page loads the
// implementation under test from, and the directory to serve under
// /target/, if any.
func targetScript() (src, dir string, err error) {
	if conformanceTarget == "" {
		return "/dist/webmcp.js", "", nil
	}
	if u, err := url.Parse(conformanceTarget); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		return conformanceTarget, "", nil
	}
	abs, err := filepath.Abs(conformanceTarget)
	if err != nil {
		return "", "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", "", fmt.Errorf("%s: %w", envConformanceTarget, err)
	}
	return "/target/" + url.PathEscape(filepath.Base(abs)), filepath.Dir(abs), nil
}

// conformanceHTML is the page that serves every data case: conformance.js
// first, so that it keeps Chromium's own WebMCP, then the implementation.
var conformanceHTML = template.Must(template.New("conformance").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>WebMCP conformance</title>
<link rel="icon" href="data:,">
<script src="/harness.js"></script>
<script src="/conformance.js"></script>
<script src="/spec.js"></script>
<script src="{{.Src}}"{{if .Module}} type="module"{{end}} data-veil-mode="{{.Mode}}"></script>
</head>
<body>
<p>The conformance cases run here.</p>
</body>
</html>
`))

// handleConformance serves the conformance page; ?mode=worker or main
// chooses where Veil's engine runs.
func handleConformance(src string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		mode := r.URL.Query().Get("mode")
		if mode != "main" {
			mode = "worker"
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		err := conformanceHTML.Execute(w, map[string]any{
			"Src":    src,
			"Module": strings.HasSuffix(src, ".mjs"),
			"Mode":   mode,
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}
}

// conformancePage is the path of the conformance page for an engine mode.
func conformancePage(mode string) string {
	return "conformance.html?mode=" + mode
}
