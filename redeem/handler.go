package redeem

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"
)

// Defaults for [Options].
const (
	// DefaultBasePath is the path redeemUrls start with, and where a
	// Handler expects to be mounted.
	DefaultBasePath = "/redeem/"
	// DefaultTTL is how long a secret stays redeemable when neither the
	// Secret nor the Options say.
	DefaultTTL = 5 * time.Minute
	// DefaultMaxTTL is the longest a secret stays redeemable.
	DefaultMaxTTL = time.Hour
	// DefaultRetention is how long an expired or redeemed id keeps
	// answering 410 before it answers 404.
	DefaultRetention = 24 * time.Hour
	// DefaultMaxValueBytes is the largest value Issue accepts.
	DefaultMaxValueBytes = 16 << 10
	// DefaultPrincipalPerSecond and DefaultPrincipalBurst rate-limit the
	// requests of one principal: 10 at once, then one a second. A person
	// clicking "Reveal" never comes close, a script guessing ids does at
	// once.
	DefaultPrincipalPerSecond = 1.0
	DefaultPrincipalBurst     = 10
	// DefaultAddressPerSecond and DefaultAddressBurst rate-limit the
	// requests from one client address, which may be a NAT shared by many
	// people: 50 at once, then five a second.
	DefaultAddressPerSecond = 5.0
	DefaultAddressBurst     = 50
	// DefaultMaxLimiters is how many principals, and separately how many
	// client addresses, the rate limiter tracks at once.
	DefaultMaxLimiters = 10000
)

// Unlimited, as Options.PrincipalPerSecond or Options.AddressPerSecond,
// turns that rate limit off.
const Unlimited = math.MaxFloat64

// An Authenticator returns the principal making a request, typically by
// looking up its session cookie. Authentication belongs to the application;
// the principal is compared with the owner given to [Handler.Issue].
//
// An empty principal, or any error, means the request is not signed in and
// gets 401. An error wrapping [ErrUnavailable] means the answer is unknown
// right now (a session store is down) and gets 503.
type Authenticator func(r *http.Request) (principal string, err error)

