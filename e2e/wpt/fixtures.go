package wpt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/veilmcp/veil/redeem"
)

// UserCookie is the cookie whose value is the principal of the redeem
// fixture: a page signs in as alice with document.cookie = "wpt_user=alice".
const UserCookie = "wpt_user"

// redeemFixture is the redemption endpoint the suite's tests redeem
// against, the endpoint that issues into it, and the one that names the
// origins.
type redeemFixture struct {
	srv *Server
	h   *redeem.Handler
}

func newRedeemFixture(s *Server) (*redeemFixture, error) {
	h, err := redeem.New(cookieUser, &redeem.Options{
		// Tests redeem in quick succession from one address and as one
		// principal: no limit should answer 429.
		PrincipalPerSecond: redeem.Unlimited,
		AddressPerSecond:   redeem.Unlimited,
		// A refusal is what a test asserts, not news.
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return nil, fmt.Errorf("redeem fixture: %w", err)
	}
	return &redeemFixture{srv: s, h: h}, nil
}

// cookieUser is the fixture's Authenticator: the principal is the
// wpt_user cookie; without one the Handler answers 401.
func cookieUser(r *http.Request) (string, error) {
	c, err := r.Cookie(UserCookie)
	if err != nil {
		return "", nil
	}
	return c.Value, nil
}

func (f *redeemFixture) routes(m *http.ServeMux) {
	m.Handle(f.h.Pattern(), f.h)
	m.HandleFunc("POST /wpt/issue", f.issue)
	m.HandleFunc("GET /wpt/origins", f.origins)
}

// issueRequest is the body of POST /wpt/issue.
type issueRequest struct {
	Owner string `json:"owner"`
	Value string `json:"value"`
	Label string `json:"label"`
	// TTL is in seconds; zero means the Handler's default.
	TTL float64 `json:"ttl"`
}

// issue stores a secret for its owner and answers the reference that
// Handler.Issue returns.
func (f *redeemFixture) issue(w http.ResponseWriter, r *http.Request) {
	var req issueRequest
	if err := decodeJSON(w, r, 1<<20, &req); err != nil {
		return
	}
	if req.Owner == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "owner is required"})
		return
	}
	if req.TTL < 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "ttl is negative"})
		return
	}
	ref, err := f.h.Issue(r.Context(), req.Owner, redeem.Secret{
		Value: req.Value,
		Label: req.Label,
		TTL:   time.Duration(req.TTL * float64(time.Second)),
	})
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, ref)
}

// origins answers {"same":…,"remote":…}.
func (f *redeemFixture) origins(w http.ResponseWriter, r *http.Request) {
	same, remote := f.srv.Origins()
	writeJSON(w, http.StatusOK, map[string]string{"same": same, "remote": remote})
}

// decodeJSON reads r's body, at most limit bytes, into v; on failure it
// answers 400 with the reason and returns the error.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "reading the JSON body: " + err.Error()})
	}
	return err
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
