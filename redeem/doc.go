// Package redeem serves the redemption endpoint of WebMCP secret
// references: a backend that creates a secret (an API key, recovery codes)
// keeps it out of the tool result, which an AI agent reads, and returns a
// secret_reference instead; the user's browser fetches the reference's
// redeemUrl once, with the user's cookies, to show the value.
//
// [Handler.Issue] stores a value for its owner and returns the [Reference]
// to put in the tool result in place of the value:
//
//	h, err := redeem.New(sessionUser, nil) // sessionUser: func(*http.Request) (principal string, err error)
//	...
//	mux.Handle(h.Pattern(), h) // "/redeem/{id}"
//
//	// In the tool's backend:
//	ref, err := h.Issue(ctx, principal, redeem.Secret{Value: apiKey, Label: "API key"})
//	// ref marshals to {"type":"secret_reference","id":"…","label":"API key","redeemUrl":"/redeem/…","ttl":300}
//
// The package example runs the whole exchange.
//
// # The endpoint
//
// The [Handler], mounted under its BasePath, answers GET BasePath{id}:
//
//	200 {"value":"…"}                   the owner's first redemption
//	401 {"error":"unauthenticated"}     the Authenticator finds no principal
//	403 {"error":"no_fetch_metadata"}   no Sec-Fetch-Site header: a browser too old to send
//	                                    Fetch Metadata, or no browser at all (curl, a script)
//	403 {"error":"cross_origin"}        Fetch Metadata of anything but a same-origin fetch() (below)
//	403 {"error":"forbidden"}           signed in as someone other than the owner; nothing is consumed
//	404 {"error":"not_found"}           an unknown or malformed id, or a spent id past its retention
//	405 {"error":"method_not_allowed"}  any method but GET, HEAD included, with Allow: GET
//	410 {"error":"gone"}                expired or already redeemed, for Options.Retention
//	429 {"error":"rate_limited"}        a principal or a client address is over its limit
//	                                    (404s count too), with Retry-After
//	500 {"error":"misrouted",           a path outside BasePath: the Handler is mounted where it
//	     "basePath":"/redeem/"}         issues no redeemUrl (Mounting, below)
//	503 {"error":"unavailable"}         the store can't answer: a store failure is never a 200 or a 404
//
// The checks run in this order, and no refusal consumes the secret: the
// method, the path, Fetch Metadata, the client address's rate limit, the
// Authenticator, the principal's rate limit, and then the id, its owner
// and its state in one atomic take from the store.
//
// Every response carries Cache-Control: no-store, Content-Type:
// application/json, X-Content-Type-Options: nosniff and Referrer-Policy:
// no-referrer, and nothing redirects. The first redemption wins; every
// other one gets 410, however many run at once and on however many
// instances share the store.
//
// Only a same-origin fetch() is answered: Sec-Fetch-Site: same-origin,
// Sec-Fetch-Mode cors or same-origin and Sec-Fetch-Dest: empty are all
// required, and checked before the store is touched and before a rate
// limit is spent. Anything else that carries Sec-Fetch-Site, or carries
// it twice, gets 403 "cross_origin". A request without Sec-Fetch-Site
// gets 403 "no_fetch_metadata", which tells a browser too old to send
// Fetch Metadata, or a client that is no browser, from a cross-site
// request. Options.InsecureAllowMissingFetchMetadata lets such requests
// in, at the price of letting in a cross-site image load that carries the
// user's cookies from any browser that sends no Fetch Metadata.
//
// The [Authenticator] returns the principal; an empty one or an error gets
// 401, and an error wrapping [ErrUnavailable] gets 503.
//
// # Mounting
//
// Options.BasePath ([DefaultBasePath], "/redeem/") is where redeemUrls
// point, and so where the Handler must be mounted. [Handler.Pattern]
// derives the route from it, so that the two can't disagree:
//
//	mux.Handle(h.Pattern(), h) // "/redeem/{id}"; with BasePath "/api/secrets/", "/api/secrets/{id}"
//
// The pattern has no method, so that the Handler answers every method
// itself; with "GET /redeem/{id}" the ServeMux answers other methods, HEAD
// apart, with its own 405. chi and gorilla/mux take the same pattern. Under
// any router the Handler reads the id from the path the client asked for,
// r.RequestURI (r.URL.Path when that is empty): what follows BasePath is
// the id. http.StripPrefix in front of it changes nothing, since it leaves
// r.RequestURI alone: set BasePath to the whole path the browser fetches
// ("/api/v1/redeem/" behind http.StripPrefix("/api/v1", …)). A reverse
// proxy that strips a prefix before the request reaches the server is
// another matter: set Options.StrippedPrefix to what it strips, and
// BasePath, as always, to what the browser fetches; Pattern then returns
// the route this server sees.
//
// A request that reaches the Handler for a path outside BasePath gets 500
// {"error":"misrouted","basePath":…} (with "strippedPrefix" when one is
// set), and the log gets an error naming the base path, the route and the
// path up to its last "/" (never an id). It means the Handler is mounted
// where it issues no redeemUrl: at a path BasePath doesn't name, behind a
// StripPrefix or a proxy BasePath doesn't account for. Issued redeemUrls
// are then not answered either, so fix the mount or the options rather
// than the client. A path under BasePath that names no valid id (a
// subtree mount's "/redeem/a/b") is an ordinary 404.
//
// More often a misrouted request never reaches the Handler: a router
// whose pattern does not match answers its own 404 (ServeMux's
// "404 page not found"), and a proxy its own page. The page's reveal
// (veil-redeem.js) tells those apart from the Handler's answers, which are
// always JSON with "value" or "error" (a body that is neither, not an
// empty one): it then says in the page's console
// which path it fetched (less the id), and that BasePath, StrippedPrefix
// and the proxy's or router's route are to be checked, and tells the user
// the site did not answer as expected, not that the secret does not
// exist.
//
// The page that reveals secrets names the same path in its
// data-veil-redeem-path attribute: [Handler.BasePath] returns it.
//
// # Options
//
// [New] takes the Authenticator and an [*Options]; nil means every
// default. New panics if the Authenticator is nil and returns an error
// naming the field for an option it can't use (a key that isn't [KeySize]
// bytes, a negative duration or rate, a base path that isn't a clean
// absolute path a URL carries unescaped, a StrippedPrefix that doesn't
// start BasePath). Each field of [Options] documents its zero value: a
// random Key (memory store only), a new [MemoryStore], [DefaultBasePath]
// with nothing stripped, [DefaultTTL] clamped to [DefaultMaxTTL],
// [DefaultRetention], [DefaultMaxValueBytes], and slog.Default() for the
// log.
//
// Rate limits are token buckets, one per principal and one per client
// address ([RemoteAddress], IPv6 grouped by /64; behind a proxy, return
// the address it vouches for in Options.ClientAddress). Each is set by a
// rate in requests per second and a burst, plain numbers:
// Options.PrincipalPerSecond and PrincipalBurst default to
// [DefaultPrincipalPerSecond] and [DefaultPrincipalBurst] (10 at once,
// then one a second), Options.AddressPerSecond and AddressBurst to
// [DefaultAddressPerSecond] and [DefaultAddressBurst] (50 at once, then
// five a second). A rate of 1.0/60 is one a minute; [Unlimited] turns a
// limit off.
//
// # Storage
//
// Ids are 128 bits from crypto/rand, in base64url. A [Store] sees only a
// keyed hash (HMAC-SHA-256) of each id and of its owner, and the value
// sealed with AES-GCM with the id as additional data, so a dump of the
// store can neither be redeemed nor read. Log lines (log/slog) name a
// secret by that keyed hash.
//
// The default store, [MemoryStore], suits a single instance. Its
// MaxBytes bounds pending secrets and tombstones together: when it is
// reached the oldest tombstones go first, and then Issue fails with
// [ErrStoreFull]; a pending secret is never dropped to make room. Expired
// values are wiped on a timer that is armed only while the store holds
// something, so the store needs no Close.
//
// Package [github.com/veilmcp/veil/redeem/redisstore] serves backends that
// run several instances, which must then share one Options.Key; its
// documentation says which Redis persistence settings single use needs.
// When Redis is down, a redemption waits for the go-redis client's retries
// before it answers 503; the client's defaults add up to a few seconds
// (MaxRetries 3, DialerRetries 5 × 100 ms), so lower them if a fast 503
// matters more.
//
// # Tests
//
// Package [github.com/veilmcp/veil/redeem/storetest] is the conformance
// suite every Store passes. The Redis store's tests start their own
// redis-server on a free loopback port and fail when they can't, unless
// VEIL_SKIP_REDIS=1. FuzzHandler serves random methods, paths and headers,
// and checks that the answer is always a status listed above with the
// headers listed above, that a path outside BasePath is "misrouted" and
// a missing Sec-Fetch-Site "no_fetch_metadata", and that a value only ever
// goes to its owner's same-origin GET of its redeemUrl.
//
// The secret_reference content type and the redemption contract come from
// the WebMCP proposal on sensitive tool output
// (https://github.com/webmachinelearning/webmcp/issues/110), section 4a.
package redeem
