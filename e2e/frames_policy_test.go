package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// In Chromium as shipped the policy is unknown to the browser, and the
// parent's Veil reads the child's iframe's allow attribute for it
// (TestFramesPolicyUndecided: where the parent has no Veil).

// TestFramesNotAllowed: in a cross-origin frame whose iframe does not
// allow "tools", the API refuses with NotAllowedError, as Chromium's own
// WebMCP does: where the browser knows the policy, and where it does not
// (the parent's Veil read the iframe's allow attribute).
func TestFramesNotAllowed(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, run := range []frameRun{runNative, runLayered, runWorker, runMain} {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			f := openFramesChild(t, run, crossOrigin(t), patient(), "")
			assertNotAllowedInChild(t, f, "the API in the child")
		})
	}
}

// TestFramesNotAllowedAfterNavigation: a child whose iframe allows
// "tools" only to the child's first origin, navigated to another origin:
// its new document may not use the API, which refuses with
// NotAllowedError, as Chromium's own WebMCP does (in Chromium as shipped,
// the parent's Veil reads the allow attribute).
func TestFramesNotAllowedAfterNavigation(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, run := range []frameRun{runNative, runLayered, runWorker, runMain} {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			cross := crossOrigin(t)
			f := openFramesChild(t, run, cross, patient(), "tools "+cross)
			before := f.inChild(`await document.modelContext.getTools(); return "ok";`)
			assert.Equal(t, "ok", value[string](t, before, "getTools in the child at the allowed origin"))
			require.Equal(t, 0, value[int](t, f.inParent(`return fx.navigate(0, `+js(server.URL+"/"+run.page()+patient())+`)`), "navigating"), "the child's index")
			assertNotAllowedInChild(t, f, "the API in the child after navigation")
		})
	}
}

// TestFramesExposureRevoked: the parent lists a cross-origin child's
// tool, then the child registers it again exposed to no other origin. The
// tool the parent holds no longer reaches it: executeTool rejects, and the
// child's execute never runs. (A same-origin frame sees every tool of its
// origin whatever exposedTo says, as the draft has it.)
func TestFramesExposureRevoked(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, r := range frameSecurityRuns {
		if !r.cross {
			continue
		}
		t.Run(r.run.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			f, from := openCallable(t, r.run, r.cross)
			registerInChild(t, f, `{name: "c_revoked", description: "Exposed, then not", execute: () => ((window.ran = true), "ran")}`)
			require.Nil(t, f.inParent(`window.held = (await document.modelContext.getTools(`+from+`)).find((t) => t.name === "c_revoked");
				if (!window.held) throw new Error("the parent does not see c_revoked");`).Error, "listing in the parent")
			require.Nil(t, f.inChild(`fx.unregister("c_revoked");
				await document.modelContext.registerTool({name: "c_revoked", description: "Exposed, then not", execute: () => ((window.ran = true), "ran")});`).Error, "registering again in the child")
			got := value[string](t, f.inParent(`try { return "resolved: " + await document.modelContext.executeTool(window.held, {}); } catch (e) { return e.name; }`), "the parent's call")
			assert.Equal(t, "UnknownError", got)
			assert.Equal(t, false, value[bool](t, f.inChild(`return window.ran === true`), "ran"), "execute did not run in the child")
		})
	}
}

// assertNotAllowedInChild checks that registerTool, getTools and
// executeTool each reject with NotAllowedError in the child.
func assertNotAllowedInChild(t *testing.T, f *frames, what string) {
	t.Helper()
	got := f.inChild(`
				const outcome = async (f) => { try { await f(); return "ok"; } catch (e) { return e.name; } };
				const mc = document.modelContext;
				return {
					register: await outcome(() => mc.registerTool({name: "na_a", description: "d", execute: () => "x"})),
					getTools: await outcome(() => mc.getTools()),
					execute: await outcome(() => mc.executeTool({name: "na_a", description: "d", origin: location.origin, window}, {})),
				};`)
	assert.Equal(t, map[string]string{"register": "NotAllowedError", "getTools": "NotAllowedError", "execute": "NotAllowedError"},
		value[map[string]string](t, got, what))
}

