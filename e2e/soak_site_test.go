//go:build soak

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// soakSite serves the demo site for the soak, and learns from the
// demo's backend, independently of the engine, every sensitive value the
// page's tools are handed: what the agent must never see. It changes the
// demo page in one way: the runtime's script tag gets a short hold time
// and serves MCP on the tab transport to the page's own origin, and the
// page loads the MCP client the e2e suite bundles.
type soakSite struct {
	demo    http.Handler
	holdTTL int // seconds

	mu sync.Mutex
	// secrets are the values the backend produced, in the order it
	// produced them.
	secrets []soakSecret
	// fixed are the values every call of their tool produces alike.
	fixed map[string]bool
}

// soakSecret is a sensitive value the backend produced, when, and for
// which route.
type soakSecret struct {
	value string
	at    time.Time
	what  string
}

// soakScriptTag is the runtime's script tag in the demo page.
const soakScriptTag = `<script src="/veil/webmcp.js" data-veil-redeem-path="/redeem/"></script>`

func (s *soakSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; {
	case p == "/" || p == "/index.html":
		rec := httptest.NewRecorder()
		s.demo.ServeHTTP(rec, r)
		page := rec.Body.String()
		origin := "http://" + r.Host
		tag := fmt.Sprintf(`<script src="/veil/webmcp.js" data-veil-redeem-path="/redeem/" data-veil-hold-ttl="%d" data-veil-mcp="tab" data-veil-mcp-origins="%s"></script>`+"\n"+
			`<script src="/soak/mcp-client.js"></script>`, s.holdTTL, origin)
		if !strings.Contains(page, soakScriptTag) {
			http.Error(w, "soak: the demo page no longer has the runtime's script tag "+soakScriptTag, http.StatusInternalServerError)
			return
		}
		page = strings.Replace(page, soakScriptTag, tag, 1)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write([]byte(page))
	case p == "/soak/mcp-client.js":
		handleMCPBundle(w, r)
	case strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/redeem/"):
		rec := httptest.NewRecorder()
		s.demo.ServeHTTP(rec, r)
		s.learn(p, rec.Code, rec.Body.Bytes())
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	default:
		s.demo.ServeHTTP(w, r)
	}
}

// learn keeps the sensitive values of one backend answer, before the page
// gets it.
func (s *soakSite) learn(path string, status int, body []byte) {
	if status != http.StatusOK && status != http.StatusCreated {
		return
	}
	var got []string
	fixed := false
	switch {
	case path == "/api/keys":
		var v struct {
			Reference struct {
				ID        string `json:"id"`
				RedeemURL string `json:"redeemUrl"`
			} `json:"reference"`
		}
		json.Unmarshal(body, &v)
		got = []string{v.Reference.ID, v.Reference.RedeemURL}
	case path == "/api/profile":
		var v struct {
			IDNumber    string `json:"idNumber"`
			DateOfBirth string `json:"dateOfBirth"`
		}
		json.Unmarshal(body, &v)
		got, fixed = []string{v.IDNumber, v.DateOfBirth}, true
	case path == "/api/medical-record":
		var v struct {
			Text string `json:"text"`
		}
		json.Unmarshal(body, &v)
		// The whole record is withheld: every line of it is a value the
		// agent must not see.
		got, fixed = append(strings.Split(v.Text, "\n"), v.Text), true
	case path == "/api/recovery-codes":
		var v struct {
			Codes []string `json:"codes"`
		}
		json.Unmarshal(body, &v)
		got = v.Codes
	case strings.HasPrefix(path, "/redeem/"):
		var v struct {
			Value string `json:"value"`
		}
		json.Unmarshal(body, &v)
		got = []string{v.Value}
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range got {
		if g == "" {
			continue
		}
		if fixed {
			if s.fixed[g] {
				continue
			}
			s.fixed[g] = true
		}
		s.secrets = append(s.secrets, soakSecret{value: g, at: now, what: path})
	}
}

// snapshot returns the secrets so far and the fixed ones.
func (s *soakSite) snapshot() ([]soakSecret, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fixed := make([]string, 0, len(s.fixed))
	for v := range s.fixed {
		fixed = append(fixed, v)
	}
	return s.secrets[:len(s.secrets):len(s.secrets)], fixed
}

// isSecret reports whether v is a value the backend produced.
func (s *soakSite) isSecret(v string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sec := range s.secrets {
		if sec.value == v {
			return true
		}
	}
	return false
}
