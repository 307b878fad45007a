// The runtime's other scripts, each loaded when first needed: the
// built-in dialog and notice (veil-confirm.js), the MCP server
// (veil-mcp.js, data-veil-mcp) and the tray (veil-secrets.js). The form
// tools' veil-forms.js is loaded by the form guard (guard.js).

import { script, here, load } from './config.js';
import { head, root, create, query, append } from './dom.js';
import { registrations, live } from './registry.js';
import { run } from './run.js';
import { context } from './context.js';
import { listed } from './listing.js';

let ui;
/** The built-in dialog and notice, loaded when first needed. */
export const loadUI = () => (ui ??= load('veil-confirm.js'));

// MCP over the tab transport (data-veil-mcp).
//
// start serves it when the script tag asks. veil-mcp.js gets only these:
// the registry's definitions, run (the one way out) and toolchange. It
// checks the allowed origins itself.
export const start = () => {
  if (script?.dataset.veilMcp !== undefined)
    load('veil-mcp.js')
      .then((m) =>
        m.start({
          transport: script.dataset.veilMcp,
          origins: script.dataset.veilMcpOrigins ?? '',
          tools: async () => {
            await Promise.all([...registrations.values()].map((e) => e.settled));
            return (await listed(live())).map((d) => structuredClone(d));
          },
          run: (name, input, signal) => run(name, input, signal),
          ontoolchange: (listener) => context.addEventListener('toolchange', listener),
        }),
      )
      .catch((e) => console.error('veil: the MCP server could not start', e));
};

// <veil-secrets>, the ready-made tray, loads from beside this script when
// the document uses it and nothing defined it yet.
export const tray = () => {
  if (customElements.get('veil-secrets') || !query(document, 'veil-secrets')) return;
  const s = create(document, 'script');
  try {
    s.src = here('veil-secrets.js');
  } catch (e) {
    return console.error(`${e.message}, so <veil-secrets> is not defined`);
  }
  s.onerror = () => console.error(`veil: cannot load ${s.src}, so <veil-secrets> is not defined`);
  if (script?.nonce) s.nonce = script.nonce;
  append(head(document) ?? root(document), s);
};
