package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// In Chromium as shipped the policy is unknown: TestFramesHidden's
// "policy unknown to the browser" rows register in such a child.

// TestFramesNotAllowed: in a cross-origin frame whose iframe does not
// allow "tools", where the browser knows the policy, the API refuses with
// NotAllowedError, as Chromium's own WebMCP does; where the browser does
// not know it, the frame's own tools work and only the frame boundary is
// closed (TestFramesHidden).
func TestFramesNotAllowed(t *testing.T) {
	for _, run := range []frameRun{runNative, runLayered} {
		t.Run(run.name, func(t *testing.T) {
			f := openFrames(t, run, crossOrigin(t), "")
			got := f.inChild(`
				const outcome = async (f) => { try { await f(); return "ok"; } catch (e) { return e.name; } };
				const mc = document.modelContext;
				return {
					register: await outcome(() => mc.registerTool({name: "na_a", description: "d", execute: () => "x"})),
					getTools: await outcome(() => mc.getTools()),
					execute: await outcome(() => mc.executeTool({name: "na_a", description: "d", origin: location.origin, window}, {})),
				};`)
			assert.Equal(t, map[string]string{"register": "NotAllowedError", "getTools": "NotAllowedError", "execute": "NotAllowedError"},
				value[map[string]string](t, got, "the API in the child"))
		})
	}
}
