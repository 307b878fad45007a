package redeem

import (
	"fmt"
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
