package demoserver

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/veilmcp/veil/redeem"
)

// User is the demo's one account.
type User struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// DemoUser is who "Sign in" signs in. Its ID is the principal that owns
// the secrets the demo issues.
var DemoUser = User{ID: "ada", Name: "Ada Lovelace", Email: "ada@example.com"}

// Limits of POST /api/keys.
const (
	DefaultKeyTTL = 5 * time.Minute
	MaxKeyTTL     = time.Hour
	maxKeyName    = 64
)

// sessions maps session tokens to user ids. They live in memory: a demo
// with several instances shares its secrets through Redis, not its
// sign-ins.
type sessions struct {
	mu sync.Mutex
	m  map[string]string
}

func newSessions() *sessions { return &sessions{m: map[string]string{}} }

func (s *sessions) user(token string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[token]
}

func (s *sessions) start(user string) string {
	token := rand.Text()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[token] = user
	return token
}

func (s *sessions) end(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, token)
}

// principal is the redemption handler's Authenticator: the signed-in
// user's id, or "" (401).
func (s *server) principal(r *http.Request) (string, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return "", nil
	}
	return s.sessions.user(c.Value), nil
}

// signedIn runs h only for a signed-in user.
func (s *server) signedIn(h func(w http.ResponseWriter, r *http.Request, user string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		user, _ := s.principal(r)
		if user == "" {
			writeJSON(w, http.StatusUnauthorized, errorBody("sign in first"))
			return
		}
		h(w, r, user)
	}
}

func (s *server) session(w http.ResponseWriter, r *http.Request) {
	body := struct {
		User *User `json:"user"`
	}{}
	if user, _ := s.principal(r); user == DemoUser.ID {
		body.User = &DemoUser
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *server) signIn(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(SessionCookie); err == nil {
		s.sessions.end(c.Value)
	}
	http.SetCookie(w, &http.Cookie{
		Name:     SessionCookie,
		Value:    s.sessions.start(DemoUser.ID),
		Path:     "/",
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteStrictMode,
	})
	writeJSON(w, http.StatusOK, struct {
		User User `json:"user"`
	}{DemoUser})
}

func (s *server) signOut(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(SessionCookie); err == nil {
		s.sessions.end(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Path: "/", MaxAge: -1, HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	w.WriteHeader(http.StatusNoContent)
}

// createKey makes an API key and stores it with redeem: the answer holds
// the secret_reference, never the key, so the key reaches the page only
// when its owner redeems it.
func (s *server) createKey(w http.ResponseWriter, r *http.Request, user string) {
	var in struct {
		Name string  `json:"name"`
		TTL  float64 `json:"ttl"` // seconds
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody("the body must be JSON: {\"name\", \"ttl\"}"))
		return
	}
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" {
		in.Name = "default"
	}
	ttl := DefaultKeyTTL
	if in.TTL != 0 {
		ttl = time.Duration(in.TTL * float64(time.Second))
	}
	switch {
	case utf8.RuneCountInString(in.Name) > maxKeyName:
		writeJSON(w, http.StatusBadRequest, errorBody(fmt.Sprintf("name is longer than %d characters", maxKeyName)))
		return
	case ttl < time.Second || ttl > MaxKeyTTL:
		writeJSON(w, http.StatusBadRequest, errorBody(fmt.Sprintf("ttl must be between 1 and %d seconds", int(MaxKeyTTL.Seconds()))))
		return
	}
	key := "nwk_live_" + rand.Text()
	ref, err := s.redeem.Issue(r.Context(), user, redeem.Secret{Value: key, Label: fmt.Sprintf("API key “%s”", in.Name), TTL: ttl})
	if err != nil {
		s.log.ErrorContext(r.Context(), "demo: issuing an API key", "err", err)
		status := http.StatusInternalServerError
		if errors.Is(err, redeem.ErrStoreFull) {
			status = http.StatusServiceUnavailable
		}
		writeJSON(w, status, errorBody("the key could not be stored"))
		return
	}
	writeJSON(w, http.StatusCreated, struct {
		ID        string            `json:"id"`
		Name      string            `json:"name"`
		Reference *redeem.Reference `json:"reference"`
	}{"key_" + strings.ToLower(rand.Text()[:8]), in.Name, ref})
}

// Profile is what GET /api/profile answers.
type Profile struct {
	Name        string  `json:"name"`
	Email       string  `json:"email"`
	Plan        string  `json:"plan"`
	MemberSince string  `json:"memberSince"`
	Address     Address `json:"address"`
	IDNumber    string  `json:"idNumber"`
	DateOfBirth string  `json:"dateOfBirth"`
}

// Address is part of a [Profile].
type Address struct {
	City    string `json:"city"`
	Country string `json:"country"`
}

func (s *server) profile(w http.ResponseWriter, r *http.Request, user string) {
	writeJSON(w, http.StatusOK, Profile{
		Name:        DemoUser.Name,
		Email:       DemoUser.Email,
		Plan:        "Team",
		MemberSince: "2021-03-14",
		Address:     Address{City: "London", Country: "GB"},
		IDNumber:    "QQ 12 34 56 C",
		DateOfBirth: "1815-12-10",
	})
}

// MedicalRecord is the text GET /api/medical-record answers.
const MedicalRecord = `Patient: Ada Lovelace
Allergies: penicillin
Conditions: migraine with aura (since 2019)
Medication: sumatriptan 50 mg, as needed
Last visit: 2026-09-02, Dr M. Somerville — blood pressure 118/76`

func (s *server) medicalRecord(w http.ResponseWriter, r *http.Request, user string) {
	writeJSON(w, http.StatusOK, struct {
		Text string `json:"text"`
	}{MedicalRecord})
}

func (s *server) recoveryCodes(w http.ResponseWriter, r *http.Request, user string) {
	codes := make([]string, 10)
	for i := range codes {
		t := strings.ToLower(rand.Text())
		codes[i] = t[:5] + "-" + t[5:10]
	}
	writeJSON(w, http.StatusOK, struct {
		Codes       []string `json:"codes"`
		Count       int      `json:"count"`
		GeneratedAt string   `json:"generatedAt"`
	}{codes, len(codes), time.Now().UTC().Format(time.RFC3339)})
}

// Order is one of GET /api/orders.
type Order struct {
	ID     string `json:"id"`
	Date   string `json:"date"`
	Item   string `json:"item"`
	Total  string `json:"total"`
	Status string `json:"status"`
}

// Orders are the demo user's orders.
var Orders = []Order{
	{"ord_1042", "2026-10-28", "Compute credits, 500 h", "€129.00", "paid"},
	{"ord_1057", "2026-11-09", "Object storage, 2 TB", "€46.00", "paid"},
	{"ord_1063", "2026-11-18", "Support plan upgrade", "€300.00", "pending"},
}

func (s *server) orders(w http.ResponseWriter, r *http.Request, user string) {
	status := r.URL.Query().Get("status")
	out := []Order{}
	for _, o := range Orders {
		if status == "" || o.Status == status {
			out = append(out, o)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

type errorJSON struct {
	Error string `json:"error"`
}

func errorBody(msg string) errorJSON { return errorJSON{msg} }

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
