package redeem_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/veilmcp/veil/redeem"
)

// sessionUser stands in for the application's session lookup.
func sessionUser(r *http.Request) (string, error) {
	c, err := r.Cookie("session")
	if err != nil {
		return "", err // 401
	}
	return map[string]string{"s3ss10n": "alice"}[c.Value], nil
}

// A tool creates an API key, stores it with Issue and returns the
// reference instead of the key. The user's browser then fetches redeemUrl,
// same-origin and with its cookies, and gets the value once.
func Example() {
	h, err := redeem.New(sessionUser, &redeem.Options{
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}

	// Mount where the handler's redeemUrls point ("/redeem/{id}"): every
	// method reaches the handler, which answers all but GET with 405.
	mux := http.NewServeMux()
	mux.Handle(h.Pattern(), h)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// Issue, inside the tool's backend: the reference goes into the tool
	// result; the key itself does not.
	ref, err := h.Issue(context.Background(), "alice", redeem.Secret{
		Value: "sk_live_4f9a",
		Label: "API key",
	})
	if err != nil {
		panic(err)
	}
	result := map[string]any{"content": []any{
		map[string]string{"type": "text", "text": `Created API key "production"`},
		ref, // {"type":"secret_reference","id":…,"label":…,"redeemUrl":…,"ttl":…}
	}}
	_ = result // returned from the tool's execute()
	fmt.Println(ref.Type, ref.Label, ref.TTL)

	// Redeem, as the browser's fetch(ref.redeemUrl, {credentials:
	// "same-origin"}) does.
	redeemURL := func() {
		req, _ := http.NewRequest("GET", srv.URL+ref.RedeemURL, nil)
		req.AddCookie(&http.Cookie{Name: "session", Value: "s3ss10n"})
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("Sec-Fetch-Mode", "cors")
		req.Header.Set("Sec-Fetch-Dest", "empty")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		fmt.Println(resp.StatusCode, string(body))
	}
	redeemURL()
	redeemURL()

	// Output:
	// secret_reference API key 300
	// 200 {"value":"sk_live_4f9a"}
	// 410 {"error":"gone"}
}

// fetchAs serves h what a browser's same-origin fetch(path) sends with
// alice's session cookie, and prints the answer.
func fetchAs(h http.Handler, path string) {
	r := httptest.NewRequest("GET", path, nil)
	r.AddCookie(&http.Cookie{Name: "session", Value: "s3ss10n"})
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.Header.Set("Sec-Fetch-Mode", "cors")
	r.Header.Set("Sec-Fetch-Dest", "empty")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if ra := w.Header().Get("Retry-After"); ra != "" {
		fmt.Println(w.Code, w.Body, "Retry-After:", ra)
		return
	}
	fmt.Println(w.Code, w.Body)
}

// Pattern mounts a Handler where its redeemUrls point, so the two can't
// disagree. A request that reaches it anywhere else, here through a
// leftover route at the default path, gets 500 "misrouted", which names
// the base path.
func ExampleHandler_Pattern() {
	h, err := redeem.New(sessionUser, &redeem.Options{
		BasePath: "/api/secrets/",
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle(h.Pattern(), h)
	mux.Handle("/redeem/{id}", h) // wrong: no redeemUrl points here
	fmt.Println(h.Pattern())

	ref, err := h.Issue(context.Background(), "alice", redeem.Secret{Value: "sk_live_4f9a"})
	if err != nil {
		panic(err)
	}
	fetchAs(mux, "/redeem/"+ref.ID)
	fetchAs(mux, ref.RedeemURL)

	// Output:
	// /api/secrets/{id}
	// 500 {"error":"misrouted","basePath":"/api/secrets/"}
	// 200 {"value":"sk_live_4f9a"}
}

// Options for a backend behind a reverse proxy that serves it under /api/
// and strips that prefix, with a tighter limit per user and no limit per
// address, which the proxy enforces itself.
func ExampleOptions() {
	h, err := redeem.New(sessionUser, &redeem.Options{
		BasePath:           "/api/redeem/",   // what the browser fetches
		StrippedPrefix:     "/api",           // what the proxy removes
		PrincipalPerSecond: 1.0 / 60,         // one a minute,
		PrincipalBurst:     3,                // after three at once
		AddressPerSecond:   redeem.Unlimited, // the proxy's job
		Logger:             slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(h.BasePath()) // the page's data-veil-redeem-path
	fmt.Println(h.Pattern())  // what this server's mux sees
	mux := http.NewServeMux()
	mux.Handle(h.Pattern(), h)

	ref, err := h.Issue(context.Background(), "alice", redeem.Secret{Value: "sk_live_4f9a"})
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.RedeemURL == "/api/redeem/"+ref.ID)
	// The proxy passes GET /api/redeem/{id} on as GET /redeem/{id}.
	path := strings.TrimPrefix(ref.RedeemURL, "/api")
	for range 4 {
		fetchAs(mux, path)
	}

	// Output:
	// /api/redeem/
	// /redeem/{id}
	// true
	// 200 {"value":"sk_live_4f9a"}
	// 410 {"error":"gone"}
	// 410 {"error":"gone"}
	// 429 {"error":"rate_limited"} Retry-After: 60
}
