package redisstore_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/veilmcp/veil/redeem"
	"github.com/veilmcp/veil/redeem/internal/benchcmp"
	"github.com/veilmcp/veil/redeem/redisstore"
)

// benchValue is the size of a typical API key.
const benchValue = "sk_live_0123456789abcdef0123456789abcdef"

// rawKeys SETs n plain keys holding a value the size of a sealed
// benchValue, for GETDEL to take, and returns their names.
func rawKeys(b *testing.B, c *redis.Client, prefix string, n int) []string {
	b.Helper()
	ctx := context.Background()
	sealed := make([]byte, len(benchValue)+28)
	keys := make([]string, n)
	for lo := 0; lo < n; lo += 1000 {
		p := c.Pipeline()
		for i := lo; i < min(lo+1000, n); i++ {
			keys[i] = prefix + "raw:" + strconv.Itoa(i)
			p.Set(ctx, keys[i], sealed, 0)
		}
		if _, err := p.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	return keys
}

func issueN(b *testing.B, h *redeem.Handler, n int) []*redeem.Reference {
	b.Helper()
	refs := make([]*redeem.Reference, n)
	for i := range refs {
		ref, err := h.Issue(context.Background(), "alice", redeem.Secret{Value: benchValue})
		if err != nil {
			b.Fatal(err)
		}
		refs[i] = ref
	}
	return refs
}

// BenchmarkRedeem measures one redemption through the Handler, in process,
// with the Redis store (one script round trip) against a raw GETDEL round
// trip of a value the same size, one at a time, in the same run.
// cost-vs-getdel is the redemption's cost as a multiple of GETDEL's
// (target: 2 or less).
func BenchmarkRedeem(b *testing.B) {
	c := sharedServer(b)
	prefix := freshPrefix()
	h := newHandler(b, redisstore.New(c, &redisstore.Options{Prefix: prefix}), nil)
	ctx := context.Background()

	b.StopTimer()
	refs := issueN(b, h, b.N)
	raw := rawKeys(b, c, prefix, b.N)
	b.StartTimer()
	res := benchcmp.Run(b, 1,
		func(i int) {
			if err := c.GetDel(ctx, raw[i]).Err(); err != nil {
				b.Fatal(err)
			}
		},
		func(i int) {
			if w := redeemAs(h, refs[i].RedeemURL, "alice"); w.Code != http.StatusOK {
				b.Fatalf("status %d", w.Code)
			}
		},
	)
	benchcmp.Report(b, res[1], res[0], "getdel")
}

// BenchmarkTake measures the store alone: one Take, the Lua script that
// checks the owner, reads, deletes and writes the tombstone, against a raw
// GETDEL in the same run.
func BenchmarkTake(b *testing.B) {
	c := sharedServer(b)
	prefix := freshPrefix()
	s := redisstore.New(c, &redisstore.Options{Prefix: prefix})
	ctx := context.Background()

	b.StopTimer()
	keys := make([]redeem.Key, b.N)
	sealed := make([]byte, len(benchValue)+28)
	for i := range keys {
		keys[i][0], keys[i][1], keys[i][2], keys[i][3] = byte(i), byte(i>>8), byte(i>>16), byte(i>>24)
		if err := s.Put(ctx, keys[i], "owner", sealed, redeem.DefaultTTL, redeem.DefaultRetention); err != nil {
			b.Fatal(err)
		}
	}
	raw := rawKeys(b, c, prefix, b.N)
	b.StartTimer()
	res := benchcmp.Run(b, 1,
		func(i int) {
			if err := c.GetDel(ctx, raw[i]).Err(); err != nil {
				b.Fatal(err)
			}
		},
		func(i int) {
			if _, err := s.Take(ctx, keys[i], "owner", redeem.DefaultRetention); err != nil {
				b.Fatal(err)
			}
		},
	)
	benchcmp.Report(b, res[1], res[0], "getdel")
}

// BenchmarkRedeemCluster measures one redemption through the Handler
// against the three-master Redis Cluster and against one redis-server, one
// at a time, in the same run. cost-vs-single is the cluster's cost as a
// multiple of the single node's (budget: 1.5 or less).
func BenchmarkRedeemCluster(b *testing.B) {
	single := newHandler(b, redisstore.New(sharedServer(b), &redisstore.Options{Prefix: freshPrefix()}), nil)
	cc := sharedCluster(b).client()
	defer cc.Close()
	cluster := newHandler(b, redisstore.New(cc, &redisstore.Options{Prefix: freshPrefix()}), nil)

	b.StopTimer()
	singleRefs, clusterRefs := issueN(b, single, b.N), issueN(b, cluster, b.N)
	b.StartTimer()
	redeem := func(h *redeem.Handler, refs []*redeem.Reference) func(int) {
		return func(i int) {
			if w := redeemAs(h, refs[i].RedeemURL, "alice"); w.Code != http.StatusOK {
				b.Fatalf("status %d", w.Code)
			}
		}
	}
	res := benchcmp.Run(b, 1, redeem(single, singleRefs), redeem(cluster, clusterRefs))
	benchcmp.Report(b, res[1], res[0], "single")
}
