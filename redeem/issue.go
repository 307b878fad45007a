package redeem

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"
)

// Secret is what [Handler.Issue] stores.
type Secret struct {
	// Value is the secret itself: an API key, recovery codes. It is
	// returned once, as the "value" member of the 200 response.
	Value string

	// Label names the secret for the user ("API key"). It goes into the
	// reference, never into the store.
	Label string

	// TTL is how long the secret stays redeemable. Zero means Options.TTL;
	// anything above Options.MaxTTL is clamped to it.
	TTL time.Duration
}

// ReferenceType is the "type" of every [Reference].
const ReferenceType = "secret_reference"

// Reference is a secret_reference content item, ready to be put in a tool
// result in place of the value: marshaled to JSON it is
// {"type":"secret_reference","id":…,"label":…,"redeemUrl":…,"ttl":…}.
// User agents keep its id and redeemUrl out of the agent's context; the
// user's browser fetches redeemUrl, with its cookies, to show the value.
type Reference struct {
	// Type is always ReferenceType.
	Type string `json:"type"`
	// ID is the secret's id, 128 random bits in unpadded base64url.
	ID string `json:"id"`
	// Label is Secret.Label.
	Label string `json:"label"`
	// RedeemURL is the Handler's BasePath followed by the id: a path, so
	// same-origin with the page by construction.
	RedeemURL string `json:"redeemUrl"`
	// TTL is the number of seconds until the reference expires, rounded
	// up.
	TTL int64 `json:"ttl"`
}

// Issue stores s.Value for owner, the principal the [Authenticator] returns
// for the one person allowed to redeem it, and returns the reference to
// hand out instead of the value. It fails if owner is empty, if the value
// is larger than Options.MaxValueBytes, if s.TTL is negative, or if the
// store fails.
func (h *Handler) Issue(ctx context.Context, owner string, s Secret) (*Reference, error) {
	switch {
	case owner == "":
		return nil, errors.New("redeem: issuing a secret: owner is empty")
	case len(s.Value) > h.maxValue:
		return nil, fmt.Errorf("redeem: issuing a secret: value is %d bytes, more than the %d allowed", len(s.Value), h.maxValue)
	case s.TTL < 0:
		return nil, fmt.Errorf("redeem: issuing a secret: negative ttl %v", s.TTL)
	}
	ttl := s.TTL
	if ttl == 0 {
		ttl = h.ttl
	}
	ttl = min(ttl, h.maxTTL)

	id, text := h.newID()
	key := h.keys.index(id)
	sealed := h.keys.seal(id, s.Value)
	if err := h.store.Put(ctx, key, h.keys.ownerTag(owner), sealed, ttl, h.retention); err != nil {
		return nil, fmt.Errorf("redeem: issuing a secret: %w", err)
	}
	h.log.LogAttrs(ctx, slog.LevelInfo, "redeem: secret issued",
		slog.String("key", key.String()), slog.Duration("ttl", ttl))
	return &Reference{
		Type:      ReferenceType,
		ID:        text,
		Label:     s.Label,
		RedeemURL: h.basePath + text,
		TTL:       int64(math.Ceil(ttl.Seconds())),
	}, nil
}