// TestFramesPolicyUndecided: in Chromium as shipped, a cross-origin child
// under a parent that runs no Veil cannot learn its policy (nobody read
// its iframe's allow attribute): its own tools work, and it takes no part
// in the frames' tools, whatever the attribute says (it fails closed).
func TestFramesPolicyUndecided(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, run := range []frameRun{runWorker, runMain} {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			tb := openTab(t, plain)
			tb.navigate("frames.html?veil=0")
			src := crossOrigin(t) + "/" + run.page()
			require.Equal(t, 0, eval[int](tb, `fx.open(`+js(src)+`, "tools *")`), "the child's index")
			f := &frames{tab: tb, parent: server.URL, child: crossOrigin(t)}
			got := f.inChild(`
				await document.modelContext.registerTool({name: "c_own", description: "d", execute: () => "own"}, {exposedTo: [` + js(f.parent) + `]});
				const own = (await document.modelContext.getTools()).map((t) => t.name);
				const ran = await document.modelContext.executeTool((await document.modelContext.getTools())[0]);
				const byHand = await document.modelContext.executeTool({name: "p_none", description: "d", origin: ` + js(f.parent) + `, window: parent}).then(() => "ok", (e) => e.name);
				return {own, ran, byHand, frames: (await document.modelContext.getTools({fromOrigins: [` + js(f.parent) + `]})).length};`)
			assert.Equal(t, map[string]any{"own": []any{"c_own"}, "ran": "own", "byHand": "UnknownError", "frames": float64(1)},
				value[map[string]any](t, got, "the child's own tools and the frames'"))
		})
	}
}

// TestFramesPolicyForgedByEmbedder: in Chromium as shipped, a child's
// Veil learns its policy from the frames above it, and its parent's word
// alone is not enough. Here the parent is a cross-origin page without
// Veil that forges the answer (it marks its window as Veil does and says
// "allowed" to every question); the top's Veil sees the parent's iframe
// and answers too. Where that iframe does not allow "tools", the policy
// leaves out the parent and so its child: the child's API refuses with
// NotAllowedError, and the top lists none of its tools to the child. Where
// the iframe allows it, the same forged answer stands, since it says what
// the parent's own allow attribute could: the child registers, and sees
// the top's tool exposed to it.
func TestFramesPolicyForgedByEmbedder(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, run := range []frameRun{runWorker, runMain} {
		for _, tt := range []struct {
			name, allow string
			want        map[string]any
		}{
			{"parent left out", "", map[string]any{"register": "NotAllowedError", "getTools": "NotAllowedError", "execute": "NotAllowedError"}},
			{"parent allowed", "tools *", map[string]any{"register": "ok", "getTools": []any{"c_own", "p_top"}, "execute": "ok"}},
		} {
			t.Run(run.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel() // a tab of its own
				tb := openTab(t, run.b())
				tb.navigate(run.page())
				cross := crossOrigin(t)
				var allow any
				if tt.allow != "" {
					allow = tt.allow
				}
				require.Equal(t, 0, eval[int](tb, `fx.open(`+js(cross+"/frames.html?veil=0")+`, `+js(allow)+`)`), "the parent's index")
				f := &frames{tab: tb, parent: server.URL, child: cross}
				require.Nil(t, f.inParent(`await fx.register({name: "p_top", description: "d", execute: () => "top"}, {exposedTo: [`+js(cross)+`]})`).Error)
				// The forger, then its child (of its origin, with Veil), whose iframe allows everything.
				child := `const mc = document.modelContext;
					const outcome = async (f) => { try { const v = await f(); return v === undefined ? "ok" : v; } catch (e) { return e.name; } };
					const register = await outcome(() => mc.registerTool({name: "c_own", description: "d", execute: () => "own"}));
					const getTools = await outcome(async () => (await mc.getTools({fromOrigins: [` + js(f.parent) + `]})).map((t) => t.name).sort());
					const execute = await outcome(async () => void (await mc.executeTool({name: "c_own", description: "d", origin: location.origin, window}, {})));
					return {register, getTools, execute};`
				got := f.inChild(`Object.defineProperty(window, Symbol.for("dev.veil/frames"), {value: {}});
					addEventListener("message", (e) => {
						if (e.data?.["dev.veil/frames"] !== 1) return;
						if (e.data.type === "policy") e.ports[0]?.postMessage({allowed: true});
						if (e.data.type === "list") e.ports[0]?.postMessage({tools: []});
					}, true);
					const i = await fx.open(location.origin + "/" + ` + js(run.page()+patient()) + `, "tools *");
					const r = await fx.in(i, ` + js(child) + `);
					if (!r.ok) throw Object.assign(new Error(r.error.message), {name: r.error.name});
					return r.value;`)
				assert.Equal(t, tt.want, value[map[string]any](t, got, "the API in the forger's child"))
			})
		}
	}
}
