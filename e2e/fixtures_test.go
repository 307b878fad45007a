package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/corpus"
)

// A fixture is the text a real encoder writes, held in a case's fixture
// file so that no escape in it is written by hand. Each is made by one
// of these, by case name: a Python program run by python3, or a Go
// function.
type fixtureMaker struct {
	python string
	golang func() string
}

// goJSON is Go's json.Marshal of v, with its HTML-safe escapes.
func goJSON(v any) func() string {
	return func() string {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
}

var fixtureMakers = map[string]fixtureMaker{
	"d-echo-python-json": {python: `import json
print(json.dumps({"user": "Müller", "pw": "Müller#4471 äö", "city": "Köln"}))`},
	"d-echo-python-dict": {python: `print({"user": "ada", "pw": "C:\\Users\\ada\\tok-4471", "city": "Köln"})`},
	"d-echo-python-url": {python: `from urllib.parse import urlencode
print("https://app.example/reset?" + urlencode({"user": "ada", "token": "tok/+ä=91 x"}))`},
	"d-echo-python-html": {python: `import html
print("<p>Your key: <code>" + html.escape("<tok>&\"91'") + "</code></p>")`},
	"d-echo-python-number": {python: `import json
print(json.dumps({"pin": float(80451937), "note": "PIN " + str(float(80451937))}))`},
	"c-reference-python-json": {python: `import json
print(json.dumps({"type": "secret_reference", "id": "ID-Ölfeld-91", "label": "API key", "redeemUrl": "/r/ID-Ölfeld-91"}))`},
	"c-reference-python-dict": {python: `print({"type": "secret_reference", "id": "ID-dict-ref-73", "label": "API key", "redeemUrl": "/r/ID-dict-ref-73"})`},
	"d-echo-go-json": {golang: goJSON(struct {
		User string `json:"user"`
		PW   string `json:"pw"`
	}{"ada", "tok>91&<b>"})},
	"d-echo-go-nested": {golang: func() string {
		inner := goJSON(map[string]string{"pw": "Müller<91>", "user": "ada"})()
		return goJSON(map[string]string{"record": inner, "source": "audit"})()
	}},
	"d-echo-go-member-name": {golang: goJSON(map[string]map[string]string{
		"byToken": {"tok-Ærø&77": "revoked"},
	})},
}

// TestFixtures checks that every case's fixture is what its encoder
// writes today; -update rewrites them, and the copies a returns.json holds
// in its strings. The Python fixtures need python3,
// which the suite does not otherwise need: without it they are not
// checked, and the test says so.
func TestFixtures(t *testing.T) {
	t.Parallel() // in a tab of its own
	cases := map[string]*corpus.Case{}
	for _, c := range loadCases(t) {
		cases[c.Name] = c
		if c.Fixture != nil {
			_, ok := fixtureMakers[c.Name]
			assert.True(t, ok, "case %s has a fixture but no maker in fixtureMakers", c.Name)
		}
	}
	python, _ := exec.LookPath("python3")
	for name, m := range fixtureMakers {
		t.Run(name, func(t *testing.T) {
			c := cases[name]
			require.NotNil(t, c, "no case %s", name)
			var got string
			if m.golang != nil {
				got = m.golang()
			} else {
				if python == "" {
					t.Skip("python3 is not installed; the committed fixture is not checked")
				}
				cmd := exec.Command(python, "-c", m.python)
				cmd.Env = append(os.Environ(), "PYTHONIOENCODING=utf-8")
				out, err := cmd.Output()
				require.NoError(t, err, "python3 -c %q", m.python)
				got = strings.TrimSuffix(string(out), "\n")
			}
			if *update {
				c.Set("fixture", got+"\n")
				if c.Returns != nil && c.Fixture != nil && *c.Fixture != got {
					// JSON escapes character by character: the fixture's
					// escaped text is where it stands in returns.json.
					old, now := corpus.Quote(*c.Fixture), corpus.Quote(got)
					c.Set("returns.json", strings.ReplaceAll(*c.Returns, old[1:len(old)-1], now[1:len(now)-1])+"\n")
				}
				require.NoError(t, c.Write())
				return
			}
			require.NotNil(t, c.Fixture, "case %s has no fixture file (run with -update)", name)
			assert.Equal(t, got, *c.Fixture, "the fixture of %s (run with -update to write it)", filepath.Base(c.File))
		})
	}
}
