package redeem_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/redeem"
	"github.com/veilmcp/veil/redeem/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.RunVirtualTime(t, func(t *testing.T) redeem.Store { return redeem.NewMemoryStore(nil) })
}

func randomKey() redeem.Key {
	var k redeem.Key
	rand.Read(k[:])
	return k
}

// TestMemoryStoreSweepsExpired runs in a bubble (testing/synctest): the
// sweeps run on its clock, every SweepInterval from the first Put.
func TestMemoryStoreSweepsExpired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval, ttl, retention = 10 * time.Second, time.Minute, 5 * time.Minute
		start := time.Now()
		s := redeem.NewMemoryStore(&redeem.MemoryStoreOptions{SweepInterval: interval})
		ctx := context.Background()
		require.NoError(t, s.Put(ctx, randomKey(), "a", []byte("v"), ttl, retention), "Put")
		require.NoError(t, s.Put(ctx, randomKey(), "a", []byte("v"), time.Hour, time.Hour), "Put")
		lenAt := func(at time.Duration) (pending, tombstones int) {
			time.Sleep(at - time.Since(start))
			synctest.Wait()
			return s.Len()
		}

		pending, tombs := lenAt(ttl - time.Second)
		assert.Equal(t, [2]int{2, 0}, [2]int{pending, tombs}, "pending and tombstones before the ttl")
		pending, tombs = lenAt(ttl + time.Second)
		assert.Equal(t, [2]int{1, 1}, [2]int{pending, tombs}, "the expired secret should be swept into a tombstone at the sweep after its ttl")
		pending, tombs = lenAt(ttl + retention - time.Second)
		assert.Equal(t, [2]int{1, 1}, [2]int{pending, tombs}, "the tombstone should last for its retention")
		pending, tombs = lenAt(ttl + retention + time.Second)
		assert.Equal(t, [2]int{1, 0}, [2]int{pending, tombs}, "the tombstone should be dropped at the sweep after its retention")
	})
}

func TestMemoryStoreBounded(t *testing.T) {
	ctx := context.Background()
	value := make([]byte, 100)
	// Room for about ten pending secrets.
	s := redeem.NewMemoryStore(&redeem.MemoryStoreOptions{MaxBytes: 10 * (100 + 10 + 224)})

	var keys []redeem.Key
	for i := range 20 {
		k := randomKey()
		err := s.Put(ctx, k, fmt.Sprint("owner", i%10), value, time.Hour, time.Hour)
		if err != nil {
			require.ErrorIs(t, err, redeem.ErrStoreFull, "Put #%d", i)
			break
		}
		keys = append(keys, k)
	}
	require.Len(t, keys, 10, "pending secrets that fit")

	// Taking a secret leaves a small tombstone, and tombstones make way for
	// new secrets: the oldest goes first.
	for _, k := range keys[:5] {
		_, err := s.Take(ctx, k, "owner"+fmt.Sprint(indexOf(keys, k)%10), time.Hour)
		require.NoError(t, err, "Take")
	}
	for range 4 {
		require.NoError(t, s.Put(ctx, randomKey(), "owner0", value, time.Hour, time.Hour), "Put after Takes")
	}
	pending, tombs := s.Len()
	assert.Equal(t, 9, pending, "pending secrets")
	assert.Less(t, tombs, 5, "tombstones left")
	_, err := s.Take(ctx, keys[0], "owner0", time.Hour)
	assert.ErrorIs(t, err, redeem.ErrNotFound, "Take of the oldest tombstone's key after it made way")
	_, err = s.Take(ctx, keys[4], "owner4", time.Hour)
	assert.ErrorIs(t, err, redeem.ErrGone, "Take of the newest tombstone's key")

	// Pending secrets are never dropped: with no tombstones left, Put fails.
	for {
		err := s.Put(ctx, randomKey(), "owner0", value, time.Hour, time.Hour)
		if err != nil {
			require.ErrorIs(t, err, redeem.ErrStoreFull, "Put into a full store")
			break
		}
	}
	for i, k := range keys[5:] {
		_, err := s.Take(ctx, k, fmt.Sprint("owner", 5+i), time.Hour)
		assert.NoError(t, err, "Take of pending secret %d once the store is full", 5+i)
	}
}

func indexOf(keys []redeem.Key, k redeem.Key) int {
	for i, x := range keys {
		if x == k {
			return i
		}
	}
	return -1
}

func TestNewMemoryStorePanicsOnNegative(t *testing.T) {
	assert.Panics(t, func() { redeem.NewMemoryStore(&redeem.MemoryStoreOptions{MaxBytes: -1}) })
}
