package wpt

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInject(t *testing.T) {
	tag := runtimeTag(ModeRuntime)
	tests := []struct {
		name, page, want string
	}{
		{"after head", `<!DOCTYPE html><html><head><title>t</title></head>`, `<!DOCTYPE html><html><head>` + tag + `<title>t</title></head>`},
		{"head with attributes", `<HEAD lang="en"><meta charset=utf-8>`, `<HEAD lang="en">` + tag + `<meta charset=utf-8>`},
		{"header is not head", `<!doctype html><html><body><header>x</header>`, `<!doctype html><html>` + tag + `<body><header>x</header>`},
		{"after html", "<!DOCTYPE html>\n<html lang=en>\n<meta charset=utf-8>", "<!DOCTYPE html>\n<html lang=en>" + tag + "\n<meta charset=utf-8>"},
		{"after the doctype", "<!DOCTYPE html>\n<meta charset=utf-8>", "<!DOCTYPE html>" + tag + "\n<meta charset=utf-8>"},
		{"after a comment and the doctype", "<!-- c --> <!doctype html><title>t</title>", "<!-- c --> <!doctype html>" + tag + "<title>t</title>"},
		{"byte order mark", "\uFEFF<!DOCTYPE html><p>", "\uFEFF<!DOCTYPE html>" + tag + "<p>"},
		{"no doctype", `<meta charset=utf-8><p>x`, tag + `<meta charset=utf-8><p>x`},
		{"empty", ``, tag},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, string(inject([]byte(tt.page), tag)), "inject(%q)", tt.page)
		})
	}
}

func TestIsPage(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"/a.html", true},
		{"/a.HTM", true},
		{"/a.https.html", true},
		{"/a.js", false},
		{"/a.html.headers", false},
		{"/dir/", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, isPage(tt.name), "isPage(%q)", tt.name)
	}
}
