package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTrayForgetForGood: Forget on a revealed one-time secret asks first,
// and "Forget for good" forgets it: the row leaves the tray and the
// runtime holds the item no more. (It once did what "Hide for good"
// does, keeping the row as spent.)
func TestTrayForgetForGood(t *testing.T) {
	t.Parallel() // in a tab of its own
	eachBrowserMode(t, func(t *testing.T, b *browser, mode string) {
		s := newTraySite(t, false)
		d := openTray(t, s, b, mode, "", true)
		keyPath := d.makeKey("forget-key", 300)
		d.press("forget-key", "Reveal")
		key := d.waitRow("forget-key", rowShown).Shown
		require.True(t, strings.HasPrefix(key, "nwk_live_"), "the revealed key: %q", key)

		d.press("forget-key", "Forget")
		r := d.waitRow("forget-key", rowAsking)
		assert.Equal(t, "This secret cannot be shown again. Forget it for good?", r.Question)
		d.press("forget-key", "Forget for good")
		d.poll(`!(` + trayItem("forget-key") + `)`)
		d.poll(`veil.items().then((items) => !items.some((i) => i.label === "forget-key"))`)
		assert.Equal(t, 1, s.redeemed(keyPath), "the key was redeemed once")
	})
}