// Options configures a [Handler]. A nil *Options means every default, which
// suits a single-instance backend using the memory store.
type Options struct {
	// Key is the secret, KeySize bytes long, from which the keyed hash of
	// ids and the AES-GCM sealing key are derived. Every process sharing a
	// Store must use the same Key. Nil means a random key made by New,
	// which is allowed only when Store is nil: the memory store lives and
	// dies with the process, so its key can too.
	Key []byte

	// Store keeps the secrets. Nil means a new [MemoryStore] with default
	// options. Backends running more than one instance need a shared store
	// such as the one in package redisstore.
	Store Store

	// BasePath is the path every redeemUrl starts with: Issue returns
	// BasePath followed by the id, a path and so same-origin by
	// construction. The Handler answers only requests for such a path and
	// answers any other with 500 "misrouted" (see Mounting in the package
	// documentation); mount it with [Handler.Pattern] so that the two
	// agree. BasePath must be a clean absolute path that a URL carries as
	// it is: no "//", "." or ".." segments, nothing that needs escaping
	// ("{", "?", "%", spaces, non-ASCII). A missing trailing "/" is added.
	// Empty means DefaultBasePath.
	BasePath string

	// StrippedPrefix is the leading part of BasePath that a reverse proxy
	// in front of the backend removes before it passes a request on: with
	// BasePath "/api/redeem/" and StrippedPrefix "/api", redeemUrls start
	// with /api/redeem/ and the Handler expects requests for /redeem/….
	// It must be one or more whole leading segments of BasePath; a
	// trailing "/" is ignored. http.StripPrefix in the same process needs
	// none: the Handler reads the path the client asked for,
	// r.RequestURI, which http.StripPrefix leaves alone. Empty means that
	// requests arrive for BasePath itself.
	StrippedPrefix string

	// TTL is the lifetime of a secret issued with a zero Secret.TTL.
	// Zero means DefaultTTL. It is clamped to MaxTTL.
	TTL time.Duration

	// MaxTTL caps every secret's lifetime. Zero means DefaultMaxTTL.
	MaxTTL time.Duration

	// Retention is how long an expired or redeemed id answers 410 Gone
	// before it answers 404. Zero means DefaultRetention.
	Retention time.Duration

	// MaxValueBytes is the largest value Issue accepts. Zero means
	// DefaultMaxValueBytes.
	MaxValueBytes int

	// PrincipalPerSecond and PrincipalBurst set the token bucket each
	// signed-in principal draws from, one token per request whatever its
	// outcome (404s included, so enumerating ids is slow): PrincipalBurst
	// requests at once, then PrincipalPerSecond requests a second (1.0/60
	// is one a minute). A zero PrincipalPerSecond means
	// DefaultPrincipalPerSecond and a zero PrincipalBurst
	// DefaultPrincipalBurst; a PrincipalPerSecond of [Unlimited] turns the
	// limit off. Negative values are an error.
	PrincipalPerSecond float64
	PrincipalBurst     int

	// AddressPerSecond and AddressBurst set the token bucket each client
	// address draws from, signed in or not, as PrincipalPerSecond and
	// PrincipalBurst do for principals. A zero AddressPerSecond means
	// DefaultAddressPerSecond and a zero AddressBurst DefaultAddressBurst;
	// an AddressPerSecond of [Unlimited] turns the limit off.
	AddressPerSecond float64
	AddressBurst     int

	// MaxLimiters bounds how many principals, and how many addresses, the
	// rate limiter tracks. Zero means DefaultMaxLimiters.
	MaxLimiters int

	// ClientAddress returns the address a request is rate-limited under.
	// Behind a reverse proxy, return the address the proxy vouches for.
	// Nil means [RemoteAddress].
	ClientAddress func(r *http.Request) string

	// InsecureAllowMissingFetchMetadata lets in requests that carry no
	// Sec-Fetch-Site header, from browsers too old to send Fetch Metadata.
	// It is insecure: such a request may as well be a cross-site image
	// load carrying the user's cookies. False means they get 403
	// "no_fetch_metadata".
	InsecureAllowMissingFetchMetadata bool

	// Logger receives one line per issued secret and per answered request,
	// which names a secret only by the keyed hash of its id. Nil means
	// slog.Default().
	Logger *slog.Logger
}

// Handler serves the redemption endpoint of secret references and issues
// them. Create one with [New]; it is safe for concurrent use.
type Handler struct {
	auth     Authenticator
	keys     *keys
	store    Store
	basePath string
	// served is basePath without the StrippedPrefix: the path requests
	// arrive for. misrouted is the body of the answer to any other.
	served    string
	misrouted []byte
	ttl       time.Duration
	maxTTL    time.Duration
	retention time.Duration
	maxValue  int
	clientIP  func(*http.Request) string
	allowNoFM bool
	log       *slog.Logger
	byUser    *limiters
	byAddr    *limiters
	now       func() time.Time
	newID     func() ([]byte, string)
}

