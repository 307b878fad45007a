package redisstore_test

import (
	"context"
	"net/http"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/redeem"
	"github.com/veilmcp/veil/redeem/redisstore"
	"github.com/veilmcp/veil/redeem/storetest"
)

// TestClusterConformance runs the store's conformance suite, the
// 64-concurrent × 100-round single-winner test included, against a Redis
// Cluster of three masters with a replica each.
func TestClusterConformance(t *testing.T) {
	cl := sharedCluster(t)
	c := cl.client()
	t.Cleanup(func() { c.Close() })
	storetest.Run(t, func(t *testing.T) redeem.Store {
		return redisstore.New(c, &redisstore.Options{Prefix: freshPrefix()})
	})
}

// TestClusterReshard moves 1,500 slots, with the live secrets in them,
// from one master to another while secrets are issued and each is
// redeemed by several clients at once, batch after batch until the move
// is over: each secret is delivered exactly once, nothing is lost and
// nothing is delivered twice.
func TestClusterReshard(t *testing.T) {
	const moved = 1500
	cl := sharedCluster(t)
	c := cl.client()
	t.Cleanup(func() { c.Close() })
	h := newHandler(t, redisstore.New(c, &redisstore.Options{Prefix: freshPrefix()}), nil)

	nodes, err := cl.nodesView()
	require.NoError(t, err)
	var masters []node
	for _, n := range nodes {
		if n.isMaster {
			masters = append(masters, n)
		}
	}
	require.Len(t, masters, 3, "masters")
	from := slotsOf(t, c, masters[0].addr)
	require.Greater(t, from, moved, "slots of the master they move from")

	reshard := make(chan error, 1)
	go func() {
		out, err := exec.Command("redis-cli", "--cluster", "reshard", masters[0].addr,
			"--cluster-from", masters[0].id, "--cluster-to", masters[1].id,
			"--cluster-slots", strconv.Itoa(moved), "--cluster-yes").CombinedOutput()
		if err != nil {
			err = &reshardError{err, string(out)}
		}
		reshard <- err
	}()

	const batch, racers = 50, 4
	var delivered, gone, retried atomic.Int64
	var secrets, during int
	var reshardErr error
	for moving := true; moving; {
		select {
		case reshardErr = <-reshard:
			moving = false // one more batch after the move
		default:
			during++
		}
		refs := make([]*redeem.Reference, batch)
		for i := range refs {
			refs[i] = issue(t, h, redeem.Secret{Value: "v"})
		}
		wins := make([]atomic.Int32, batch)
		var wg sync.WaitGroup
		for i := range batch * racers {
			wg.Go(func() {
				ref := refs[i%batch]
				for {
					w := redeemAs(h, ref.RedeemURL, "alice")
					switch w.Code {
					case http.StatusOK:
						delivered.Add(1)
						wins[i%batch].Add(1)
					case http.StatusGone:
						gone.Add(1)
					case http.StatusServiceUnavailable:
						// A store error during the move: the answer is
						// unknown, so the client asks again.
						retried.Add(1)
						time.Sleep(5 * time.Millisecond)
						continue
					default:
						t.Errorf("status %d: %s", w.Code, w.Body)
					}
					return
				}
			})
		}
		wg.Wait()
		for i := range wins {
			assert.EqualValues(t, 1, wins[i].Load(), "a secret's deliveries")
		}
		secrets += batch
	}
	require.NoError(t, reshardErr, "resharding")
	require.NoError(t, cl.waitOK(20*time.Second))
	assert.Greater(t, during, 1, "batches redeemed while the slots moved")
	assert.EqualValues(t, secrets, delivered.Load(), "deliveries")
	assert.EqualValues(t, secrets*(racers-1), gone.Load(), "410s")
	t.Logf("%d secrets in %d batches, %d during a move of %d slots, %d racers each: %d delivered, %d gone, %d answers of 503 asked again",
		secrets, secrets/batch, during, moved, racers, delivered.Load(), gone.Load(), retried.Load())

	assert.Equal(t, from-moved, slotsOf(t, c, masters[0].addr), "slots left on the master they moved from")
}

