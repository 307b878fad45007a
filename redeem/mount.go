package redeem

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// mount sets the Handler's base path from Options.BasePath and
// Options.StrippedPrefix, and the path its requests arrive for.
func (h *Handler) mount(base, stripped string) error {
	if base == "" {
		base = DefaultBasePath
	}
	if !strings.HasPrefix(base, "/") {
		return fmt.Errorf("redeem: Options.BasePath %q must start with \"/\"", base)
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	if esc := (&url.URL{Path: base}).EscapedPath(); esc != base {
		return fmt.Errorf("redeem: Options.BasePath %q holds characters a URL path must escape (it would be %q): redeemUrls are issued as they are", base, esc)
	}
	if base != "/" && path.Clean(base)+"/" != base {
		return fmt.Errorf("redeem: Options.BasePath %q is not a clean path (want %q): it has an empty, \".\" or \"..\" segment", base, path.Clean(base)+"/")
	}

	if stripped != "" {
		s := strings.TrimSuffix(stripped, "/")
		if s == "" || !strings.HasPrefix(base, s+"/") {
			return fmt.Errorf("redeem: Options.StrippedPrefix %q is not one or more whole leading segments of Options.BasePath %q", stripped, base)
		}
		stripped = s
	}
	h.basePath = base
	h.served = base[len(stripped):]

	h.misrouted, _ = json.Marshal(struct {
		Error          string `json:"error"`
		BasePath       string `json:"basePath"`
		StrippedPrefix string `json:"strippedPrefix,omitempty"`
	}{codeMisrouted, base, stripped})
	return nil
}

// BasePath returns the path every redeemUrl the Handler issues starts
// with: Options.BasePath, with its trailing "/". It is the value of the
// page's data-veil-redeem-path attribute.
func (h *Handler) BasePath() string { return h.basePath }

// Pattern returns the [http.ServeMux] pattern that routes to the Handler
// exactly the redeemUrls it issues: "/redeem/{id}" by default, BasePath
// less Options.StrippedPrefix followed by "{id}". Mount the Handler with it
// on the mux the server serves,
//
//	mux.Handle(h.Pattern(), h)
//
// with no method, so that the Handler answers every method itself. chi
// and gorilla/mux read the pattern the same way.
func (h *Handler) Pattern() string { return h.served + "{id}" }

// requestPath returns the path the client asked for: r.RequestURI's, which
// http.StripPrefix and routers leave alone, or r.URL.Path when the request
// did not come from a server and has no RequestURI.
func requestPath(r *http.Request) string {
	if ru := r.RequestURI; ru != "" {
		if ru[0] == '/' && !strings.ContainsAny(ru, "%?#") {
			return ru // already the path ParseRequestURI would return
		}
		if u, err := url.ParseRequestURI(ru); err == nil {
			return u.Path
		}
	}
	if r.URL == nil {
		return ""
	}
	return r.URL.Path
}

// idIn returns what follows the served base path in p, the id a
// redemption names, and false when p is not under that path. The base
// path without its trailing "/" is under it and names no id.
func (h *Handler) idIn(p string) (string, bool) {
	if id, ok := strings.CutPrefix(p, h.served); ok {
		return id, true
	}
	return "", p+"/" == h.served
}

// misroute answers a request for path p, which is not under the base path,
// with 500 and a body that names the base path, and logs it as an error:
// the Handler is mounted where it issues no redeemUrl. The log names p only
// up to its last "/", since a redeemUrl that reached the Handler through a
// proxy it was not told about ends with a live id.
func (h *Handler) misroute(w http.ResponseWriter, r *http.Request, p string) {
	w.WriteHeader(http.StatusInternalServerError)
	w.Write(h.misrouted)
	ctx := r.Context()
	if !h.log.Enabled(ctx, slog.LevelError) {
		return
	}
	attrs := []slog.Attr{
		slog.Int("status", http.StatusInternalServerError),
		slog.String("basePath", h.basePath),
		slog.String("expected", h.served),
		slog.String("got", p[:strings.LastIndexByte(p, '/')+1]),
	}
	if r.Pattern != "" {
		attrs = append(attrs, slog.String("pattern", r.Pattern))
	}
	h.log.LogAttrs(ctx, slog.LevelError,
		"redeem: misrouted: the Handler got a request for a path outside the base path it issues redeemUrls under; mount it with Handler.Pattern(), or set Options.BasePath (and Options.StrippedPrefix behind a proxy that strips one) to where it is mounted",
		attrs...)
}
