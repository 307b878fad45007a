package serve

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	older = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	newer = older.Add(time.Hour)
)

func testFS() fstest.MapFS {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), ModTime: older} }
	return fstest.MapFS{
		"webmcp.js":       file("JS"),
		"webmcp.js.br":    file("JS-BR"),
		"webmcp.js.gz":    file("JS-GZ"),
		"veil.wasm":       file("\x00asm"),
		"veil.wasm.br":    file("WASM-BR"),
		"worker.js":       file("WORKER"),
		"webmcp.d.ts":     file("TS"),
		"README":          file("readme"),
		".veil.wasm.tmp":  file("partial"),
		"sub/a.js":        file("A"),
		"sub/.hidden.js":  file("H"),
		"stale.js":        {Data: []byte("NEW"), ModTime: newer},
		"stale.js.br":     file("OLD-BR"),
		"embedded.js":     {Data: []byte("E")},
		"embedded.js.gz":  {Data: []byte("E-GZ")},
		"dir.js/index.js": file("D"),
	}
}

func TestHandler(t *testing.T) {
	const js = "text/javascript; charset=utf-8"
	tests := []struct {
		name, method, path, acceptEncoding string
		status                             int
		contentType, encoding              string
		vary                               bool
		body                               string
	}{
		{"script", "GET", "/webmcp.js", "", 200, js, "", true, "JS"},
		{"script, brotli", "GET", "/webmcp.js", "gzip, deflate, br, zstd", 200, js, "br", true, "JS-BR"},
		{"script, gzip", "GET", "/webmcp.js", "gzip", 200, js, "gzip", true, "JS-GZ"},
		{"brotli refused with q=0", "GET", "/webmcp.js", "br;q=0, gzip", 200, js, "gzip", true, "JS-GZ"},
		{"q=0 with spaces", "GET", "/webmcp.js", "br ; q = 0, gzip;q=0.5", 200, js, "gzip", true, "JS-GZ"},
		{"star", "GET", "/webmcp.js", "*", 200, js, "br", true, "JS-BR"},
		{"star, brotli refused", "GET", "/webmcp.js", "br;q=0, *", 200, js, "gzip", true, "JS-GZ"},
		{"star refused", "GET", "/webmcp.js", "*;q=0", 200, js, "", true, "JS"},
		{"identity only", "GET", "/webmcp.js", "identity", 200, js, "", true, "JS"},
		{"coding names ignore case", "GET", "/webmcp.js", "GZIP", 200, js, "gzip", true, "JS-GZ"},
		{"malformed q refuses", "GET", "/webmcp.js", "br;q=x", 200, js, "", true, "JS"},
		{"wasm, brotli", "GET", "/veil.wasm", "br", 200, "application/wasm", "br", true, "WASM-BR"},
		{"wasm, no gzip variant", "GET", "/veil.wasm", "gzip", 200, "application/wasm", "", true, "\x00asm"},
		{"no variant, no Vary", "GET", "/worker.js", "br, gzip", 200, js, "", false, "WORKER"},
		{"type declarations", "GET", "/webmcp.d.ts", "", 200, "text/plain; charset=utf-8", "", false, "TS"},
		{"unknown extension", "GET", "/README", "", 200, "application/octet-stream", "", false, "readme"},
		{"stale variant skipped", "GET", "/stale.js", "br", 200, js, "", true, "NEW"},
		{"no modification times", "GET", "/embedded.js", "gzip", 200, js, "gzip", true, "E-GZ"},
		{"nested", "GET", "/sub/a.js", "", 200, js, "", false, "A"},
		{"HEAD", "HEAD", "/webmcp.js", "br", 200, js, "br", true, ""},
		{"POST", "POST", "/webmcp.js", "", 405, "", "", false, ""},
		{"missing", "GET", "/nope.js", "", 404, "", "", false, ""},
		{"root", "GET", "/", "", 404, "", "", false, ""},
		{"directory", "GET", "/sub", "", 404, "", "", false, ""},
		{"directory named like a script", "GET", "/dir.js", "br", 404, "", "", false, ""},
		{"dot file", "GET", "/.veil.wasm.tmp", "", 404, "", "", false, ""},
		{"nested dot file", "GET", "/sub/.hidden.js", "", 404, "", "", false, ""},
		{"dot segments cleaned", "GET", "/sub/../webmcp.js", "", 200, js, "", true, "JS"},
		{"out of the root", "GET", "/../../etc/passwd", "", 404, "", "", false, ""},
	}
	h := Handler(testFS())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/", nil)
			r.URL.Path = tt.path
			if tt.acceptEncoding != "" {
				r.Header.Set("Accept-Encoding", tt.acceptEncoding)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			res := w.Result()
			require.Equal(t, tt.status, res.StatusCode, "status of %s %s", tt.method, tt.path)
			assert.Equal(t, tt.encoding, res.Header.Get("Content-Encoding"), "Content-Encoding")
			if tt.vary {
				assert.Equal(t, []string{"Accept-Encoding"}, res.Header.Values("Vary"), "Vary")
			} else {
				assert.Empty(t, res.Header.Values("Vary"), "Vary")
			}
			if tt.status != 200 {
				if tt.status == 405 {
					assert.Equal(t, "GET, HEAD", res.Header.Get("Allow"), "Allow")
				}
				return
			}
			assert.Equal(t, tt.contentType, res.Header.Get("Content-Type"), "Content-Type")
			assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
			assert.Equal(t, "no-cache", res.Header.Get("Cache-Control"))
			assert.NotEmpty(t, res.Header.Get("ETag"), "ETag")
			assert.Equal(t, tt.body, w.Body.String(), "body")
		})
	}
}

