// Package serve serves Veil's distribution (the directory that
// [github.com/veilmcp/veil/js/build.Dist] writes) to browsers: scripts and
// the engine with the types browsers require, and the precompressed .br
// and .gz files to clients that accept them, when [SumsFile] says they
// compress the file as it is.
//
// One line mounts the runtime under /veil/:
//
//	mux.Handle("/veil/", http.StripPrefix("/veil", serve.Handler(os.DirFS("dist"))))
//
// and the page includes it with <script src="/veil/webmcp.js"></script>.
package serve

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
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

// SumsFile is the file at the root of a distribution that lists the
// SHA-256 of each file the build wrote, its .br and .gz included, one
// "HEX  NAME" line each, as sha256sum writes them (so `sha256sum -c`
// checks a copy). A copy keeps the bytes but not the modification times:
// npm install writes a .br before its file, and cp writes them in any
// order; the sums say which variant compresses the file as it is.
const SumsFile = "SHA256SUMS"

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
// A variant is served only when it compresses the file as it is. When
// [SumsFile] lists the file, the variant is served if the file's bytes
// and the variant's have the SHA-256 it lists, whatever their
// modification times, and never otherwise; a [SumsFile] that does not
// parse lets no variant be served, and is logged once (slog.Default, at
// WARN, with the line that does not parse). A file it does not list (or a
// distribution without one) falls back on the times: a variant older
// than its file is skipped.
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
	// sums caches each file's SHA-256 by name, size and modification
	// time.
	sums sync.Map // sumKey -> [sha256.Size]byte
	// warned holds the SumsFile errors already logged, so a broken file
	// is named once, not on every request.
	warned sync.Map // string -> struct{}
}

type sumKey struct {
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
	enc, vary, sent := "", false, name
	var listed *sums
	for _, e := range encodings {
		vf, vfi, err := open(h.fsys, name+e.ext)
		if err != nil {
			continue
		}
		vary = true
		if enc == "" && accepts(r.Header.Values("Accept-Encoding"), e.token) {
			if listed == nil {
				listed = h.listed()
			}
			if h.compresses(listed, name, fi, name+e.ext, vfi) {
				f.Close()
				f, fi, enc, sent = vf, vfi, e.token, name+e.ext
				continue
			}
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
	sum, err := h.sum(sent, fi)
	if err != nil {
		fail(w, r, err)
		return
	}
	// A strong ETag: a hash of the bytes sent.
	hd.Set("ETag", `"`+base64.RawURLEncoding.EncodeToString(sum[:16])+`"`)
	http.ServeContent(w, r, name, fi.ModTime(), content)
}

// sums is what a distribution's SumsFile lists: each file's SHA-256 by
// its name. bad is set when the file is there but does not parse.
type sums struct {
	bad bool
	of  map[string][sha256.Size]byte
}

// listed reads the distribution's SumsFile; without one, it lists nothing.
func (h *handler) listed() *sums {
	b, err := fs.ReadFile(h.fsys, SumsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &sums{}
	}
	if err == nil {
		var s *sums
		if s, err = parseSums(b); err == nil {
			return s
		}
	}
	if _, done := h.warned.LoadOrStore(err.Error(), struct{}{}); !done {
		slog.Warn("serve: no precompressed variant is served: "+SumsFile+" cannot be used; rebuild the distribution or copy it again", "error", err)
	}
	return &sums{bad: true}
}

// parseSums reads the lines of a SumsFile: "HEX  NAME", or "HEX *NAME" as
// sha256sum writes them in binary mode. Empty lines are skipped.
func parseSums(b []byte) (*sums, error) {
	s := &sums{of: map[string][sha256.Size]byte{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			continue
		}
		hexSum, name, ok := strings.Cut(line, " ")
		name = strings.TrimPrefix(strings.TrimPrefix(name, " "), "*")
		var sum [sha256.Size]byte
		if d, err := hex.Decode(sum[:], []byte(hexSum)); !ok || err != nil || d != len(sum) || len(hexSum) != 2*len(sum) || !fs.ValidPath(name) {
			return nil, fmt.Errorf("line %d of %s is not HEX  NAME", n, SumsFile)
		}
		s.of[name] = sum
	}
	return s, sc.Err()
}

// compresses reports whether the file variant, beside the file name,
// compresses it as it is: by the SHA-256 listed of both when listed has
// name, else by their times (a variant older than its file is stale: the
// file was rebuilt and the variant wasn't).
func (h *handler) compresses(listed *sums, name string, fi fs.FileInfo, variant string, vfi fs.FileInfo) bool {
	if listed.bad {
		return false
	}
	want, ok := listed.of[name]
	if !ok {
		return fi.ModTime().IsZero() || !vfi.ModTime().Before(fi.ModTime())
	}
	wantV, ok := listed.of[variant]
	if !ok {
		return false
	}
	got, err := h.sum(name, fi)
	if err != nil || got != want {
		return false
	}
	gotV, err := h.sum(variant, vfi)
	return err == nil && gotV == wantV
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

// sum returns the SHA-256 of the file name, whose FileInfo is fi, from
// the cache when its size and modification time haven't changed.
func (h *handler) sum(name string, fi fs.FileInfo) ([sha256.Size]byte, error) {
	k := sumKey{name, fi.Size(), fi.ModTime()}
	if v, ok := h.sums.Load(k); ok {
		return v.([sha256.Size]byte), nil
	}
	var sum [sha256.Size]byte
	f, err := h.fsys.Open(name)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	d := sha256.New()
	if _, err := io.Copy(d, f); err != nil {
		return sum, err
	}
	copy(sum[:], d.Sum(nil))
	h.sums.Store(k, sum)
	return sum, nil
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