// New returns a Handler that asks authenticate who is making each request.
// A nil opts means defaults. New panics if authenticate is nil, and returns
// an error naming the field if opts holds a value it can't use, such as a
// Key of the wrong size or a BasePath no URL can carry as it is.
func New(authenticate Authenticator, opts *Options) (*Handler, error) {
	if authenticate == nil {
		panic("redeem: New needs an Authenticator: the owner check is what makes a secret reference safe to hand out")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	h := &Handler{
		auth:      authenticate,
		store:     o.Store,
		ttl:       o.TTL,
		maxTTL:    o.MaxTTL,
		retention: o.Retention,
		maxValue:  o.MaxValueBytes,
		clientIP:  o.ClientAddress,
		allowNoFM: o.InsecureAllowMissingFetchMetadata,
		log:       o.Logger,
		now:       time.Now,
		newID:     newID,
	}

	key := o.Key
	switch {
	case key == nil && o.Store != nil:
		return nil, errors.New("redeem: Options.Key is required when Options.Store is set: every process sharing a store must use the same key")
	case key == nil:
		key = make([]byte, KeySize)
		rand.Read(key)
	case len(key) != KeySize:
		return nil, fmt.Errorf("redeem: Options.Key is %d bytes long, want %d", len(key), KeySize)
	}
	var err error
	if h.keys, err = newKeys(key); err != nil {
		return nil, fmt.Errorf("redeem: %w", err)
	}

	if h.store == nil {
		h.store = NewMemoryStore(nil)
	}
	if err := h.mount(o.BasePath, o.StrippedPrefix); err != nil {
		return nil, err
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"TTL", &h.ttl, DefaultTTL},
		{"MaxTTL", &h.maxTTL, DefaultMaxTTL},
		{"Retention", &h.retention, DefaultRetention},
	} {
		if *d.v < 0 {
			return nil, fmt.Errorf("redeem: Options.%s is negative (%v)", d.name, *d.v)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	h.ttl = min(h.ttl, h.maxTTL)
	if h.maxValue < 0 {
		return nil, fmt.Errorf("redeem: Options.MaxValueBytes is negative (%d)", h.maxValue)
	}
	if h.maxValue == 0 {
		h.maxValue = DefaultMaxValueBytes
	}

	maxLimiters := o.MaxLimiters
	if maxLimiters < 0 {
		return nil, fmt.Errorf("redeem: Options.MaxLimiters is negative (%d)", maxLimiters)
	}
	if maxLimiters == 0 {
		maxLimiters = DefaultMaxLimiters
	}
	if h.byUser, err = limitersFor("Principal", o.PrincipalPerSecond, o.PrincipalBurst, DefaultPrincipalPerSecond, DefaultPrincipalBurst, maxLimiters); err != nil {
		return nil, err
	}
	if h.byAddr, err = limitersFor("Address", o.AddressPerSecond, o.AddressBurst, DefaultAddressPerSecond, DefaultAddressBurst, maxLimiters); err != nil {
		return nil, err
	}
	if h.clientIP == nil {
		h.clientIP = RemoteAddress
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	return h, nil
}

// Error codes, the "error" member of every error body.
const (
	codeMethod          = "method_not_allowed"
	codeMisrouted       = "misrouted"
	codeNoFetchMetadata = "no_fetch_metadata"
	codeCrossOrigin     = "cross_origin"
	codeUnauthorized    = "unauthenticated"
	codeForbidden       = "forbidden"
	codeNotFound        = "not_found"
	codeGone            = "gone"
	codeRateLimited     = "rate_limited"
	codeUnavailable     = "unavailable"
)

// headerValues are the values of the headers every response carries.
var headerValues = [...]string{"no-store", "application/json", "nosniff", "no-referrer", http.MethodGet}

// ServeHTTP answers a redemption: GET BasePath{id}. The id is what follows
// BasePath in the path the client asked for (r.RequestURI, or r.URL.Path
// when RequestURI is empty), so the Handler works the same under any
// router and behind http.StripPrefix. A request for a path not under
// BasePath (less Options.StrippedPrefix) gets 500 "misrouted": the Handler
// is mounted where it issues no redeemUrl.
//
// Checks run in an order that keeps the store untouched until the request
// is known to be a same-origin fetch from a signed-in principal within its
// rate limits; the owner check then happens inside the store's atomic take.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// One copy per response, so that a middleware editing a value in
	// place can't change it for every later response.
	v := new([len(headerValues)]string)
	*v = headerValues
	hdr := w.Header()
	hdr["Cache-Control"] = v[0:1:1]
	hdr["Content-Type"] = v[1:2:2]
	hdr["X-Content-Type-Options"] = v[2:3:3]
	hdr["Referrer-Policy"] = v[3:4:4]

	if r.Method != http.MethodGet {
		hdr["Allow"] = v[4:5:5]
		h.fail(w, r, http.StatusMethodNotAllowed, codeMethod, nil, nil)
		return
	}
	p := requestPath(r)
	text, ok := h.idIn(p)
	if !ok {
		h.misroute(w, r, p)
		return
	}
	// Before rate limiting too: a cross-site page must not be able to
	// spend its visitor's tokens.
	if err := checkFetchMetadata(r, h.allowNoFM); err != nil {
		code := codeCrossOrigin
		if errors.Is(err, errNoFetchMetadata) {
			code = codeNoFetchMetadata
		}
		h.fail(w, r, http.StatusForbidden, code, nil, err)
		return
	}
	now := h.now()
	if ok, wait := h.byAddr.allow(h.clientIP(r), now); !ok {
		h.tooMany(w, r, wait)
		return
	}
	principal, err := h.auth(r)
	if errors.Is(err, ErrUnavailable) {
		h.fail(w, r, http.StatusServiceUnavailable, codeUnavailable, nil, err)
		return
	}
	if err != nil || principal == "" {
		// The authenticator's error is not logged: it may quote the
		// session cookie it could not find.
		h.fail(w, r, http.StatusUnauthorized, codeUnauthorized, nil, nil)
		return
	}
	if ok, wait := h.byUser.allow(principal, now); !ok {
		h.tooMany(w, r, wait)
		return
	}

	id, ok := parseID(text)
	if !ok {
		h.fail(w, r, http.StatusNotFound, codeNotFound, nil, nil)
		return
	}
	key := h.keys.index(id)
	sealed, err := h.store.Take(r.Context(), key, h.keys.ownerTag(principal), h.retention)
	switch {
	case err == nil:
	case errors.Is(err, ErrNotFound):
		h.fail(w, r, http.StatusNotFound, codeNotFound, &key, nil)
		return
	case errors.Is(err, ErrGone):
		h.fail(w, r, http.StatusGone, codeGone, &key, nil)
		return
	case errors.Is(err, ErrNotOwner):
		h.fail(w, r, http.StatusForbidden, codeForbidden, &key, nil)
		return
	default:
		h.fail(w, r, http.StatusServiceUnavailable, codeUnavailable, &key, err)
		return
	}
	value, err := h.keys.open(id, sealed)
	clear(sealed)
	if err != nil {
		// Consumed but unreadable: the store was tampered with or the
		// key changed. Fail closed; the secret is lost either way.
		h.fail(w, r, http.StatusServiceUnavailable, codeUnavailable, &key, err)
		return
	}
	quoted, err := json.Marshal(value)
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, codeUnavailable, &key, err)
		return
	}
	body := make([]byte, 0, len(`{"value":}`)+len(quoted))
	body = append(append(append(body, `{"value":`...), quoted...), '}')
	w.WriteHeader(http.StatusOK)
	w.Write(body)
	if h.log.Enabled(r.Context(), slog.LevelInfo) {
		h.log.LogAttrs(r.Context(), slog.LevelInfo, "redeem: secret redeemed", slog.String("key", key.String()))
	}
}

