package redeem

import (
	"context"
	"encoding/base64"
	"errors"
	"time"
)

// Errors a [Store] returns from Take so that the [Handler] can pick the
// response status. Any other error from a Store makes the Handler answer 503.
var (
	// ErrNotFound means the store holds nothing under the key: the secret
	// was never issued, or its retention window has passed.
	ErrNotFound = errors.New("no such secret")
	// ErrGone means the secret expired or was already redeemed, and its
	// tombstone is still within the retention window.
	ErrGone = errors.New("secret expired or already redeemed")
	// ErrNotOwner means the secret, pending or spent, belongs to another
	// principal. Nothing was consumed.
	ErrNotOwner = errors.New("secret belongs to another principal")
	// ErrStoreFull is returned by Put when the store has no room left for
	// another pending secret.
	ErrStoreFull = errors.New("store is full")
	// ErrUnavailable tells the Handler that an answer can't be given right
	// now. An [Authenticator] returns an error wrapping it when, for
	// instance, its session store is down; the Handler answers 503.
	ErrUnavailable = errors.New("unavailable")
)

// Key is the keyed hash (HMAC-SHA-256) of a secret's id, under which a
// [Store] indexes the secret. A dump of the store therefore holds no id that
// could be redeemed.
type Key [32]byte

// String returns the key in unpadded base64url. It is the form that appears
// in log lines and in Redis key names.
func (k Key) String() string { return base64.RawURLEncoding.EncodeToString(k[:]) }

// Store keeps sealed secrets for a [Handler]. A Store only ever sees keyed
// hashes: the Key of the id, an owner tag derived from the principal, and
// the value sealed with AES-GCM. Implementations must be safe for concurrent
// use, by several Handlers in several processes if the Store is shared.
//
// The package [github.com/veilmcp/veil/redeem/storetest] holds the suite
// every implementation must pass.
type Store interface {
	// Put stores sealed under key for owner. The secret is pending for ttl;
	// then, or as soon as it is taken, it becomes a tombstone that lasts
	// for retention. Put may keep sealed; the caller must not modify it
	// afterwards.
	Put(ctx context.Context, key Key, owner string, sealed []byte, ttl, retention time.Duration) error

	// Take consumes the secret stored under key and returns its sealed
	// value, leaving a tombstone that lasts for retention. It is atomic:
	// among concurrent Takes of one key, in any number of processes, at most
	// one succeeds. It checks the owner before anything else and returns
	// ErrNotOwner, consuming nothing, when owner differs; otherwise it
	// returns ErrGone for a tombstone and ErrNotFound for an unknown key.
	Take(ctx context.Context, key Key, owner string, retention time.Duration) ([]byte, error)
}
