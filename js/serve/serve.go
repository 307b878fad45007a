// Package serve serves Veil's distribution (the directory that
// [github.com/veilmcp/veil/js/build.Dist] writes) to browsers: scripts and
// the engine with the types browsers require, and the precompressed .br
// and .gz files to clients that accept them.
//
// One line mounts the runtime under /veil/:
//
//	mux.Handle("/veil/", http.StripPrefix("/veil", serve.Handler(os.DirFS("dist"))))
//
// and the page includes it with <script src="/veil/webmcp.js"></script>.
package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// types are the Content-Types of the files a distribution holds. They don't
// come from the system's MIME tables, which differ between machines: some
// map .ts to video/mp2t, and a browser refuses to compile WebAssembly
// streamed with any type but application/wasm.
var types = map[string]string{
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".wasm": "application/wasm",
	".ts":   "text/plain; charset=utf-8",
	".json": "application/json",
	".map":  "application/json",
	".css":  "text/css; charset=utf-8",
	".html": "text/html; charset=utf-8",
	".svg":  "image/svg+xml",
	".txt":  "text/plain; charset=utf-8",
}

// encodings are the precompressed variants looked for beside each file,
// in the order the server prefers them.
var encodings = []struct{ token, ext string }{
	{"br", ".br"},
	{"gzip", ".gz"},
}

// Handler returns a handler that serves the files of fsys, GET and HEAD
// only. The request path, less its leading "/", names the file.
//
// When a file has a precompressed variant beside it (name.br, name.gz)
// and the request's Accept-Encoding allows it, the variant is served with
// Content-Encoding: br (preferred) or gzip; every response for such a
// file carries Vary: Accept-Encoding. Content-Type comes from the name
// without the variant's extension: .wasm is application/wasm, .js is
// text/javascript.
//
// Responses carry a strong ETag (a hash of the bytes sent), honour
// If-None-Match and Range, and say X-Content-Type-Options: nosniff and
// Cache-Control: no-cache (so a browser revalidates: the file names don't
// change when the runtime does), unless Cache-Control was already set.
// Directories, names with a segment starting with "." and files that
// aren't regular get 404; there are no listings.
func Handler(fsys fs.FS) http.Handler {
	if fsys == nil {
		panic("serve: Handler needs a file system")
	}
	return &handler{fsys: fsys}
}

type handler struct {
	fsys fs.FS
	// etags caches each file's ETag by name, size and modification time.
	etags sync.Map // etagKey -> string
}

type etagKey struct {
	name string
	size int64
	mod  time.Time
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if !visible(name) {
		http.NotFound(w, r)
		return
	}
	f, fi, err := open(h.fsys, name)
	if err != nil {
		fail(w, r, err)
		return
	}
	hd := w.Header()
	enc, vary, mod := "", false, fi.ModTime()
	for _, e := range encodings {
		vf, vfi, err := open(h.fsys, name+e.ext)
		if err != nil {
			continue
		}
		vary = true
		// A variant older than its file is stale: the file was rebuilt
		// and the variant wasn't.
		stale := !mod.IsZero() && vfi.ModTime().Before(mod)
		if enc == "" && !stale && accepts(r.Header.Values("Accept-Encoding"), e.token) {
			f.Close()
			f, fi, enc = vf, vfi, e.token
			continue
		}
		vf.Close()
	}
	defer f.Close()

	if vary {
		hd.Add("Vary", "Accept-Encoding")
	}
	if enc != "" {
		hd.Set("Content-Encoding", enc)
	}
	hd.Set("Content-Type", contentType(name))
	hd.Set("X-Content-Type-Options", "nosniff")
	if hd.Get("Cache-Control") == "" {
		hd.Set("Cache-Control", "no-cache")
	}

	content, err := seeker(f)
	if err != nil {
		fail(w, r, err)
		return
	}
	tag, err := h.etag(name+"\x00"+enc, fi, content)
	if err != nil {
		fail(w, r, err)
		return
	}
	hd.Set("ETag", tag)
	http.ServeContent(w, r, name, fi.ModTime(), content)
}

// visible reports whether name may be served: a valid path, not the root,
// with no segment starting with ".".
func visible(name string) bool {
	if name == "" || name == "." || !fs.ValidPath(name) {
		return false
	}
	for _, seg := range strings.Split(name, "/") {
		if strings.HasPrefix(seg, ".") {
			return false
		}
	}
	return true
}

// open opens name in fsys if it is a regular file.
func open(fsys fs.FS, name string) (fs.File, fs.FileInfo, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fs.ErrNotExist
	}
	return f, fi, nil
}

// seeker returns f as an io.ReadSeeker, reading it into memory when it is
// not one.
func seeker(f fs.File) (io.ReadSeeker, error) {
	if rs, ok := f.(io.ReadSeeker); ok {
		return rs, nil
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(b), nil
}

// etag returns the strong ETag of a file's bytes, from the cache when the
// file's size and modification time haven't changed.
func (h *handler) etag(key string, fi fs.FileInfo, content io.ReadSeeker) (string, error) {
	k := etagKey{key, fi.Size(), fi.ModTime()}
	if v, ok := h.etags.Load(k); ok {
		return v.(string), nil
	}
	sum := sha256.New()
	if _, err := io.Copy(sum, content); err != nil {
		return "", err
	}
	if _, err := content.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	tag := `"` + base64.RawURLEncoding.EncodeToString(sum.Sum(nil)[:16]) + `"`
	h.etags.Store(k, tag)
	return tag, nil
}

// accepts reports whether the Accept-Encoding header values allow coding
// (RFC 9110, section 12.5.3): listed, or covered by "*", with a q-value
// above zero.
func accepts(values []string, coding string) bool {
	star := -1.0
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			token, params, _ := strings.Cut(part, ";")
			token = strings.TrimSpace(token)
			q := 1.0
			for _, p := range strings.Split(params, ";") {
				k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						q = f
					} else {
						q = 0
					}
				}
			}
			switch {
			case strings.EqualFold(token, coding):
				return q > 0
			case token == "*":
				star = q
			}
		}
	}
	return star > 0
}

// contentType is the Content-Type of name.
func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := types[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// fail answers a request whose file could not be read.
func fail(w http.ResponseWriter, r *http.Request, err error) {
	for _, k := range []string{"Content-Encoding", "ETag", "Cache-Control"} {
		w.Header().Del(k)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		http.NotFound(w, r)
	case errors.Is(err, fs.ErrPermission):
		http.Error(w, "forbidden", http.StatusForbidden)
	default:
		http.Error(w, "internal server error", http.StatusInternalServerError)
	}
}
