//go:build soak

package redisstore_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/veilmcp/veil/redeem"
	"github.com/veilmcp/veil/redeem/redisstore"
)

// The redeem soak (make soak-redeem; the soak build tag keeps it out of
// go test ./...): secrets are issued at a steady rate, and each is raced
// for by several redeemers at once over HTTP on loopback, against the
// memory store, one redis-server and the three-master Redis Cluster. It
// is bounded by a count and a time, whichever comes first, and reports
// latency percentiles. Every secret must be handed out exactly once, with
// the value it was issued with; every other answer must be 410.
//
// Environment (defaults in parentheses):
//
//	SOAK_REDEEM_COUNT    secrets per store (12000)
//	SOAK_REDEEM_TIME     time per store (90s)
//	SOAK_REDEEM_RATE     secrets issued per second (200)
//	SOAK_REDEEM_RACERS   redeemers racing for each secret (4)
//	SOAK_REDEEM_STORES   the stores, comma-separated (memory,redis,cluster)

// soakRedeemConfig is what the environment asks of the redeem soak.
type soakRedeemConfig struct {
	count  int
	limit  time.Duration
	rate   float64
	racers int
	stores []string
}

func soakRedeemEnv(t *testing.T) soakRedeemConfig {
	t.Helper()
	c := soakRedeemConfig{count: 12000, limit: 90 * time.Second, rate: 200, racers: 4, stores: []string{"memory", "redis", "cluster"}}
	num := func(name string, into func(string) error) {
		if v := os.Getenv(name); v != "" {
			require.NoError(t, into(v), "%s=%q", name, v)
		}
	}
	num("SOAK_REDEEM_COUNT", func(v string) (err error) { c.count, err = strconv.Atoi(v); return })
	num("SOAK_REDEEM_TIME", func(v string) (err error) { c.limit, err = time.ParseDuration(v); return })
	num("SOAK_REDEEM_RATE", func(v string) (err error) { c.rate, err = strconv.ParseFloat(v, 64); return })
	num("SOAK_REDEEM_RACERS", func(v string) (err error) { c.racers, err = strconv.Atoi(v); return })
	if v := os.Getenv("SOAK_REDEEM_STORES"); v != "" {
		c.stores = strings.Split(v, ",")
	}
	require.Positive(t, c.count, "SOAK_REDEEM_COUNT")
	require.Positive(t, c.limit, "SOAK_REDEEM_TIME")
	require.Positive(t, c.rate, "SOAK_REDEEM_RATE")
	require.GreaterOrEqual(t, c.racers, 2, "SOAK_REDEEM_RACERS: a race needs two")
	return c
}

// soakMaxInFlight bounds the secrets being issued and raced for at once:
// past it the issuer waits, which shows as a rate below the one asked for.
const soakMaxInFlight = 64

func TestSoakRedeem(t *testing.T) {
	cfg := soakRedeemEnv(t)
	var results []*soakRedeemResult
	for _, name := range cfg.stores {
		t.Run(name, func(t *testing.T) {
			var store redeem.Store
			switch name {
			case "memory":
				store = redeem.NewMemoryStore(nil)
			case "redis":
				store = redisstore.New(sharedServer(t), &redisstore.Options{Prefix: freshPrefix()})
			case "cluster":
				cc := sharedCluster(t).client()
				t.Cleanup(func() { cc.Close() })
				store = redisstore.New(cc, &redisstore.Options{Prefix: freshPrefix()})
			default:
				require.FailNow(t, "SOAK_REDEEM_STORES names an unknown store", "%q: want memory, redis or cluster", name)
			}
			res := soakRedeem(t, cfg, store)
			res.store = name
			results = append(results, res)
			res.check(t)
		})
	}
	t.Logf("redeem soak: %d racers per secret, asked for %g secrets/s, at most %d or %v per store\n%s",
		cfg.racers, cfg.rate, cfg.count, cfg.limit, soakRedeemTable(results))
}

// soakRedeemResult is what one store's soak saw.
type soakRedeemResult struct {
	store    string
	elapsed  time.Duration
	issued   int
	issueErr int
	requests int
	// statuses counts the redemption answers by status code.
	statuses map[int]int
	// won counts the 200s each secret got, by its index.
	won []int32
	// wrong counts 200s whose value was not the secret's.
	wrong      int
	again      int
	againOK    int
	issueTimes []time.Duration
	takeTimes  []time.Duration
}

