package e2e

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// devToolsPath names the DevTools protocol's WebMCP.invokeTool among the
// agent paths, beside veil.paths' names: Chromium's own agents call it.
const devToolsPath = "WebMCP.invokeTool"

// formBrowsers are the browsers the forms tests run in: Chromium as
// shipped, and with its own WebMCP on.
var formBrowsers = []struct {
	name string
	b    func() *browser
}{{"plain", func() *browser { return plain }}, {"native", func() *browser { return native }}}

// formPaths returns every agent path of the tab: veil.paths' and, with
// native WebMCP on, the DevTools protocol's.
func formPaths(tb *tab, nativeOn bool) []string {
	tb.t.Helper()
	paths := eval[[]string](tb, `veil.paths.map((p) => p.name)`)
	if nativeOn {
		paths = append(paths, devToolsPath)
	}
	return paths
}

// agentCall executes a tool through path, as an agent does, and returns
// what the agent gets.
func agentCall(tb *tab, path, name, input string) string {
	tb.t.Helper()
	if path == devToolsPath {
		return agentText(tb.invokeTool(name, input))
	}
	got := callForm(tb, path, name, input)
	require.True(tb.t, got.OK, "%s: %+v", path, got)
	return fmt.Sprint(got.Value)
}

// signInForm is a sign-in form tool without toolautosubmit: the agent
// fills the user name, the user types the password and the one-time code
// and submits. Its listener answers with every control of the form, as
// form handlers often do.
const signInForm = `<form id="signin" toolname="sign_in" tooldescription="Signs the user in">
	<input name="user" autocomplete="username" toolparamdescription="The user name">
	<input name="password" type="password" autocomplete="current-password">
	<input name="otp" autocomplete="one-time-code" inputmode="numeric">
	<input type="hidden" name="csrf">
	<input type="hidden" name="nonce">
	<button>Sign in</button>
</form>`

// TestFormsAnswerWithholdsWhatTheUserTyped (issue 20, item 3): a form's
// answer that hands back every control (Object.fromEntries(new
// FormData(form))) gives the agent what it filled, and never what the
// user typed, the password, the one-time code or the hidden token, on
// every agent path; nor does a later answer of another tool that repeats
// them. The agent cannot fill a current-password or one-time-code control:
// neither is in the input schema.
func TestFormsAnswerWithholdsWhatTheUserTyped(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, b := range formBrowsers {
		for _, mode := range engineModes {
			t.Run(b.name+"/"+mode, func(t *testing.T) {
				tb := openForms(t, b.b(), mode)
				tb.allowConsole(failedExecute)
				eval[bool](tb, `forms.add(`+js(signInForm)+`)`)
				eval[bool](tb, `(forms.answer.signin = {respond: (f) => ({submitted: Object.fromEntries(new FormData(f))})}, true)`)
				eval[bool](tb, `document.modelContext.registerTool({name: "last_login", description: "The last sign-in",
					execute: () => window.lastLogin}).then(() => true)`)
				tool := eval[map[string]any](tb, `forms.tool("sign_in")`)
				props, _ := tool["inputSchema"].(map[string]any)["properties"].(map[string]any)
				assert.Equal(t, []string{"user"}, keys(props), "the input schema: the agent cannot fill the password or the code")

				var secrets []string
				for i, path := range formPaths(tb, b.name == "native") {
					password := fmt.Sprintf("Tr0ub4dor&%d-horse", i)
					code := fmt.Sprintf("%06d", 482913+1117*i)
					token := fmt.Sprintf("csrf_7Hq2Lm9Zx4%d", i)
					nonce := fmt.Sprintf("q%dz", i) // shorter than any value the session's set takes
					secrets = append(secrets, password, code, token)
					eval[bool](tb, fmt.Sprintf(`(() => {
						const f = document.querySelector("#signin");
						f.elements.csrf.value = %s;
						f.elements.nonce.value = %s;
						forms.user.signin = {password: %s, otp: %s};
						return true;
					})()`, js(token), js(nonce), js(password), js(code)))
					view := agentCall(tb, path, "sign_in", `{"user":"ada"}`)
					assert.Contains(t, view, "ada", "%s: what the agent filled", path)
					for _, v := range []string{password, code, token} {
						assertWithheld(t, view, v, path)
					}
					assert.NotContains(t, view, nonce, "%s: a short hidden value", path)
					assert.Equal(t, map[string]any{"password": password, "otp": code, "csrf": token, "nonce": nonce},
						eval[map[string]any](tb, `(() => { const f = document.querySelector("#signin").elements;
							return {password: f.password.value, otp: f.otp.value, csrf: f.csrf.value, nonce: f.nonce.value}; })()`),
						"%s: the form was submitted with what the user typed", path)

					// Another tool that repeats them later.
					eval[bool](tb, fmt.Sprintf(`(window.lastLogin = %s, true)`, js("last sign-in by ada with "+password+", code "+code+", token "+token)))
					later := agentCall(tb, path, "last_login", `{}`)
					assert.Contains(t, later, "last sign-in by ada", "%s: what is around them", path)
					for _, v := range []string{password, code, token} {
						assertWithheld(t, later, v, path+": a later tool's output")
					}
				}
				console := strings.Join(tb.consoleTexts(), "\n")
				for _, v := range secrets {
					assertWithheld(t, console, v, "the console")
				}
			})
		}
	}
}

// keys returns the keys of m, sorted.
func keys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

// TestFormsAnswerWithheldWholeWhenTheEngineRefusesItsValues: when the
// engine does not take the values a form's answer must not give the agent
// (here, a message the user typed that is larger than the engine's bound
// on an output), the call fails and the agent gets nothing of the answer,
// on every agent path.
func TestFormsAnswerWithheldWholeWhenTheEngineRefusesItsValues(t *testing.T) {
	t.Parallel() // in a tab of its own
	const marker = "msg-7Hq2Lm9Zx41-typed"
	for _, b := range formBrowsers {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // each browser its own tab
			tb := openForms(t, b.b(), "worker")
			tb.allowConsole(failedExecute)
			eval[bool](tb, `forms.add('<form id="feedback" toolname="feedback" tooldescription="Sends feedback"><input name="topic"><textarea name="message"></textarea><button>Send</button></form>')`)
			eval[bool](tb, `(forms.answer.feedback = {respond: (f) => ({topic: f.topic.value, message: f.message.value.slice(0, 64)})}, true)`)
			eval[map[string]any](tb, `forms.tool("feedback")`)
			for _, path := range formPaths(tb, b.name == "native") {
				// Past the engine's 8 MiB bound on an output.
				eval[bool](tb, `(forms.user.feedback = {message: `+js(marker)+` + " ".repeat(9 << 20)}, true)`)
				if path == devToolsPath {
					ev := tb.invokeTool("feedback", `{"topic":"billing"}`)
					assert.NotEqual(t, "Completed", string(ev.Status), path)
					assertWithheld(t, string(ev.Output)+ev.ErrorText, marker, path)
					continue
				}
				got := callForm(tb, path, "feedback", `{"topic":"billing"}`)
				assert.Equal(t, formOutcome{Error: "UnknownError"}, got, path)
			}
			assertWithheld(t, strings.Join(tb.consoleTexts(), "\n"), marker, "the console")
		})
	}
}
