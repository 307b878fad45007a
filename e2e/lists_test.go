package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/bound"
)

// listCard is the saved card the tool lists offer until an output
// withholds it.
const listCard = "4111111111111111"

// listsPage adds, to the MCP page, a form whose selects offer the saved
// card beside ordinary options, a page-registered tool whose schema
// offers it too, and saved_cards, whose output withholds it.
const listsPage = `e2e.settle(async () => {
	const form = document.createElement("form");
	form.setAttribute("toolname", "pay_order");
	form.setAttribute("tooldescription", "Pays the order");
	form.innerHTML = '<select name="card"><option value="` + listCard + `">Visa 4111 1111 1111 1111</option><option value="new">A new card</option></select>' +
		'<select name="country"><option value="PT">Portugal</option><option value="ES">Spain</option></select>' +
		'<select name="day"><option>2026-03-14</option><option>2026-03-15</option></select>';
	document.body.append(form);
	for (const [def, behaviour] of [
		[{name: "pick_card", description: "Picks a card", inputSchema: {type: "object", properties: {card: {type: "string", enum: ["` + listCard + `", "Portugal"]}}}}, {returns: "ok"}],
		[{name: "saved_cards", description: "Lists the saved cards",
		  outputSchema: {type: "object", properties: {brand: {type: "string"}, number: {type: "string", "x-sensitive": true}}}},
		 {returns: {brand: "Visa", number: "` + listCard + `"}}],
	]) {
		const r = await e2e.register(def, behaviour);
		if (!r.ok) throw new Error(def.name + ": " + r.error.message);
	}
	while (!(await document.modelContext.getTools()).some((t) => t.name === "pay_order"))
		await new Promise((r) => document.modelContext.addEventListener("toolchange", r, { once: true }));
})`

// listsNow is what every listing path of the page lists of pay_order and
// pick_card, each as JSON text: getTools of both namespaces, listTools
// (its inputSchema, JSON text, parsed) and MCP's tools/list as the server
// wrote it.
const listsNow = `(async () => {
	const pick = (list) => JSON.stringify(list.filter((t) => t.name === "pay_order" || t.name === "pick_card").map((t) => ({...t, window: undefined})));
	const before = traffic.length;
	await client.listTools();
	const wire = traffic.slice(before).map((m) => JSON.parse(m.data)).findLast((d) => d.direction === "server-to-client" && d.payload.result?.tools);
	return {
		"document.modelContext.getTools": pick(await document.modelContext.getTools()),
		"navigator.modelContext.getTools": pick(await navigator.modelContext.getTools()),
		"navigator.modelContextTesting.listTools": pick(navigator.modelContextTesting.listTools().map((t) => ({...t, inputSchema: JSON.parse(t.inputSchema)}))),
		"tools/list": pick(wire.payload.result.tools),
	};
})()`

