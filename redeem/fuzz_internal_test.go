package redeem

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// fuzzSecrets are issued, with fixed ids, to a fresh Handler for every
// fuzz input; the third is redeemed before the input is served.
var fuzzSecrets = []struct{ owner, value string }{
	{"alice", "value-of-alice"},
	{"bob", "value-of-bob"},
	{"alice", "value-already-redeemed"},
}

func fuzzID(i int) string {
	return base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{byte(i + 1)}, idBytes))
}

// FuzzHandler serves random methods, paths and headers and checks that the
// answer is always one of the documented statuses with the documented
// headers, that a path outside the base path gets "misrouted" and nothing
// else does, and that a value goes only to its owner's same-origin GET of
// its redeemUrl, whatever path value a router set.
func FuzzHandler(f *testing.F) {
	id0, id1, id2 := fuzzID(0), fuzzID(1), fuzzID(2)
	for _, seed := range []struct {
		method, path, pathValue, site, mode, dest, principal string
		insecure                                             bool
	}{
		{"GET", "/redeem/" + id0, "", "same-origin", "cors", "empty", "alice", false},
		{"GET", "/redeem/" + id1, "", "same-origin", "same-origin", "empty", "bob", false},
		{"GET", "/redeem/" + id1, "", "same-origin", "cors", "empty", "alice", false},
		{"GET", "/redeem/" + id2, "", "same-origin", "cors", "empty", "alice", false},
		{"GET", "/redeem/x", id0, "same-origin", "cors", "empty", "alice", false},
		{"GET", "/redeem/" + id0, "nope", "same-origin", "cors", "empty", "alice", false},
		{"GET", "/a/b/c/" + id0, "", "same-origin", "cors", "empty", "alice", false},
		{"GET", "/redeem/" + id0 + "/", "", "same-origin", "cors", "empty", "alice", false},
		{"GET", "/redeem/" + id0, "", "", "", "", "alice", true},
		{"GET", "/redeem/" + id0, "", "", "", "", "alice", false},
		{"GET", "/redeem/" + id0, "", "", "cors", "empty", "alice", false},
		{"GET", "/secrets/" + id0, "", "same-origin", "cors", "empty", "alice", false},
		{"GET", "/redeem", "", "same-origin", "cors", "empty", "alice", false},
		{"GET", "/redeemer/" + id0, "", "same-origin", "cors", "empty", "alice", false},
		{"POST", "/secrets/" + id0, "", "same-origin", "cors", "empty", "alice", false},
		{"GET", "/redeem/" + id0, "", "cross-site", "no-cors", "image", "alice", false},
		{"GET", "/redeem/" + id0, "", "same-origin", "navigate", "document", "alice", false},
		{"HEAD", "/redeem/" + id0, "", "same-origin", "cors", "empty", "alice", false},
		{"POST", "/redeem/" + id0, "", "same-origin", "cors", "empty", "alice", false},
		{"GET", "", "", "same-origin", "cors", "empty", "", false},
		{"", "/redeem/%2F", "", "same-origin", "cors", "empty", "alice", false},
	} {
		f.Add(seed.method, seed.path, seed.pathValue, seed.site, seed.mode, seed.dest, seed.principal, seed.insecure)
	}

	f.Fuzz(func(t *testing.T, method, path, pathValue, site, mode, dest, principal string, insecure bool) {
		next := 0
		h, err := New(principalHeader, &Options{
			Key:                               bytes.Repeat([]byte{9}, KeySize),
			Store:                             NewMemoryStore(nil),
			InsecureAllowMissingFetchMetadata: insecure,
			Logger:                            discardLogger,
		})
		if err != nil {
			t.Fatal(err)
		}
		h.newID = func() ([]byte, string) {
			id := bytes.Repeat([]byte{byte(next + 1)}, idBytes)
			next++
			return id, base64.RawURLEncoding.EncodeToString(id)
		}
		for _, s := range fuzzSecrets {
			if _, err := h.Issue(context.Background(), s.owner, Secret{Value: s.value}); err != nil {
				t.Fatal(err)
			}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, get("/redeem/"+fuzzID(2), "alice"))
		if w.Code != http.StatusOK {
			t.Fatalf("setup: redeeming the third secret: status %d", w.Code)
		}

		r := &http.Request{
			Method:     method,
			URL:        &url.URL{Path: path},
			Header:     http.Header{},
			RemoteAddr: "192.0.2.1:1234",
		}
		r = r.WithContext(context.Background())
		for name, v := range map[string]string{
			"Sec-Fetch-Site": site, "Sec-Fetch-Mode": mode, "Sec-Fetch-Dest": dest, "X-Principal": principal,
		} {
			if v != "" {
				r.Header.Set(name, v)
			}
		}
		if pathValue != "" {
			r.SetPathValue("id", pathValue)
		}
		w = httptest.NewRecorder()
		h.ServeHTTP(w, r)

		// The Handler reads r.URL.Path, since r has no RequestURI.
		id, underBase := strings.CutPrefix(path, "/redeem/")
		underBase = underBase || path == "/redeem"
		switch w.Code {
		case 200, 401, 403, 404, 405, 410, 429:
			if method == "GET" && !underBase {
				t.Fatalf("status %d for a GET of %q, outside the base path; want 500", w.Code, path)
			}
		case 500:
			if method != "GET" || underBase {
				t.Fatalf("status 500 for %s %q", method, path)
			}
			var body map[string]string
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil ||
				len(body) != 2 || body["error"] != "misrouted" || body["basePath"] != "/redeem/" {
				t.Fatalf("status 500 with body %s", w.Body)
			}
		default:
			// The memory store never fails, so not even 503.
			t.Fatalf("status %d", w.Code)
		}

		// Fetch Metadata is checked right after the method and the path:
		// its refusals are exactly these.
		sameOrigin := site == "same-origin" && (mode == "cors" || mode == "same-origin") && dest == "empty"
		if insecure && site == "" {
			sameOrigin = true
		}
		wantCode := ""
		switch {
		case method != "GET" || !underBase || sameOrigin:
		case site == "":
			wantCode = "no_fetch_metadata"
		default:
			wantCode = "cross_origin"
		}
		if gotCode := errorCode(w.Body.Bytes()); (wantCode != "" || gotCode == "no_fetch_metadata" || gotCode == "cross_origin") && gotCode != wantCode {
			t.Fatalf("status %d, error %q; want error %q", w.Code, gotCode, wantCode)
		}
		for name, want := range map[string]string{
			"Cache-Control": "no-store", "Content-Type": "application/json",
			"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
		} {
			if got := w.Header().Get(name); got != want {
				t.Errorf("header %s: got %q, want %q", name, got, want)
			}
		}

		// Who should get a value: the owner of a pending secret, asking
		// with a same-origin GET of its redeemUrl.
		want := ""
		if method == "GET" && underBase && sameOrigin {
			for i, s := range fuzzSecrets[:2] {
				if id == fuzzID(i) && principal == s.owner {
					want = s.value
				}
			}
		}

		body := w.Body.String()
		if want == "" {
			for _, s := range fuzzSecrets {
				if strings.Contains(body, s.value) {
					t.Fatalf("status %d gave away %q: %s", w.Code, s.value, body)
				}
			}
			if w.Code == http.StatusOK {
				t.Fatalf("status 200 for a request that must not redeem: %s", body)
			}
			return
		}
		if w.Code != http.StatusOK {
			t.Fatalf("owner's same-origin GET: status %d, want 200 (%s)", w.Code, body)
		}
		var got struct{ Value string }
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || got.Value != want {
			t.Fatalf("body %s, want value %q", body, want)
		}
	})
}

// errorCode returns the "error" member of an error body, "" for any other.
func errorCode(body []byte) string {
	var b struct{ Error string }
	json.Unmarshal(body, &b)
	return b.Error
}