func TestHandlerValidators(t *testing.T) {
	h := Handler(testFS())
	get := func(accept, ifNoneMatch, rng string) *http.Response {
		r := httptest.NewRequest("GET", "/webmcp.js", nil)
		r.Header.Set("Accept-Encoding", accept)
		if ifNoneMatch != "" {
			r.Header.Set("If-None-Match", ifNoneMatch)
		}
		if rng != "" {
			r.Header.Set("Range", rng)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Result()
	}
	br, gz := get("br", "", ""), get("gzip", "", "")
	require.NotEqual(t, br.Header.Get("ETag"), gz.Header.Get("ETag"), "each encoding has its own ETag")

	assert.Equal(t, 304, get("br", br.Header.Get("ETag"), "").StatusCode, "If-None-Match with the brotli ETag")
	assert.Equal(t, 200, get("gzip", br.Header.Get("ETag"), "").StatusCode, "the brotli ETag does not match the gzip variant")

	part := get("br", "", "bytes=0-1")
	require.Equal(t, 206, part.StatusCode, "Range")
	body, _ := io.ReadAll(part.Body)
	assert.Equal(t, "JS", string(body), "a range of the encoded bytes")
	assert.Equal(t, "br", part.Header.Get("Content-Encoding"))
}

func TestHandlerKeepsCacheControl(t *testing.T) {
	h := Handler(testFS())
	w := httptest.NewRecorder()
	w.Header().Set("Cache-Control", "public, max-age=60")
	h.ServeHTTP(w, httptest.NewRequest("GET", "/webmcp.js", nil))
	assert.Equal(t, "public, max-age=60", w.Result().Header.Get("Cache-Control"))
}

func TestHandlerNilFS(t *testing.T) {
	assert.Panics(t, func() { Handler(nil) })
}

// TestHandlerOverHTTP serves real gzip through a server and lets Go's
// client negotiate and decompress it, as a browser does.
func TestHandlerOverHTTP(t *testing.T) {
	src := bytes.Repeat([]byte("document.modelContext.registerTool({});\n"), 100)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(src)
	require.NoError(t, zw.Close())
	fsys := fstest.MapFS{
		"webmcp.js":    {Data: src, ModTime: older},
		"webmcp.js.gz": {Data: gz.Bytes(), ModTime: older},
	}
	mux := http.NewServeMux()
	mux.Handle("/veil/", http.StripPrefix("/veil", Handler(fsys)))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	res, err := http.Get(srv.URL + "/veil/webmcp.js")
	require.NoError(t, err, "GET")
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, 200, res.StatusCode)
	assert.True(t, res.Uncompressed, "the client asked for gzip and decompressed the answer")
	assert.Equal(t, src, body, "decompressed body")
	assert.Equal(t, "text/javascript; charset=utf-8", res.Header.Get("Content-Type"))
}

// sumsLine is a line of a SumsFile for a file holding data.
func sumsLine(name, data string) string {
	return fmt.Sprintf("%x  %s\n", sha256.Sum256([]byte(data)), name)
}

