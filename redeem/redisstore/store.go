// Package redisstore is a [redeem.Store] in Redis, for backends that run
// more than one instance. It lives apart from package redeem so that users
// of the memory store don't import go-redis.
//
// Each secret has two keys sharing a hash tag, so that they land in the
// same Redis Cluster slot:
//
//	<prefix>{<keyed hash of the id>}:s   hash: owner tag and sealed value; expires with the ttl
//	<prefix>{<keyed hash of the id>}:t   owner tag; the tombstone, expires ttl+retention after issue
//	                                      or retention after redemption
//
// The value leaves Redis at its ttl by Redis's own expiry. Taking a secret
// is one Lua script, so it is atomic: it checks the owner, reads and
// deletes the value and rewrites the tombstone.
//
// # Persistence
//
// Redis keeps data in memory; what survives a restart depends on its
// configuration. The store needs:
//
//   - appendonly yes, so that issued secrets and tombstones survive a
//     restart. RDB snapshots alone lose everything since the last one.
//   - appendfsync always for strict single use across a crash: with
//     everysec a crash can lose up to a second of writes, and a redemption
//     lost that way makes the secret redeemable once more by its owner.
//     everysec is a fair trade when that is acceptable.
//   - maxmemory-policy noeviction (the default): a volatile-* policy would
//     evict pending secrets, which then answer 404. Under noeviction a full
//     Redis makes Issue fail and redemptions answer 503.
//
// # Replication and failover
//
// Replication is asynchronous: a failover can lose the latest writes in
// the same way as a crash under appendfsync everysec. A redemption whose
// deletion had not reached the replica that is promoted makes the secret
// redeemable once more, by its owner: the value is delivered twice.
//
// [Options.MinReplicas] closes that window. The take and a WAIT for that
// many replicas go to the secret's master on one connection; the value is
// handed out only when the replicas have confirmed the deletion within
// [Options.ReplicaTimeout]. When they have not, Take fails with
// [ErrNotReplicated] and the handler answers 503: the value may then be
// lost (deleted on the master, which may fail before its replicas catch
// up, or redeemable once on the replica promoted in its place), but it is
// never delivered twice. The price is a replica round trip on every
// redemption, and redemptions that fail while a replica is down or
// lagging: choose MinReplicas no larger than the replicas each master can
// count on. Issue does not wait: a put lost in a failover is a secret that
// answers 404, not one delivered twice.
//
// In Redis Cluster the two keys of a secret share a slot, so a take is one
// script on one master; go-redis follows MOVED and ASK while slots move.
// The store is tested against a cluster of three masters with a replica
// each, during a resharding, and against a master killed right after a
// take and replaced by its replica (docs/redeem-redis.md has the figures).
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/veilmcp/veil/redeem"
)

// DefaultPrefix is the key prefix of a Store whose Options leave it empty.
const DefaultPrefix = "veil:redeem:"

// DefaultReplicaTimeout is how long a take waits for replicas when
// Options.MinReplicas is set and Options.ReplicaTimeout is zero.
const DefaultReplicaTimeout = 500 * time.Millisecond

// ErrNotReplicated is what Take fails with, wrapped, when fewer than
// Options.MinReplicas replicas confirmed a redemption in time. The value
// was not handed out; the handler answers 503.
var ErrNotReplicated = errors.New("the redemption did not reach enough replicas in time")

// Options configures a [Store].
type Options struct {
	// Prefix starts every key the store writes. It must not contain "{"
	// or "}", which would change the hash tag. Empty means DefaultPrefix.
	Prefix string

	// MinReplicas is how many replicas of the secret's master must
	// confirm a redemption (Redis WAIT) before its value is handed out,
	// so that a failover cannot make it redeemable twice (see the package
	// doc). Zero, the default, does not wait. It needs a *redis.Client or
	// a *redis.ClusterClient.
	MinReplicas int

	// ReplicaTimeout bounds the wait for MinReplicas. Zero means
	// DefaultReplicaTimeout.
	ReplicaTimeout time.Duration
}

// Store is a [redeem.Store] backed by Redis. It is safe for concurrent use
// and may be shared by any number of processes, provided they all give
// redeem.New the same Options.Key.
type Store struct {
	client         redis.Scripter
	prefix         string
	minReplicas    int
	replicaTimeout time.Duration
}