// soakRedeem runs the soak against one store.
func soakRedeem(t *testing.T, cfg soakRedeemConfig, store redeem.Store) *soakRedeemResult {
	h := newHandler(t, store, func(o *redeem.Options) { o.TTL = time.Hour })
	srv := httptest.NewServer(h) // loopback
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: soakMaxInFlight * cfg.racers}, Timeout: 10 * time.Second}
	t.Cleanup(client.CloseIdleConnections)

	res := &soakRedeemResult{statuses: map[int]int{}, won: make([]int32, cfg.count)}
	refs := make([]*redeem.Reference, cfg.count)
	var mu sync.Mutex // guards res's counters and slices
	limiter := rate.NewLimiter(rate.Limit(cfg.rate), 1)
	sem := make(chan struct{}, soakMaxInFlight)
	ctx, cancel := context.WithTimeout(context.Background(), cfg.limit)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	n := 0
	for ; n < cfg.count; n++ {
		if limiter.Wait(ctx) != nil {
			break
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		i := n
		wg.Go(func() {
			defer func() { <-sem }()
			value := "sk_soak_" + rand.Text()
			t0 := time.Now()
			ref, err := h.Issue(context.Background(), "alice", redeem.Secret{Value: value, Label: "soak"})
			took := time.Since(t0)
			mu.Lock()
			res.issueTimes = append(res.issueTimes, took)
			if err != nil {
				res.issueErr++
			}
			mu.Unlock()
			if err != nil {
				return
			}
			refs[i] = ref
			// The racers start together, so that they meet in the store.
			gate := make(chan struct{})
			var race sync.WaitGroup
			for range cfg.racers {
				race.Go(func() {
					<-gate
					status, got, took := soakGet(client, srv.URL+ref.RedeemURL)
					mu.Lock()
					defer mu.Unlock()
					res.requests++
					res.statuses[status]++
					res.takeTimes = append(res.takeTimes, took)
					if status == http.StatusOK {
						res.won[i]++
						if got != value {
							res.wrong++
						}
					}
				})
			}
			close(gate)
			race.Wait()
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.issued = n
	res.won = res.won[:n]

	// Afterwards, every secret once more: none may be handed out again.
	for _, ref := range refs[:n] {
		if ref == nil {
			continue
		}
		status, _, _ := soakGet(client, srv.URL+ref.RedeemURL)
		res.again++
		if status != http.StatusGone {
			res.againOK++
		}
	}
	return res
}

// soakGet redeems a reference as the owner's browser does, and returns
// the status, the value of a 200 and how long the round trip took.
func soakGet(client *http.Client, url string) (int, string, time.Duration) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, "", 0
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Sec-Fetch-Mode", "cors")
	req.Header.Set("Sec-Fetch-Dest", "empty")
	req.Header.Set("X-Principal", "alice")
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", time.Since(t0)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(t0)
	if err != nil {
		return 0, "", took
	}
	var v struct {
		Value string `json:"value"`
	}
	if resp.StatusCode == http.StatusOK {
		json.Unmarshal(body, &v)
	}
	return resp.StatusCode, v.Value, took
}

// check asserts the soak's promises: every issued secret was handed out
// exactly once, with its value; every losing racer heard 410; nothing
// was handed out afterwards.
func (r *soakRedeemResult) check(t *testing.T) {
	t.Helper()
	require.Positive(t, r.issued, "no secret was issued")
	assert.Zero(t, r.issueErr, "Issue errors")
	var twice, never []int
	for i, w := range r.won {
		switch {
		case w > 1:
			twice = append(twice, i)
		case w == 0:
			never = append(never, i)
		}
	}
	assert.Empty(t, twice, "secrets redeemed more than once (by index)")
	assert.Empty(t, never, "secrets no racer got (by index)")
	assert.Zero(t, r.wrong, "200s with a value other than the secret's")
	for status, n := range r.statuses {
		if status != http.StatusOK && status != http.StatusGone {
			assert.Fail(t, "a racer got an answer other than 200 or 410", "status %d, %d times", status, n)
		}
	}
	assert.Zero(t, r.againOK, "redemptions after the race that did not answer 410")
}

// double is how many secrets got more than one 200.
func (r *soakRedeemResult) double() int {
	n := 0
	for _, w := range r.won {
		if w > 1 {
			n++
		}
	}
	return n
}

// soakRedeemTable renders the results as a Markdown table.
func soakRedeemTable(results []*soakRedeemResult) string {
	var b strings.Builder
	b.WriteString("| store | secrets | time | issued/s | redemptions | 200 | 410 | other | double | issue p50 | p90 | p99 | max | redeem p50 | p90 | p99 | max |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		other := r.requests - r.statuses[http.StatusOK] - r.statuses[http.StatusGone]
		ip, tp := percentiles(r.issueTimes), percentiles(r.takeTimes)
		fmt.Fprintf(&b, "| %s | %d | %v | %.0f | %d | %d | %d | %d | %d | %v | %v | %v | %v | %v | %v | %v | %v |\n",
			r.store, r.issued, r.elapsed.Round(100*time.Millisecond), float64(r.issued)/r.elapsed.Seconds(),
			r.requests, r.statuses[http.StatusOK], r.statuses[http.StatusGone], other, r.double(),
			ip[0], ip[1], ip[2], ip[3], tp[0], tp[1], tp[2], tp[3])
	}
	return b.String()
}

// percentiles returns p50, p90, p99 and the maximum of ds, rounded.
func percentiles(ds []time.Duration) [4]time.Duration {
	if len(ds) == 0 {
		return [4]time.Duration{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(p float64) time.Duration {
		i := int(p*float64(len(s))+0.5) - 1
		return s[min(max(i, 0), len(s)-1)].Round(time.Microsecond)
	}
	return [4]time.Duration{at(0.50), at(0.90), at(0.99), s[len(s)-1].Round(time.Microsecond)}
}
