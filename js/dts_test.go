package js_test

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js"
	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/risk"
)

// member is one member of a TypeScript interface or Go JSON object: its
// name and whether it may be absent.
type member struct {
	name     string
	optional bool
}

// interfaceMembers reads the members of interface name in a declaration
// file: the lines at the interface's own depth that declare a property.
func interfaceMembers(t *testing.T, dts, name string) []member {
	t.Helper()
	start := regexp.MustCompile(`(?m)^(\s*)interface ` + name + ` \{$`).FindStringSubmatchIndex(dts)
	require.NotNil(t, start, "interface %s in webmcp.d.ts", name)
	indent := dts[start[2]:start[3]] + "  "
	prop := regexp.MustCompile(`^` + indent + `(?:readonly )?([A-Za-z_][A-Za-z0-9_]*)(\??):`)
	var ms []member
	for _, line := range strings.Split(dts[start[1]:], "\n") {
		if strings.HasPrefix(line, indent[:len(indent)-2]+"}") {
			break
		}
		if m := prop.FindStringSubmatch(line); m != nil {
			ms = append(ms, member{m[1], m[2] == "?"})
		}
	}
	require.NotEmpty(t, ms, "interface %s declares no property", name)
	return ms
}

// jsonMembers lists the members a Go struct encodes to: each exported
// field's JSON name, optional when its tag omits an empty value.
func jsonMembers(v any) []member {
	var ms []member
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		f := rt.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		ms = append(ms, member{name, slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool {
			return o == "omitempty" || o == "omitzero"
		})})
	}
	return ms
}

// TestDeclarationsMatchTheEngine holds the TypeScript types that mirror
// what the engine sends the page to the Go types it encodes: the same
// members, optional exactly where the engine may leave one out.
func TestDeclarationsMatchTheEngine(t *testing.T) {
	b, err := js.Files.ReadFile("webmcp.d.ts")
	require.NoError(t, err)
	dts := string(b)
	tests := []struct {
		ts  string
		go_ any
	}{
		{"VeilItem", engine.Item{}},
		{"VeilFact", risk.Fact{}},
		{"VeilDecision", risk.Entry{}},
		{"VeilTrust", risk.State{}},
	}
	for _, tt := range tests {
		t.Run(tt.ts, func(t *testing.T) {
			want := jsonMembers(tt.go_)
			got := interfaceMembers(t, dts, tt.ts)
			sort := func(ms []member) {
				slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.name, b.name) })
			}
			sort(want)
			sort(got)
			assert.Equal(t, want, got, "%s against %T's JSON", tt.ts, tt.go_)
		})
	}
}