// slotsOf counts the slots the master at addr serves.
func slotsOf(t *testing.T, c *redis.ClusterClient, addr string) int {
	t.Helper()
	slots, err := c.ClusterSlots(context.Background()).Result()
	require.NoError(t, err, "CLUSTER SLOTS")
	n := 0
	for _, s := range slots {
		if len(s.Nodes) > 0 && s.Nodes[0].Addr == addr {
			n += s.End - s.Start + 1
		}
	}
	return n
}

type reshardError struct {
	err error
	out string
}

func (e *reshardError) Error() string { return e.err.Error() + ": " + e.out }

// TestClusterMinReplicas: with MinReplicas a redemption in the cluster
// waits for a replica of the secret's master; with its replicas paused,
// the redemption answers 503 and hands nothing out, and once the replica
// is back the secret is redeemed once.
func TestClusterMinReplicas(t *testing.T) {
	cl := sharedCluster(t)
	c := cl.client()
	t.Cleanup(func() { c.Close() })
	prefix := freshPrefix()
	// A replica that is up answers in microseconds, but a loaded machine
	// can hold it back for longer: the wait for it is generous. The wait
	// for a paused one is short, well inside the cluster's node timeout.
	h := newHandler(t, redisstore.New(c, &redisstore.Options{Prefix: prefix, MinReplicas: 1, ReplicaTimeout: 5 * time.Second}), nil)
	hPaused := newHandler(t, redisstore.New(c, &redisstore.Options{Prefix: prefix, MinReplicas: 1, ReplicaTimeout: 200 * time.Millisecond}), nil)

	ref := issue(t, h, redeem.Secret{Value: "replicated"})
	require.NotEmpty(t, replicasOf(t, cl, c, prefix))
	w := redeemAs(h, ref.RedeemURL, "alice")
	require.Equal(t, http.StatusOK, w.Code, "redeem with the replica up: %s", w.Body)
	assert.JSONEq(t, `{"value":"replicated"}`, w.Body.String())

	ref = issue(t, h, redeem.Secret{Value: "held-back"})
	replicas := replicasOf(t, cl, c, prefix)
	for _, r := range replicas {
		require.NoError(t, r.signal(syscall.SIGSTOP))
	}
	w = redeemAs(hPaused, ref.RedeemURL, "alice")
	for _, r := range replicas {
		require.NoError(t, r.signal(syscall.SIGCONT))
	}
	assert.Equal(t, http.StatusServiceUnavailable, w.Code, "redeem with the replica paused")
	assert.NotContains(t, w.Body.String(), "held-back", "nothing handed out")
	w = redeemAs(h, ref.RedeemURL, "alice")
	assert.Equal(t, http.StatusGone, w.Code, "the master deleted it: lost, never delivered")
}

// replicasOf finds the replicas of the master that holds the one secret
// pending under prefix (a master that took another's slots may have
// taken its replica too).
func replicasOf(t *testing.T, cl *cluster, c *redis.ClusterClient, prefix string) []*server {
	t.Helper()
	ctx := context.Background()
	var holder string
	var mu sync.Mutex
	require.NoError(t, c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		keys, err := m.Keys(ctx, prefix+"*:s").Result()
		if err == nil && len(keys) > 0 {
			mu.Lock()
			holder = m.Options().Addr
			mu.Unlock()
		}
		return err
	}))
	require.NotEmpty(t, holder, "the master holding the secret")
	nodes, err := cl.nodesView()
	require.NoError(t, err)
	var id string
	for _, n := range nodes {
		if n.addr == holder {
			id = n.id
		}
	}
	var replicas []*server
	for _, n := range nodes {
		if !n.isMaster && n.master == id {
			replicas = append(replicas, cl.server(n.addr))
		}
	}
	require.NotEmpty(t, replicas, "replicas of %s (%s)", holder, id)
	return replicas
}
