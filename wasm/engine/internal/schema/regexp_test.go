package schema

import (
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/pattern"
)

// pageRegexp stands in for the browser's RegExp: it drops lookarounds,
// runs the rest on Go's regexp, and counts the patterns it compiles.
type pageRegexp struct{ compiled int }

func (p *pageRegexp) compile(src string) (jsonschema.Regexp, error) {
	p.compiled++
	return regexp.Compile(regexp.MustCompile(`\(\?<?[=!][^)]*\)`).ReplaceAllString(src, ""))
}

// TestRegexpEngineChoosesRE2First: a pattern RE2 gives its ECMA-262
// meaning never reaches the page's RegExp; one that needs the page's is
// refused without one, and refused when it can backtrack without bound.
func TestRegexpEngineChoosesRE2First(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		withPage bool
		wantErr  string // "" when it compiles
		viaPage  bool
	}{
		{"catastrophic on RE2", `^(a+)+$`, true, "", false},
		{"lookahead with a page", `^(?=.*\d).{8,}$`, true, "", true},
		{"lookahead without a page", `^(?=.*\d).{8,}$`, false, "lookaround", false},
		{"exponential on the page", `^(?=a)(a+)+$`, true, "exponential", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := &pageRegexp{}
			var engine jsonschema.RegexpEngine
			if tt.withPage {
				engine = page.compile
			}
			var work atomic.Int64
			work.Store(pattern.MaxBacktrackingWork)
			re, err := RegexpEngine(engine, &work)(tt.src)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, err.Error(), strconv.Quote(tt.src), "the error names the pattern")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.src, re.String())
			assert.Equal(t, tt.viaPage, page.compiled > 0, "compiled by the page's RegExp")
		})
	}
}

// TestPagePatternsRunOnShortStrings: a pattern the page's RegExp runs
// matches strings up to pattern.MaxBacktrackingInput code units, and
// pattern.MaxBacktrackingWork in all; past either it panics with
// TooLongForPattern for the caller to fail closed.
func TestPagePatternsRunOnShortStrings(t *testing.T) {
	page := &pageRegexp{}
	var work atomic.Int64
	work.Store(pattern.MaxBacktrackingWork)
	re, err := RegexpEngine(page.compile, &work)(`(?=x)y`)
	require.NoError(t, err)
	assert.True(t, re.MatchString(strings.Repeat("y", pattern.MaxBacktrackingInput)))

	long := func(s string) (got *TooLongForPattern) {
		defer func() { got, _ = recover().(*TooLongForPattern) }()
		re.MatchString(s)
		return nil
	}
	got := long(strings.Repeat("y", pattern.MaxBacktrackingInput+1))
	require.NotNil(t, got, "a string past the bound panics")
	assert.Equal(t, TooLongForPattern{Pattern: `(?=x)y`, Length: pattern.MaxBacktrackingInput + 1}, *got)

	work.Store(10)
	got = long("yyyyyyyyyyy")
	require.NotNil(t, got, "strings past the work left panic")
	assert.True(t, got.Total, "short enough alone, too long in all")
}
