// soak.js is the agent side of the browser soak (e2e/soak_test.go): the
// test evaluates it in the demo page over the DevTools protocol, then
// calls soak.call for each call the agent makes through a path that runs
// in the page. The DevTools protocol's own path (WebMCP.invokeTool) is
// driven from Go.
'use strict';

(() => {
  /** @type {Map<string, any>} the page's tools as getTools gives them, by name */
  let tools = new Map();
  /** @type {any} the MCP client on the tab transport, once connected */
  let client = null;

  /**
   * outcome turns what a path resolved with, or threw, into data that
   * crosses the protocol whole: the agent's view as a string.
   */
  const outcome = (v) => ({ ok: true, view: typeof v === 'string' ? v : JSON.stringify(v), type: v === null ? 'null' : typeof v });
  const failure = (e) => ({ ok: false, name: String(e?.name ?? typeof e), message: String(e?.message ?? e) });

  window.soak = {
    /**
     * start lists the page's tools and, when the page serves MCP on the tab
     * transport and the client bundle is loaded, connects the client.
     * @returns {Promise<{tools: string[], paths: string[], mcp: boolean}>}
     */
    async start() {
      await veil.ready;
      tools = new Map((await document.modelContext.getTools()).map((t) => [t.name, t]));
      if (window.mcp) client = await window.mcp.connect();
      return { tools: [...tools.keys()], paths: veil.paths.map((p) => p.name), mcp: !!client };
    },

    /**
     * call runs one tool through one agent path and settles with the view
     * the agent got, or the error it got.
     * @param {string} path "document", "navigator", "testing", "native" or "mcp"
     * @param {string} name the tool
     * @param {string} inputJSON the input, as JSON text
     * @param {number} abortMs aborts the call's signal after this many ms;
     *   -1 passes no signal, -2 a signal aborted already
     */
    async call(path, name, inputJSON, abortMs) {
      let signal;
      if (abortMs === -2) signal = AbortSignal.abort();
      else if (abortMs >= 0) {
        const ac = new AbortController();
        setTimeout(() => ac.abort(), abortMs);
        signal = ac.signal;
      }
      const options = signal ? { signal } : {};
      try {
        switch (path) {
          case 'document':
            return outcome(await document.modelContext.executeTool(tools.get(name), JSON.parse(inputJSON), options));
          case 'navigator':
            return outcome(await navigator.modelContext.executeTool(tools.get(name), JSON.parse(inputJSON), options));
          case 'testing':
            return outcome(await navigator.modelContextTesting.executeTool(name, inputJSON));
          case 'native':
            return outcome(await veil.paths.find((p) => p.name === 'native executeTool').execute(name, inputJSON));
          case 'mcp':
            return outcome(await client.callTool({ name, arguments: JSON.parse(inputJSON) }, undefined, options));
          default:
            return failure(new TypeError(`no path ${path}`));
        }
      } catch (e) {
        return failure(e);
      }
    },

    /**
     * pickReveal marks a random item of the tray that shows a Reveal button
     * and nothing revealed or refused yet with data-soak-reveal=mark, moves
     * the focus to its Reveal button, and returns whether there was one.
     * @param {string} mark
     */
    pickReveal(mark) {
      const root = document.querySelector('veil-secrets')?.shadowRoot;
      const rows = [...(root?.querySelectorAll('.item') ?? [])].filter(
        (li) => li.querySelector('.actions button.primary')?.firstChild?.data === 'Reveal' && li.querySelector('.msg').hidden,
      );
      if (!rows.length) return false;
      const li = rows[Math.floor(Math.random() * rows.length)];
      li.dataset.soakReveal = mark;
      li.querySelector('.actions button.primary').focus();
      return root.activeElement === li.querySelector('.actions button.primary');
    },

    /**
     * revealed says what the marked item shows after its Reveal click:
     * {state: "value", value}, {state: "message", message}, "gone" once the
     * row left the tray, or "waiting".
     * @param {string} mark
     */
    revealed(mark) {
      const li = document.querySelector('veil-secrets').shadowRoot.querySelector(`[data-soak-reveal="${mark}"]`);
      if (!li) return { state: 'gone' };
      const value = li.querySelector('.value');
      if (!value.hidden) return { state: 'value', value: value.querySelector('code').textContent };
      const msg = li.querySelector('.msg');
      if (!msg.hidden && msg.classList.contains('bad')) return { state: 'message', message: msg.textContent };
      return { state: 'waiting' };
    },
  };
})();
