package redeem

import (
	"container/list"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiters holds one token bucket per key (a principal or a client
// address). Memory is bounded: it keeps at most max buckets, least recently
// used last, drops buckets that have refilled (an idle bucket is the same as
// a new one, so dropping it forgets nothing), and past max drops the least
// recently used one.
type limiters struct {
	limit rate.Limit
	burst int
	max   int
	// idle is how long a bucket takes to refill from empty.
	idle time.Duration

	mu  sync.Mutex
	m   map[string]*list.Element
	lru list.List // of *bucket, most recently used first
}

type bucket struct {
	key  string
	lim  *rate.Limiter
	seen time.Time
}

// limitersFor returns the limiters of Options.{name}PerSecond and
// Options.{name}Burst, with their defaults for zero values.
func limitersFor(name string, perSecond float64, burst int, defPerSecond float64, defBurst, max int) (*limiters, error) {
	switch {
	case math.IsNaN(perSecond) || perSecond < 0:
		return nil, fmt.Errorf("redeem: Options.%sPerSecond is %v: want a positive rate, 0 for the default or redeem.Unlimited", name, perSecond)
	case burst < 0:
		return nil, fmt.Errorf("redeem: Options.%sBurst is negative (%d)", name, burst)
	}
	if perSecond == 0 {
		perSecond = defPerSecond
	}
	if burst == 0 {
		burst = defBurst
	}
	limit := rate.Limit(perSecond)
	if perSecond >= Unlimited {
		limit = rate.Inf
	}
	return newLimiters(limit, burst, max), nil
}

func newLimiters(limit rate.Limit, burst, max int) *limiters {
	l := &limiters{limit: limit, burst: burst, max: max, m: make(map[string]*list.Element)}
	if limit != rate.Inf && limit > 0 {
		l.idle = seconds(float64(burst) / float64(limit))
	}
	return l
}

// seconds converts s seconds to a Duration, the longest one for anything
// longer: a rate of one request a century is allowed.
func seconds(s float64) time.Duration {
	if s >= float64(math.MaxInt64)/float64(time.Second) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(s * float64(time.Second))
}

// allow takes a token from key's bucket. When there is none it returns
// false and how long until there is one.
func (l *limiters) allow(key string, now time.Time) (bool, time.Duration) {
	if l.limit == rate.Inf {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()

	// Forget up to two buckets that have been idle long enough to be full
	// again: amortized eviction with no goroutine to stop.
	for range 2 {
		back := l.lru.Back()
		if back == nil || now.Sub(back.Value.(*bucket).seen) < l.idle {
			break
		}
		delete(l.m, back.Value.(*bucket).key)
		l.lru.Remove(back)
	}

	var b *bucket
	if e, ok := l.m[key]; ok {
		b = e.Value.(*bucket)
		l.lru.MoveToFront(e)
	} else {
		if len(l.m) >= l.max {
			back := l.lru.Back()
			delete(l.m, back.Value.(*bucket).key)
			l.lru.Remove(back)
		}
		b = &bucket{key: key, lim: rate.NewLimiter(l.limit, l.burst)}
		l.m[key] = l.lru.PushFront(b)
	}
	b.seen = now
	if b.lim.AllowN(now, 1) {
		return true, 0
	}
	if l.limit <= 0 {
		return false, time.Duration(math.MaxInt64)
	}
	missing := 1 - b.lim.TokensAt(now)
	return false, seconds(missing / float64(l.limit))
}

func (l *limiters) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}

// RemoteAddress is the default [Options.ClientAddress]: the host part of
// r.RemoteAddr, with IPv6 addresses cut to their /64 network, since one
// client usually holds a whole /64.
func RemoteAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
