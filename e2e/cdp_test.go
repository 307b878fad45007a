package e2e

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/webmcp"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nativeTool waits until the browser's native WebMCP registry of the tab's
// main frame holds the tool, and returns it as the DevTools protocol reports
// it. WebMCP.enable reports every tool already registered, so it does not
// matter whether the page registered it before or after the call.
func (tb *tab) nativeTool(name string) *webmcp.Tool {
	tb.t.Helper()
	added := chromedp.Events(tb.ctx, webmcp.ToolsAdded)
	_, err := chromedp.Call(tb.ctx, webmcp.Enable, cdp.Empty{})
	require.NoError(tb.t, err, "WebMCP.enable")
	for ev, err := range added {
		require.NoError(tb.t, err, "waiting for WebMCP.toolsAdded of %q", name)
		for _, tool := range ev.Tools {
			if tool.Name == name {
				return tool
			}
		}
	}
	require.FailNow(tb.t, "the WebMCP.toolsAdded events ended", "tool %q", name)
	return nil
}

// invokeTool calls the tool through the DevTools protocol, as an agent that
// drives the browser does, and returns the WebMCP.toolResponded event of
// that invocation.
func (tb *tab) invokeTool(name, input string) *webmcp.EventToolResponded {
	tb.t.Helper()
	frame, err := chromedp.Call(tb.ctx, page.GetFrameTree, cdp.Empty{})
	require.NoError(tb.t, err, "Page.getFrameTree")
	_, err = chromedp.Call(tb.ctx, webmcp.Enable, cdp.Empty{})
	require.NoError(tb.t, err, "WebMCP.enable")

	// Subscribe first: the response to invokeTool can come after the event.
	responded := chromedp.Events(tb.ctx, webmcp.ToolResponded)
	res, err := chromedp.Call(tb.ctx, webmcp.InvokeTool, webmcp.InvokeToolParams{
		FrameID:  frame.FrameTree.Frame.ID,
		ToolName: name,
		Input:    jsonv2.Value(input),
	})
	require.NoError(tb.t, err, "WebMCP.invokeTool %q", name)
	for ev, err := range responded {
		require.NoError(tb.t, err, "waiting for WebMCP.toolResponded of %q", name)
		if ev.InvocationID == res.InvocationID {
			return &ev
		}
	}
	require.FailNow(tb.t, "the WebMCP.toolResponded events ended", "tool %q", name)
	return nil
}

// agentText returns the tool output of a WebMCP.toolResponded event as the
// string that executeTool gives for the same call; see devToolsText.
func agentText(ev *webmcp.EventToolResponded) string {
	return devToolsText(string(ev.Output))
}

// devToolsText returns the output of a WebMCP.toolResponded event, as JSON
// text, as the string that executeTool gives for the same call. Chromium
// sends the output as JSON: parsed when it takes the string as JSON text,
// else as a JSON string. Which one is not up to the tool: Chromium 156
// parses a string that V8 holds in one byte per character as UTF-8, so
// valid JSON text with a Latin-1 character such as "é" or "Ä" arrives as a
// JSON string when V8 holds it that way, and parsed when V8 holds the same
// text in two bytes per character. A lone surrogate escape parses.
func devToolsText(output string) string {
	var s string
	if len(output) > 0 && output[0] == '"' && json.Unmarshal([]byte(output), &s) == nil {
		return s
	}
	return output
}

// assertDevToolsOutput checks the output of a WebMCP.toolResponded event
// against the string executeTool gives for the same call. Chromium sends the
// string either parsed or as a JSON string (see devToolsText), so either
// form is accepted.
func assertDevToolsOutput(t *testing.T, want, output, msg string) bool {
	t.Helper()
	var s string
	if len(output) > 0 && output[0] == '"' && json.Unmarshal([]byte(output), &s) == nil && s == want {
		return true
	}
	if !json.Valid([]byte(want)) {
		return assert.Equal(t, want, s, "%s: the output is %s", msg, output)
	}
	return assert.JSONEq(t, want, output, msg)
}
