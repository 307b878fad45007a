package redeem_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"

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

	// Mount: every method reaches the handler, which answers all but GET
	// with 405.
	mux := http.NewServeMux()
	mux.Handle("/redeem/{id}", h)
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
