package e2e

import (
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/veilmcp/veil/e2e/bound"
)

// The tray while a redemption is on its way, and a tray the page renders
// again: a one-time secret the server handed out reaches the user, and is
// neither dropped nor forgotten without asking.

// slowRedeemSite is the demo site with the engine's hold set to holdTTL
// seconds, and a server whose redemption answers arrive delay after it
// redeemed (a slow network): the secret is spent when the request comes.
func slowRedeemSite(t *testing.T, holdTTL string, delay time.Duration) *traySite {
	t.Helper()
	h := demoHandler(t)
	s := &traySite{redeems: map[string]int{}, open: func() {}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/redeem/") {
			s.mu.Lock()
			s.redeems[r.URL.Path]++
			s.mu.Unlock()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		if r.URL.Path == "/" {
			r2 := r.Clone(r.Context())
			r2.Header.Del("Accept-Encoding")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r2)
			const tag = `<script src="/veil/webmcp.js"`
			page := strings.Replace(rec.Body.String(), tag, tag+` data-veil-hold-ttl="`+holdTTL+`"`, 1)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.Header().Del("ETag")
			w.WriteHeader(rec.Code)
			io.WriteString(w, page)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// TestTrayAttackDropsSecretInFlight: the user clicks Reveal on a one-time
// API key shortly before the engine lets the reference go (its redeemBy,
// the engine's hold being shorter). The server redeems it at once, but its
// answer comes after the engine let it go: the tray, looking again, keeps
// the row whose value is still on its way, and shows the key when it
// comes.
func TestTrayAttackDropsSecretInFlight(t *testing.T) {
	t.Parallel() // it waits on the clock: beside the other tests that do
	// Long enough to list the key and press Reveal, on a busy machine too
	// (it grows with the load, as bounds do, up to 20 s); the server
	// answers only after it ran out, and before the page's 30 s wait for
	// a redemption gives up.
	keyTTL := min(int(math.Ceil(bound.Of(6*time.Second).Seconds())), 20)
	delay := time.Duration(keyTTL) * time.Second
	s := slowRedeemSite(t, "1", delay)
	d := openTray(t, s, plain, "worker", "", true)
	start := time.Now()
	keyPath := d.makeKey("race-key", keyTTL)
	require.Less(t, time.Since(start), time.Duration(keyTTL-2)*time.Second, "the key was listed in time to reveal it")
	d.press("race-key", "Reveal")
	// The server answers delay after the request the press sent, and no
	// sooner: by then the key's time to live (it was made before the
	// press) and the engine's hold have run out. Then the tray shows the
	// key as the answer comes, unless it dropped the row.
	time.Sleep(delay)
	d.poll(`(` + trayItem("race-key") + `)?.querySelector(".value code")?.textContent?.startsWith("nwk_live_") === true`)
	require.Equal(t, 1, s.redeemed(keyPath), "the server handed the key out")
	assert.True(t, eval[bool](d.tab, `!!(`+trayItem("race-key")+`)`), "the tray still lists the key it redeemed")
	shown := eval[string](d.tab, `(`+trayItem("race-key")+`)?.querySelector(".value code")?.textContent ?? ""`)
	assert.True(t, strings.HasPrefix(shown, "nwk_live_"), "the redeemed key reached the user: %q", shown)
}

// TestTrayAttackForgetInFlight: Forget on a one-time key the tray has
// redeemed asks first ("This secret cannot be shown again"); while a
// Reveal of the key is on its way, Forget cannot throw the key away
// without asking: the server spent it, and the value that comes stays.
func TestTrayAttackForgetInFlight(t *testing.T) {
	t.Parallel() // it waits on the clock: beside the other tests that do
	s := slowRedeemSite(t, "600", 3*time.Second)
	d := openTray(t, s, plain, "worker", "", true)
	keyPath := d.makeKey("forget-key", 300)
	d.press("forget-key", "Reveal")
	d.poll(`(` + trayButton("forget-key", "Reveal") + `)?.disabled === true`)
	d.press("forget-key", "Forget")
	time.Sleep(5 * time.Second)
	require.Equal(t, 1, s.redeemed(keyPath), "the server handed the key out")
	assert.True(t, eval[bool](d.tab, `!!(`+trayItem("forget-key")+`)`), "the tray still lists the key it redeemed, or asks before it forgets it")
}

// TestTrayAttackRemounted: the tray keeps a one-time key it redeemed until
// the user hides it for good, also when the page's framework renders the
// tray again (a route change that remounts the layout's <veil-secrets>):
// the new tray has the key, and asks the server for nothing.
func TestTrayAttackRemounted(t *testing.T) {
	t.Parallel() // a tab of its own; nothing waits on the clock
	s := newTraySite(t, false)
	d := openTray(t, s, plain, "worker", "", true)
	d.allowConsole(failedStatus("410"))
	keyPath := d.makeKey("remount-key", 300)
	d.press("remount-key", "Reveal")
	key := d.waitRow("remount-key", rowShown).Shown
	require.True(t, strings.HasPrefix(key, "nwk_live_"), "the revealed key: %q", key)
	eval[bool](d.tab, `(() => { const old = document.querySelector("veil-secrets"); const tray = document.createElement("veil-secrets"); for (const a of old.attributes) tray.setAttribute(a.name, a.value); old.replaceWith(tray); return true; })()`)
	d.waitTrayItem("remount-key")
	r := d.row("remount-key")
	if r.Primary == "Reveal" {
		d.press("remount-key", "Reveal")
		r = d.waitRow("remount-key", rowShown+" || "+rowState+" || "+rowMasked)
	} else if r.Primary == "Show" {
		d.press("remount-key", "Show")
		r = d.waitRow("remount-key", rowShown)
	}
	assert.Equal(t, key, r.Shown, "the remounted tray still has the key it redeemed: %+v", r)
	assert.Equal(t, 1, s.redeemed(keyPath), "the key was redeemed once")
}
