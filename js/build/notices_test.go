package build

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moduleDir makes a directory holding files, name to content.
func moduleDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return dir
}

func TestNotices(t *testing.T) {
	goroot := moduleDir(t, map[string]string{"LICENSE": "Go's license\n", "PATENTS": "Go's patent grant\n", "README.md": "not a license"})
	tests := []struct {
		name    string
		files   map[string]string
		want    []string // in order
		wantErr string
	}{
		{"license", map[string]string{"LICENSE": "Apache text"}, []string{"a.example/m v1.0.0", "Apache text"}, ""},
		{"license and notice", map[string]string{"LICENSE.txt": "MIT text", "NOTICE": "Notice text"}, []string{"a.example/m v1.0.0", "MIT text", "Notice text"}, ""},
		{"copying", map[string]string{"COPYING": "BSD text"}, []string{"BSD text"}, ""},
		{"none", map[string]string{"README.md": "no license here"}, nil, "a.example/m: no license file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mods := []linked{{"a.example/m", "v1.0.0", moduleDir(t, tt.files)}}
			b, err := notices("go1.25.0", goroot, mods)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			text := string(b)
			at := strings.Index(text, "Go 1.25.0")
			require.GreaterOrEqual(t, at, 0, "Go's section")
			for _, w := range append([]string{"Go's license", "Go's patent grant"}, tt.want...) {
				i := strings.Index(text[at:], w)
				require.GreaterOrEqual(t, i, 0, "%q, in order, in:\n%s", w, text)
				at += i
			}
			assert.NotContains(t, text, "not a license")
		})
	}
}

func TestNoticesWithoutGoLicense(t *testing.T) {
	_, err := notices("go1.25.0", t.TempDir(), nil)
	assert.ErrorContains(t, err, "Go: no license file")
}

// TestLinkedModules lists this module's engine: jsonschema/v6 is linked,
// the module itself and test-only modules are not.
func TestLinkedModules(t *testing.T) {
	root, err := moduleRoot()
	require.NoError(t, err)
	gobin, err := goCommand()
	require.NoError(t, err)
	mods, err := linkedModules(gobin, root)
	require.NoError(t, err)
	var paths []string
	for _, m := range mods {
		paths = append(paths, m.path)
		assert.NotEmpty(t, m.version, m.path)
		assert.DirExists(t, m.dir, m.path)
	}
	assert.Contains(t, paths, "github.com/santhosh-tekuri/jsonschema/v6")
	assert.NotContains(t, paths, modulePath)
	assert.NotContains(t, paths, "github.com/stretchr/testify", "a test dependency is not linked")
	assert.NotContains(t, paths, "github.com/chromedp/chromedp")
}
