// Package redeem serves the redemption endpoint of WebMCP secret
// references: a backend that creates a secret (an API key, recovery codes)
// keeps it out of the tool result, which an AI agent reads, and returns a
// secret_reference instead; the user's browser fetches the reference's
// redeemUrl once, with the user's cookies, to show the value.
//
// [Handler.Issue] stores a value for its owner and returns the [Reference]
// to put in the tool result. The [Handler], mounted under its BasePath,
// answers GET BasePath{id}:
//
//   - 200 {"value": "…"} to the owner, once;
//   - 410 once the secret expired or was redeemed, for Options.Retention,
//     then 404;
//   - 401 when the [Authenticator] finds no principal, 403 when the
//     principal is not the owner (consuming nothing), 404 for an unknown or
//     malformed id, 405 for any method but GET, 429 with Retry-After when a
//     principal or a client address goes over its rate limit, and 503 when
//     the store can't answer: a store failure never becomes a 200 or a 404;
//   - 403 to anything but a same-origin fetch, judged by Fetch Metadata
//     headers before the store is touched.
//
// Every response is JSON, errors being {"error": "<code>"}, and carries
// Cache-Control: no-store, X-Content-Type-Options: nosniff and
// Referrer-Policy: no-referrer. There are no redirects.
//
// Ids are 128 random bits. A [Store] sees only a keyed hash of each id,
// a keyed hash of its owner, and the value sealed with AES-GCM under the id,
// so a dump of the store can neither be redeemed nor read. The default
// store, [MemoryStore], suits a single instance; package
// [github.com/veilmcp/veil/redeem/redisstore] serves backends that run
// several.
//
// Mount it with a ServeMux pattern:
//
//	h, err := redeem.New(sessionUser, nil)
//	...
//	mux.Handle("/redeem/{id}", h)
//
// A pattern without a method lets the Handler answer every method itself;
// with "GET /redeem/{id}" the ServeMux answers other methods, except HEAD,
// with its own 405. Under other routers the Handler takes the id from the
// last path segment.
//
// The secret_reference content type and the redemption contract come from
// the WebMCP proposal on sensitive tool output
// (https://github.com/webmachinelearning/webmcp/issues/110), section 4a.
package redeem