// New returns a Store that keeps secrets in Redis through client: a
// *redis.Client, *redis.ClusterClient or *redis.Ring. A nil opts means
// defaults. New panics if client is nil, the prefix holds a brace,
// MinReplicas or ReplicaTimeout is negative, or MinReplicas is set with a
// client that is neither a *redis.Client nor a *redis.ClusterClient.
func New(client redis.Scripter, opts *Options) *Store {
	if client == nil {
		panic("redisstore: New needs a Redis client")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if strings.ContainsAny(o.Prefix, "{}") {
		panic(fmt.Sprintf("redisstore: prefix %q holds a brace, which would change the keys' hash tag", o.Prefix))
	}
	if o.MinReplicas < 0 || o.ReplicaTimeout < 0 {
		panic(fmt.Sprintf("redisstore: MinReplicas (%d) and ReplicaTimeout (%v) must not be negative", o.MinReplicas, o.ReplicaTimeout))
	}
	if o.MinReplicas > 0 {
		switch client.(type) {
		case *redis.Client, *redis.ClusterClient:
		default:
			panic(fmt.Sprintf("redisstore: MinReplicas needs a *redis.Client or *redis.ClusterClient, not %T: the wait must run on the connection that took the secret", client))
		}
	}
	if o.ReplicaTimeout == 0 {
		o.ReplicaTimeout = DefaultReplicaTimeout
	}
	return &Store{client: client, prefix: o.Prefix, minReplicas: o.MinReplicas, replicaTimeout: o.ReplicaTimeout}
}

// keys returns the names of a secret's two keys.
func (s *Store) keys(key redeem.Key) []string {
	base := s.prefix + "{" + key.String() + "}:"
	return []string{base + "s", base + "t"}
}

// putScript stores the sealed value with the ttl and the tombstone with
// ttl+retention. NX guards against overwriting a secret, however unlikely
// a collision of 128-bit ids is.
var putScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1], KEYS[2]) > 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'o', ARGV[1], 'v', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[4])
return 1
`)

// takeScript returns the sealed value, or 0 for an unknown key, 1 for
// another owner, 2 for a tombstone.
var takeScript = redis.NewScript(`
local s = redis.call('HMGET', KEYS[1], 'o', 'v')
if not s[1] then
  local owner = redis.call('GET', KEYS[2])
  if not owner then return 0 end
  if owner ~= ARGV[1] then return 1 end
  return 2
end
if s[1] ~= ARGV[1] then return 1 end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return s[2]
`)

// millis rounds d up to whole milliseconds, the unit of PX, with at least
// one.
func millis(d time.Duration) int64 {
	return max(int64((d+time.Millisecond-1)/time.Millisecond), 1)
}

// Put implements [redeem.Store].
func (s *Store) Put(ctx context.Context, key redeem.Key, owner string, sealed []byte, ttl, retention time.Duration) error {
	if ttl <= 0 || retention < 0 {
		return errors.New("redisstore: ttl must be positive and retention not negative")
	}
	n, err := putScript.Run(ctx, s.client, s.keys(key), owner, sealed, millis(ttl), millis(ttl+retention)).Int()
	if err != nil {
		return fmt.Errorf("redisstore: storing a secret: %w", err)
	}
	if n != 1 {
		return errors.New("redisstore: storing a secret: key already in use")
	}
	return nil
}

// Take implements [redeem.Store].
func (s *Store) Take(ctx context.Context, key redeem.Key, owner string, retention time.Duration) ([]byte, error) {
	if s.minReplicas > 0 {
		return s.takeReplicated(ctx, key, owner, retention)
	}
	v, err := takeScript.Run(ctx, s.client, s.keys(key), owner, millis(retention)).Result()
	if err != nil {
		return nil, fmt.Errorf("redisstore: taking a secret: %w", err)
	}
	return taken(v)
}

// takeReplicated runs the take and a WAIT on one connection to the
// secret's master, WAIT counting the replicas that have everything this
// connection wrote, and hands the value out only when enough have.
func (s *Store) takeReplicated(ctx context.Context, key redeem.Key, owner string, retention time.Duration) ([]byte, error) {
	keys := s.keys(key)
	var node *redis.Client
	switch c := s.client.(type) {
	case *redis.Client:
		node = c
	case *redis.ClusterClient:
		n, err := c.MasterForKey(ctx, keys[0])
		if err != nil {
			return nil, fmt.Errorf("redisstore: taking a secret: finding its master: %w", err)
		}
		node = n
	}
	var take *redis.Cmd
	var wait *redis.IntCmd
	// A pipeline holds one connection for both commands. Eval, not
	// EvalSha: a NOSCRIPT inside the pipeline would cost the wait.
	_, _ = node.Pipelined(ctx, func(p redis.Pipeliner) error {
		take = takeScript.Eval(ctx, p, keys, owner, millis(retention))
		wait = redis.NewIntCmd(ctx, "wait", s.minReplicas, millis(s.replicaTimeout)) // never 0, which would wait forever
		_ = p.Process(ctx, wait)
		return nil
	})
	v, err := take.Result()
	if err != nil {
		return nil, fmt.Errorf("redisstore: taking a secret: %w", err)
	}
	value, err := taken(v)
	if err != nil {
		return nil, err
	}
	n, err := wait.Result()
	if err != nil {
		return nil, fmt.Errorf("redisstore: taking a secret: waiting for replicas: %w", err)
	}
	if n < int64(s.minReplicas) {
		return nil, fmt.Errorf("redisstore: taking a secret: %w (%d of %d in %v)", ErrNotReplicated, n, s.minReplicas, s.replicaTimeout)
	}
	return value, nil
}

// taken reads the take script's reply.
func taken(v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return []byte(v), nil
	case int64:
		switch v {
		case 0:
			return nil, redeem.ErrNotFound
		case 1:
			return nil, redeem.ErrNotOwner
		case 2:
			return nil, redeem.ErrGone
		}
	}
	return nil, fmt.Errorf("redisstore: taking a secret: unexpected reply %T %v", v, v)
}