// TestHandlerSums: with a SumsFile, a variant is served when it and its
// file hold what the sums list, whatever their times, and never when
// either differs; a file the sums do not list falls back on the times.
func TestHandlerSums(t *testing.T) {
	at := func(data string, mod time.Time) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(data), ModTime: mod}
	}
	listed := sumsLine("veil.wasm", "WASM") + sumsLine("veil.wasm.br", "WASM-BR") + sumsLine("veil.wasm.gz", "WASM-GZ")
	tests := []struct {
		name     string
		fsys     fstest.MapFS
		encoding string
		body     string
	}{
		{"copied: variants older than the file", fstest.MapFS{
			SumsFile: at(listed, older), "veil.wasm": at("WASM", newer), "veil.wasm.br": at("WASM-BR", older), "veil.wasm.gz": at("WASM-GZ", older),
		}, "br", "WASM-BR"},
		{"binary-mode lines", fstest.MapFS{
			SumsFile: at(strings.ReplaceAll(listed, "  ", " *"), older), "veil.wasm": at("WASM", newer), "veil.wasm.br": at("WASM-BR", older),
		}, "br", "WASM-BR"},
		{"the file changed since", fstest.MapFS{
			SumsFile: at(listed, older), "veil.wasm": at("WASM2", older), "veil.wasm.br": at("WASM-BR", newer), "veil.wasm.gz": at("WASM-GZ", newer),
		}, "", "WASM2"},
		{"the brotli variant changed since", fstest.MapFS{
			SumsFile: at(listed, older), "veil.wasm": at("WASM", older), "veil.wasm.br": at("OTHER-BR", newer), "veil.wasm.gz": at("WASM-GZ", newer),
		}, "gzip", "WASM-GZ"},
		{"a variant the sums do not list", fstest.MapFS{
			SumsFile: at(sumsLine("veil.wasm", "WASM"), older), "veil.wasm": at("WASM", older), "veil.wasm.br": at("WASM-BR", newer),
		}, "", "WASM"},
		{"sums that do not parse", fstest.MapFS{
			SumsFile: at(listed+"not a sum\n", older), "veil.wasm": at("WASM", older), "veil.wasm.br": at("WASM-BR", newer),
		}, "", "WASM"},
		{"a file the sums do not list, variant newer", fstest.MapFS{
			SumsFile: at(listed, older), "other.js": at("JS", older), "other.js.br": at("JS-BR", newer),
		}, "br", "JS-BR"},
		{"a file the sums do not list, variant older", fstest.MapFS{
			SumsFile: at(listed, older), "other.js": at("JS", newer), "other.js.br": at("JS-BR", older),
		}, "", "JS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := "/veil.wasm"
			if _, ok := tt.fsys["other.js"]; ok {
				file = "/other.js"
			}
			r := httptest.NewRequest("GET", file, nil)
			r.Header.Set("Accept-Encoding", "br, gzip")
			w := httptest.NewRecorder()
			Handler(tt.fsys).ServeHTTP(w, r)
			require.Equal(t, 200, w.Code, "status of GET %s", file)
			assert.Equal(t, tt.encoding, w.Result().Header.Get("Content-Encoding"), "Content-Encoding")
			assert.Equal(t, tt.body, w.Body.String(), "body")
			assert.Equal(t, []string{"Accept-Encoding"}, w.Result().Header.Values("Vary"), "Vary")
		})
	}
}

// TestHandlerBrokenSums: a SumsFile that does not parse is named in one
// log line, with the line that is wrong, however many requests find it;
// the files are served uncompressed.
func TestHandlerBrokenSums(t *testing.T) {
	var logged bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	fsys := fstest.MapFS{
		SumsFile:       {Data: []byte(sumsLine("veil.wasm", "WASM") + "not a sum\n"), ModTime: older},
		"veil.wasm":    {Data: []byte("WASM"), ModTime: older},
		"veil.wasm.br": {Data: []byte("WASM-BR"), ModTime: newer},
	}
	h := Handler(fsys)
	for range 3 {
		r := httptest.NewRequest("GET", "/veil.wasm", nil)
		r.Header.Set("Accept-Encoding", "br")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		require.Equal(t, 200, w.Code)
		assert.Empty(t, w.Result().Header.Get("Content-Encoding"), "Content-Encoding")
	}
	assert.Equal(t, 1, strings.Count(logged.String(), "level=WARN"), "log lines: %s", logged.String())
	assert.Contains(t, logged.String(), "SHA256SUMS cannot be used")
	assert.Contains(t, logged.String(), "line 2 of SHA256SUMS is not HEX  NAME")
}

func TestParseSums(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	tests := []struct {
		name, in, err string
	}{
		{"text mode", sum + "  veil.wasm\n", ""},
		{"binary mode", sum + " *veil.wasm\n", ""},
		{"CRLF and blank lines", sum + "  veil.wasm\r\n\r\n", ""},
		{"short sum", "abcd  veil.wasm\n", "line 1 of SHA256SUMS is not HEX  NAME"},
		{"not hex", strings.Repeat("zz", 32) + "  veil.wasm\n", "line 1 of SHA256SUMS is not HEX  NAME"},
		{"no name", sum + "\n", "line 1 of SHA256SUMS is not HEX  NAME"},
		{"a name out of the root", sum + "  ../veil.wasm\n", "line 1 of SHA256SUMS is not HEX  NAME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseSums([]byte(tt.in))
			if tt.err != "" {
				assert.EqualError(t, err, tt.err, "parseSums")
				return
			}
			require.NoError(t, err, "parseSums")
			assert.Len(t, got.of, 1)
			assert.Contains(t, got.of, "veil.wasm")
		})
	}
}
