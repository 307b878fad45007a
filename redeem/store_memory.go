package redeem

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Defaults for [MemoryStoreOptions].
const (
	// DefaultMaxStoreBytes bounds the memory a MemoryStore accounts for.
	DefaultMaxStoreBytes = 64 << 20
	// DefaultSweepInterval is how often a MemoryStore wipes expired values
	// and drops tombstones past their retention.
	DefaultSweepInterval = 10 * time.Second
)

// memEntryBytes is what a MemoryStore accounts for each entry besides its
// owner tag and sealed value: the map slot, the entry and the tombstone
// queue's share, rounded up (BenchmarkMemoryStoreOverhead measures it).
const memEntryBytes = 224

// MemoryStoreOptions configures a [MemoryStore]. The zero value is ready to
// use.
type MemoryStoreOptions struct {
	// MaxBytes bounds the memory, in bytes, that pending secrets and
	// tombstones take. When a Put would pass it, the oldest tombstones are
	// dropped (their ids then answer 404 instead of 410) and, if that is not
	// enough, Put fails with ErrStoreFull: a pending secret is never dropped
	// to make room. Zero means DefaultMaxStoreBytes.
	MaxBytes int64

	// SweepInterval is how often expired values are wiped and old
	// tombstones dropped. A Take never returns an expired value whether or
	// not it has been swept. Zero means DefaultSweepInterval.
	SweepInterval time.Duration
}

// MemoryStore is the [Store] a [Handler] uses unless told otherwise. It
// keeps everything in this process's memory, so it suits a backend that
// runs as a single instance; secrets don't survive a restart.
//
// It needs no Close: sweeping runs on a timer that is armed only while the
// store holds entries.
type MemoryStore struct {
	maxBytes int64
	interval time.Duration
	start    time.Time // monotonic clock origin

	mu      sync.Mutex
	m       map[Key]memEntry
	bytes   int64
	tombs   []Key // in the order they became tombstones; may hold stale keys
	sweeper *time.Timer
}

// memEntry is a pending secret while sealed is non-nil, a tombstone after.
type memEntry struct {
	owner  string
	sealed []byte
	// until is when the pending secret expires or, for a tombstone, when it
	// is dropped, in nanoseconds on the store's monotonic clock.
	until int64
	// retain is the retention to apply if the pending secret expires.
	retain time.Duration
}

// NewMemoryStore returns an empty MemoryStore. A nil opts means defaults.
// It panics if a field of opts is negative.
func NewMemoryStore(opts *MemoryStoreOptions) *MemoryStore {
	var o MemoryStoreOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxBytes < 0 || o.SweepInterval < 0 {
		panic("redeem: NewMemoryStore: MaxBytes and SweepInterval must not be negative")
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxStoreBytes
	}
	if o.SweepInterval == 0 {
		o.SweepInterval = DefaultSweepInterval
	}
	return &MemoryStore{
		maxBytes: o.MaxBytes,
		interval: o.SweepInterval,
		start:    time.Now(),
		m:        make(map[Key]memEntry),
	}
}

func (s *MemoryStore) now() int64 { return int64(time.Since(s.start)) }

func entryBytes(e memEntry) int64 {
	return memEntryBytes + int64(len(e.owner)+cap(e.sealed))
}

// Put implements [Store]. It fails with ErrStoreFull when the store is at
// MaxBytes even after dropping every tombstone.
func (s *MemoryStore) Put(_ context.Context, key Key, owner string, sealed []byte, ttl, retention time.Duration) error {
	if ttl <= 0 || retention < 0 {
		return errors.New("memory store: ttl must be positive and retention not negative")
	}
	e := memEntry{owner: owner, sealed: sealed, retain: retention}
	size := entryBytes(e)

	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	e.until = now + int64(ttl)
	if _, ok := s.m[key]; ok {
		return errors.New("memory store: key already in use")
	}
	if s.bytes+size > s.maxBytes {
		s.sweep(now)
		for s.bytes+size > s.maxBytes && s.dropOldestTombstone() {
		}
		if s.bytes+size > s.maxBytes {
			return ErrStoreFull
		}
	}
	s.m[key] = e
	s.bytes += size
	if s.sweeper == nil {
		s.sweeper = time.AfterFunc(s.interval, s.sweepTick)
	}
	return nil
}

// Take implements [Store].
func (s *MemoryStore) Take(_ context.Context, key Key, owner string, retention time.Duration) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	e, ok := s.m[key]
	if !ok {
		return nil, ErrNotFound
	}
	if e.sealed != nil && now >= e.until {
		e = s.expire(key, e)
	}
	if e.sealed == nil && now >= e.until {
		s.remove(key, e)
		return nil, ErrNotFound
	}
	if e.owner != owner {
		return nil, ErrNotOwner
	}
	if e.sealed == nil {
		return nil, ErrGone
	}
	sealed := e.sealed
	s.bytes -= int64(cap(sealed))
	e.sealed = nil
	e.until = now + int64(retention)
	s.m[key] = e
	s.tombs = append(s.tombs, key)
	return sealed, nil
}

// expire turns a pending entry whose time has come into a tombstone.
func (s *MemoryStore) expire(key Key, e memEntry) memEntry {
	s.bytes -= int64(cap(e.sealed))
	clear(e.sealed) // the value is sealed, but there is no reason to keep it
	e.sealed = nil
	e.until += int64(e.retain)
	s.m[key] = e
	s.tombs = append(s.tombs, key)
	return e
}

func (s *MemoryStore) remove(key Key, e memEntry) {
	delete(s.m, key)
	s.bytes -= entryBytes(e)
}

// dropOldestTombstone drops the tombstone that has been one the longest and
// reports whether there was one.
func (s *MemoryStore) dropOldestTombstone() bool {
	for len(s.tombs) > 0 {
		key := s.tombs[0]
		s.tombs = s.tombs[1:]
		if e, ok := s.m[key]; ok && e.sealed == nil {
			s.remove(key, e)
			return true
		}
	}
	return false
}

// sweep wipes expired values, drops tombstones past their retention and
// rebuilds the tombstone queue without stale keys.
func (s *MemoryStore) sweep(now int64) {
	for key, e := range s.m {
		if e.sealed != nil && now >= e.until {
			e = s.expire(key, e)
		}
		if e.sealed == nil && now >= e.until {
			s.remove(key, e)
		}
	}
	live := s.tombs[:0]
	for _, key := range s.tombs {
		if e, ok := s.m[key]; ok && e.sealed == nil {
			live = append(live, key)
		}
	}
	clear(s.tombs[len(live):])
	s.tombs = live
}

func (s *MemoryStore) sweepTick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(s.now())
	if len(s.m) == 0 {
		s.sweeper = nil
		s.tombs = nil
		return
	}
	s.sweeper.Reset(s.interval)
}

// Len reports how many pending secrets and tombstones the store holds.
func (s *MemoryStore) Len() (pending, tombstones int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.m {
		if e.sealed != nil {
			pending++
		} else {
			tombstones++
		}
	}
	return pending, tombstones
}