// TestListsLeaveOutWithheldOptions: a form's select and a page's own
// schema offer a saved card; once an output withheld the card, no tool
// list carries it (getTools on both namespaces, listTools, MCP's
// tools/list, the native mirror), in its value or its label, while the
// ordinary options beside it stay. Before, they all carry it: the test
// reads where the card would be.
func TestListsLeaveOutWithheldOptions(t *testing.T) {
	t.Parallel() // in a tab of its own
	needNPM(t)
	tb := openTab(t, native)
	reg := tb.followNative()
	tb.navigate("mcp/page.html?mode=worker&origins=self")
	require.Equal(t, "worker", eval[string](tb, `veil.ready.then(() => veil.mode)`))
	require.True(t, eval[settled](tb, listsPage).OK, "the tools are registered")
	require.True(t, eval[bool](tb, `mcp.connect().then((c) => ((window.client = c), true))`), "the client connects")
	grouped := "4111 1111 1111 1111"

	before := eval[map[string]string](tb, listsNow)
	require.Len(t, before, 4)
	for path, listed := range before {
		assert.Contains(t, listed, listCard, "%s before anything was withheld", path)
		assert.Contains(t, listed, grouped, "%s before anything was withheld", path)
	}
	require.Eventually(t, func() bool { return strings.Contains(reg.schema("pay_order"), listCard) }, bound.Of(10*time.Second), 20*time.Millisecond,
		"the native mirror lists the card before anything was withheld")

	view := eval[settled](tb, `e2e.settle(() => document.modelContext.executeTool({name: "saved_cards", description: "", window, origin: location.origin}, {}))`).String(t)
	require.NotContains(t, view, listCard, "saved_cards withholds the card")
	require.Contains(t, view, "Visa")

	after := eval[map[string]string](tb, listsNow)
	require.Len(t, after, 4)
	for path, listed := range after {
		assert.NotContains(t, listed, listCard, "%s after saved_cards withheld the card", path)
		assert.NotContains(t, listed, grouped, "%s after saved_cards withheld the card", path)
		for _, kept := range []string{"A new card", `"new"`, "Portugal", `"PT"`, "2026-03-14", "2026-03-15", "Pays the order", "Picks a card"} {
			assert.Contains(t, listed, kept, "%s keeps the ordinary options", path)
		}
	}
	assert.Eventually(t, func() bool {
		s := reg.schema("pay_order")
		return !strings.Contains(s, listCard) && !strings.Contains(s, grouped) && strings.Contains(s, "Portugal") && strings.Contains(s, "2026-03-14")
	}, bound.Of(10*time.Second), 20*time.Millisecond, "the native mirror is registered anew without the card")

	// A form added after the card was withheld is listed without it from the first.
	later := eval[string](tb, `(async () => {
		const form = document.createElement("form");
		form.setAttribute("toolname", "pay_again");
		form.setAttribute("tooldescription", "Pays again");
		form.innerHTML = '<select name="card"><option value="`+listCard+`">Saved card</option><option value="new">A new card</option></select>';
		document.body.append(form);
		for (;;) {
			const t = (await navigator.modelContext.getTools()).find((t) => t.name === "pay_again");
			if (t) return JSON.stringify(t.inputSchema);
			await new Promise((r) => document.modelContext.addEventListener("toolchange", r, { once: true }));
		}
	})()`)
	assert.NotContains(t, later, listCard, "a form added later")
	assert.Contains(t, later, "A new card", "a form added later")
	assert.Eventually(t, func() bool {
		s := reg.schema("pay_again")
		return !strings.Contains(s, listCard) && strings.Contains(s, "A new card")
	}, bound.Of(10*time.Second), 20*time.Millisecond, "the native mirror of a form added later")

	// A tool whose own list carries what its call withholds, called
	// through the native mirror: the browser gets the call's view, and
	// the mirror is registered anew after it.
	const other = "5500005555555559"
	require.True(t, eval[settled](tb, `e2e.register({name: "use_card", description: "Uses a card",
		inputSchema: {type: "object", properties: {card: {type: "string", enum: ["`+other+`", "Portugal"]}}},
		outputSchema: {type: "object", properties: {used: {type: "string", "x-sensitive": true}}}}, {returns: {used: "`+other+`"}})`).OK)
	require.Eventually(t, func() bool { return strings.Contains(reg.schema("use_card"), "Portugal") }, bound.Of(10*time.Second), 20*time.Millisecond,
		"the mirror of use_card")
	ev := tb.invokeTool("use_card", `{"card":"Portugal"}`)
	assert.Equal(t, "Completed", string(ev.Status), "the mirror's call")
	assert.NotContains(t, string(ev.Output), other)
	assert.Contains(t, string(ev.Output), "dev.veil/withheld", "the browser got the call's view")
	assert.Eventually(t, func() bool {
		s := reg.schema("use_card")
		return !strings.Contains(s, other) && strings.Contains(s, "Portugal")
	}, bound.Of(10*time.Second), 20*time.Millisecond, "the mirror of use_card is registered anew after its call")
}
