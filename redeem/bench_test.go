package redeem_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/veilmcp/veil/redeem"
	"github.com/veilmcp/veil/redeem/internal/benchcmp"
)

// The benchmarks time what they measure and its baseline in the same run
// and report the ratio as a metric:
//
//	go test -run '^$' -bench . ./redeem/...

// benchValue is the size of a typical API key.
const benchValue = "sk_live_0123456789abcdef0123456789abcdef"

// sessionCookie stands in for an application's session lookup, as cheap
// as a signed-cookie check.
func sessionCookie(r *http.Request) (string, error) {
	c, err := r.Cookie("session")
	if err != nil {
		return "", err
	}
	return c.Value, nil
}

// newBenchHandler returns a Handler over a memory store big enough for any
// b.N, with rate limits that never refuse but still count.
func newBenchHandler(b *testing.B) *redeem.Handler {
	h, err := redeem.New(sessionCookie, &redeem.Options{
		Key:                make([]byte, redeem.KeySize),
		Store:              redeem.NewMemoryStore(&redeem.MemoryStoreOptions{MaxBytes: 8 << 30}),
		PrincipalPerSecond: 1e12, PrincipalBurst: 1 << 30,
		AddressPerSecond: 1e12, AddressBurst: 1 << 30,
		Logger: discard,
	})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// bareHandler is the baseline: a handler that writes a constant JSON body.
var bareHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"value":"` + benchValue + `"}`))
})

// issueN issues n secrets, off the clock, and returns their redeemUrls.
func issueN(b *testing.B, h *redeem.Handler, n int) []string {
	b.Helper()
	b.StopTimer()
	defer b.StartTimer()
	urls := make([]string, n)
	for i := range urls {
		ref, err := h.Issue(context.Background(), "alice", redeem.Secret{Value: benchValue})
		if err != nil {
			b.Fatal(err)
		}
		urls[i] = ref.RedeemURL
	}
	return urls
}

func setFetchHeaders(h http.Header) {
	h.Set("Cookie", "session=alice")
	h.Set("Sec-Fetch-Site", "same-origin")
	h.Set("Sec-Fetch-Mode", "cors")
	h.Set("Sec-Fetch-Dest", "empty")
}

// BenchmarkRedeemHTTP measures redemption throughput through a loopback
// HTTP server with keep-alive clients, against the bare handler served
// the same way in the same run. ns/op, B/op and allocs/op are the
// redemption's, client and server together; x-bare is its throughput as a
// fraction of the bare handler's (target: 0.7 or more).
func BenchmarkRedeemHTTP(b *testing.B) {
	h := newBenchHandler(b)
	mux := http.NewServeMux()
	mux.Handle("/redeem/{id}", h)
	mux.Handle("/bare/{id}", bareHandler)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	workers := 4 * runtime.GOMAXPROCS(0)
	tr := srv.Client().Transport.(*http.Transport)
	tr.MaxIdleConnsPerHost = workers
	client := &http.Client{Transport: tr}

	get := func(path string) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		setFetchHeaders(req.Header)
		resp, err := client.Do(req)
		if err != nil {
			b.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Errorf("GET %s: status %d", path, resp.StatusCode)
		}
	}
	urls := issueN(b, h, b.N)
	res := benchcmp.Run(b, workers,
		func(int) { get("/bare/x") },
		func(i int) { get(urls[i]) },
	)
	benchcmp.Report(b, res[1], res[0], "bare")
}

// BenchmarkRedeemInProcess measures the Handler's own cost, called
// directly with a recorder, against the bare handler called the same way.
// With no network in between, x-bare shows the handler's work (hashing,
// unsealing, rate limiting, the store) next to doing nothing.
func BenchmarkRedeemInProcess(b *testing.B) {
	h := newBenchHandler(b)
	serve := func(handler http.Handler, path string) {
		r := httptest.NewRequest("GET", path, nil)
		setFetchHeaders(r.Header)
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("GET %s: status %d", path, w.Code)
		}
	}
	urls := issueN(b, h, b.N)
	res := benchcmp.Run(b, 1,
		func(int) { serve(bareHandler, "/bare/x") },
		func(i int) { serve(h, urls[i]) },
	)
	benchcmp.Report(b, res[1], res[0], "bare")
}

// BenchmarkMemoryStoreOverhead issues b.N secrets into a memory store and
// reports the heap each pending secret takes beyond its value: the map
// slot, the entry, the owner tag, the sealed value's nonce and tag
// (target: 512 bytes or less). ns/op is the cost of Issue.
func BenchmarkMemoryStoreOverhead(b *testing.B) {
	h := newBenchHandler(b)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		if _, err := h.Issue(context.Background(), "alice", redeem.Secret{Value: benchValue}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(h)
	perSecret := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(b.N)
	b.ReportMetric(perSecret-float64(len(benchValue)), "B/secret-overhead")
}
