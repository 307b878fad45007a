package redeem

import (
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

func TestLimitersRetryAfter(t *testing.T) {
	l := newLimiters(rate.Every(10*time.Second), 2, 10)
	now := time.Unix(1000, 0)
	for i := range 2 {
		ok, _ := l.allow("k", now)
		require.True(t, ok, "allow #%d within the burst", i)
	}
	ok, wait := l.allow("k", now)
	require.False(t, ok, "allow past the burst")
	assert.InDelta(t, 10*time.Second, wait, float64(time.Millisecond), "wait")
	ok, wait = l.allow("k", now.Add(4*time.Second))
	require.False(t, ok, "allow 4s later")
	assert.InDelta(t, 6*time.Second, wait, float64(time.Millisecond), "wait 4s later")
	ok, _ = l.allow("k", now.Add(10*time.Second))
	assert.True(t, ok, "allow once a token is back")
}

func TestLimitersBounded(t *testing.T) {
	l := newLimiters(rate.Every(time.Second), 5, 100)
	now := time.Unix(1000, 0)
	for i := range 10000 {
		l.allow(fmt.Sprint("addr", i), now)
	}
	assert.Equal(t, 100, l.len(), "buckets after 10000 keys")

	// The most recently used buckets are the ones kept.
	for range 5 {
		l.allow("hot", now)
	}
	for i := range 99 {
		l.allow(fmt.Sprint("cold", i), now)
	}
	ok, _ := l.allow("hot", now)
	assert.False(t, ok, "the hot key's bucket must survive 99 other keys")
}

func TestLimitersEvictIdle(t *testing.T) {
	// A bucket refills in burst/limit = 5s; after that it is idle.
	l := newLimiters(rate.Every(time.Second), 5, 1000)
	now := time.Unix(1000, 0)
	for i := range 500 {
		l.allow(fmt.Sprint("addr", i), now)
	}
	require.Equal(t, 500, l.len())
	later := now.Add(6 * time.Second)
	for i := range 300 {
		l.allow(fmt.Sprint("new", i), later)
	}
	// Each call drops up to two idle buckets.
	assert.Equal(t, 300, l.len(), "buckets once the first 500 went idle")

	// A bucket that is not yet full again is not evicted as idle.
	l = newLimiters(rate.Every(time.Second), 5, 1000)
	for range 5 {
		l.allow("busy", now)
	}
	l.allow("other", now.Add(3*time.Second))
	ok, _ := l.allow("busy", now.Add(3*time.Second))
	assert.True(t, ok, "3 tokens back after 3s")
	ok, _ = l.allow("busy", now.Add(3*time.Second))
	assert.True(t, ok)
	ok, _ = l.allow("busy", now.Add(3*time.Second))
	assert.True(t, ok)
	ok, _ = l.allow("busy", now.Add(3*time.Second))
	assert.False(t, ok, "the bucket was kept, so its 4th request in the same instant is refused")
}

func TestLimitersInf(t *testing.T) {
	l := newLimiters(rate.Inf, 1, 10)
	for i := range 100 {
		ok, _ := l.allow(fmt.Sprint(i), time.Now())
		require.True(t, ok)
	}
	assert.Equal(t, 0, l.len(), "no buckets kept when the limit is off")
}

// TestLimitsFromOptions checks the token buckets New makes of the rate
// limit options: zero values mean the defaults, each field on its own.
func TestLimitsFromOptions(t *testing.T) {
	for _, tt := range []struct {
		name      string
		opts      Options
		userLimit rate.Limit
		userBurst int
		addrLimit rate.Limit
		addrBurst int
	}{
		{"zero", Options{}, 1, 10, 5, 50},
		{"principal rate", Options{PrincipalPerSecond: 2}, 2, 10, 5, 50},
		{"principal burst", Options{PrincipalBurst: 3}, 1, 3, 5, 50},
		{"address rate", Options{AddressPerSecond: 0.5}, 1, 10, 0.5, 50},
		{"address burst", Options{AddressBurst: 7}, 1, 10, 5, 7},
		{"one a minute", Options{PrincipalPerSecond: 1.0 / 60, AddressPerSecond: 1.0 / 60}, rate.Every(time.Minute), 10, rate.Every(time.Minute), 50},
		{"Unlimited", Options{PrincipalPerSecond: Unlimited, AddressPerSecond: Unlimited}, rate.Inf, 10, rate.Inf, 50},
		{"+Inf", Options{PrincipalPerSecond: math.Inf(1), AddressPerSecond: math.Inf(1)}, rate.Inf, 10, rate.Inf, 50},
	} {
		h, err := New(principalHeader, &tt.opts)
		require.NoError(t, err, "%s: New", tt.name)
		assert.Equal(t, tt.userLimit, h.byUser.limit, "%s: principal limit", tt.name)
		assert.Equal(t, tt.userBurst, h.byUser.burst, "%s: principal burst", tt.name)
		assert.Equal(t, tt.addrLimit, h.byAddr.limit, "%s: address limit", tt.name)
		assert.Equal(t, tt.addrBurst, h.byAddr.burst, "%s: address burst", tt.name)
	}
}

// TestLimitersSlow checks a rate so slow that a bucket takes longer than
// a Duration holds to refill: the wait is the longest Duration, never a
// negative one that would read as "no wait".
func TestLimitersSlow(t *testing.T) {
	l := newLimiters(rate.Limit(1e-300), 1, 10)
	assert.Equal(t, time.Duration(math.MaxInt64), l.idle, "idle")
	now := time.Unix(1000, 0)
	ok, _ := l.allow("k", now)
	require.True(t, ok, "first request")
	ok, wait := l.allow("k", now.Add(time.Hour))
	require.False(t, ok, "second request an hour later")
	assert.Equal(t, time.Duration(math.MaxInt64), wait, "wait")
	assert.Equal(t, 1, l.len(), "the bucket is not dropped as idle")
}

func TestRemoteAddress(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"192.0.2.1:1234", "192.0.2.1"},
		{"[::ffff:192.0.2.1]:1234", "192.0.2.1"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[fe80::1%eth0]:443", "fe80::/64"},
		{"192.0.2.1", "192.0.2.1"},
		{"@", "@"},
		{"", ""},
	} {
		r := &http.Request{RemoteAddr: tt.in}
		assert.Equal(t, tt.want, RemoteAddress(r), "RemoteAddress(%q)", tt.in)
	}
}