// errorBodies holds the body of each error code, built once.
var errorBodies = func() map[string][]byte {
	m := make(map[string][]byte)
	for _, c := range []string{codeMethod, codeNoFetchMetadata, codeCrossOrigin, codeUnauthorized, codeForbidden, codeNotFound, codeGone, codeRateLimited, codeUnavailable} {
		m[c], _ = json.Marshal(map[string]string{"error": c})
	}
	return m
}()

func (h *Handler) tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	secs := int64(math.Ceil(wait.Seconds()))
	secs = max(secs, 1)
	w.Header()["Retry-After"] = []string{strconv.FormatInt(secs, 10)}
	h.fail(w, r, http.StatusTooManyRequests, codeRateLimited, nil, nil)
}

// fail writes an error response and logs it: store failures as errors,
// refusals that point at an attack as warnings, the rest (401, 404, 405,
// 410) at info level, so that a line per answered request reaches the
// default log. A line names a secret only by the keyed hash of its id.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, code string, key *Key, err error) {
	w.WriteHeader(status)
	w.Write(errorBodies[code])

	level := slog.LevelInfo
	switch status {
	case http.StatusServiceUnavailable:
		level = slog.LevelError
	case http.StatusForbidden, http.StatusTooManyRequests:
		level = slog.LevelWarn
	}
	ctx := r.Context()
	if !h.log.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 3)
	attrs = append(attrs, slog.Int("status", status))
	if key != nil {
		attrs = append(attrs, slog.String("key", key.String()))
	}
	if err != nil {
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	h.log.LogAttrs(ctx, level, "redeem: refused", attrs...)
}
