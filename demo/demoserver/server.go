// Package demoserver is Veil's demo site: a cloud console whose page
// registers WebMCP tools that make API keys and read private data, an
// in-page agent console that runs them, and the <veil-secrets> tray where
// the user reveals what the agent did not get.
//
// [New] returns the whole site as one http.Handler, so that a command
// (the demo's main package) or a test can serve it:
//
//	h, err := demoserver.New(&demoserver.Options{Dist: os.DirFS("dist")})
//	...
//	http.ListenAndServe("127.0.0.1:8080", h)
//
// Routes:
//
//	GET  /                     the page (index.html, demo.css, demo.js)
//	GET  /veil/…               the runtime, from Options.Dist
//	GET  /redeem/{id}          the redemption endpoint (package redeem)
//	GET  /api/session          {"user": {...}} or {"user": null}
//	POST /api/signin           signs the demo user in (a session cookie)
//	POST /api/signout          signs out
//	POST /api/keys             {"name","ttl"} -> {"id","name","reference"}: a secret_reference, never the key
//	GET  /api/profile          the user's profile, ID number and date of birth included
//	GET  /api/medical-record   {"text"}
//	POST /api/recovery-codes   {"codes": [...], "count", "generatedAt"}
//	GET  /api/orders           [...]
//
// Every /api/ route but the session's needs the user signed in (401
// otherwise), and every POST is checked by [http.CrossOriginProtection].
// The page signs a visitor in as [DemoUser] on arrival, with POST
// /api/signin, unless they signed out in that tab: the first tool a visitor
// runs then shows what the agent is kept from, not a 401.
// Every response carries the security headers of [SecurityHeaders],
// including a Content-Security-Policy under which the runtime runs.
package demoserver

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"

	"github.com/veilmcp/veil/js/serve"
	"github.com/veilmcp/veil/redeem"
)

//go:embed static
var static embed.FS

// RuntimeFiles are the files of the runtime the page loads; [New] fails
// if Options.Dist lacks one.
var RuntimeFiles = []string{"webmcp.js", "worker.js", "wasm_exec.js", "veil.wasm", "veil-secrets.js"}

// ContentSecurityPolicy is the policy every response carries. The
// runtime needs no more: its engine is a same-origin Worker
// (worker-src 'self') that compiles WebAssembly ('wasm-unsafe-eval', not
// 'unsafe-eval'), the <veil-secrets> element styles itself with a
// constructed stylesheet, and the page has no inline script or style.
const ContentSecurityPolicy = "default-src 'none'; " +
	"script-src 'self' 'wasm-unsafe-eval'; " +
	"worker-src 'self'; " +
	"connect-src 'self'; " +
	"style-src 'self'; " +
	"img-src 'self' data:; " +
	"base-uri 'none'; " +
	"form-action 'self'; " +
	"frame-ancestors 'none'"

// SessionCookie is the name of the demo's session cookie.
const SessionCookie = "veil_demo_session"

// Options configures [New]. A nil *Options fails: Dist is required.
type Options struct {
	// Dist holds the runtime, as [github.com/veilmcp/veil/js/build.Dist]
	// writes it: os.DirFS("dist"). Required.
	Dist fs.FS

	// Redeem configures the redemption handler. Nil means redeem's
	// defaults: a memory store and a random key. Set Store and Key to
	// share secrets between instances (redisstore).
	Redeem *redeem.Options

	// Logger receives the server's and the redemption handler's log
	// lines, unless Redeem sets its own. Nil means slog.Default().
	Logger *slog.Logger
}

// New returns the demo site. It fails if Options.Dist is missing or lacks
// one of [RuntimeFiles], or if the redemption options are invalid.
func New(opts *Options) (http.Handler, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Dist == nil {
		return nil, errors.New("demoserver: Options.Dist is nil: it must hold the runtime (webmcp.js, veil.wasm, …)")
	}
	var missing []string
	for _, name := range RuntimeFiles {
		if _, err := fs.Stat(o.Dist, name); err != nil {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("demoserver: the runtime directory lacks %s: build it first (js/build.Dist)", strings.Join(missing, ", "))
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	var ro redeem.Options
	if o.Redeem != nil {
		ro = *o.Redeem
	}
	if ro.Logger == nil {
		ro.Logger = o.Logger
	}

	s := &server{log: o.Logger, sessions: newSessions()}
	rh, err := redeem.New(s.principal, &ro)
	if err != nil {
		return nil, fmt.Errorf("demoserver: %w", err)
	}
	s.redeem = rh

	page, err := fs.Sub(static, "static")
	if err != nil {
		return nil, err
	}
	pages := serve.Handler(page)

	api := http.NewServeMux()
	api.HandleFunc("GET /api/session", s.session)
	api.HandleFunc("POST /api/signin", s.signIn)
	api.HandleFunc("POST /api/signout", s.signOut)
	api.HandleFunc("POST /api/keys", s.signedIn(s.createKey))
	api.HandleFunc("GET /api/profile", s.signedIn(s.profile))
	api.HandleFunc("GET /api/medical-record", s.signedIn(s.medicalRecord))
	api.HandleFunc("POST /api/recovery-codes", s.signedIn(s.recoveryCodes))
	api.HandleFunc("GET /api/orders", s.signedIn(s.orders))
	api.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, errorBody("no such endpoint"))
	})

	mux := http.NewServeMux()
	mux.Handle("/veil/", http.StripPrefix("/veil", serve.Handler(o.Dist)))
	// No method in the pattern: the handler answers every method itself.
	mux.Handle("/redeem/{id}", rh)
	mux.Handle("/api/", http.NewCrossOriginProtection().Handler(noStore(api)))
	mux.Handle("GET /{$}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/index.html"
		pages.ServeHTTP(w, r2)
	}))
	mux.Handle("/", pages)
	return SecurityHeaders(mux), nil
}

// SecurityHeaders sets, on every response of h, the demo's
// Content-Security-Policy and the headers that keep the page out of
// frames, other sites' windows and other sites' requests.
func SecurityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", ContentSecurityPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		hd.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()")
		h.ServeHTTP(w, r)
	})
}

func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// server holds the demo's state: its sessions and the redemption handler.
type server struct {
	log      *slog.Logger
	sessions *sessions
	redeem   *redeem.Handler
}
