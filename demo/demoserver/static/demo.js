// The demo page: it registers Northwind Cloud's WebMCP tools, and its agent
// console runs them the way an agent does, showing what each tool returned
// next to what the agent received.
'use strict';
(() => {
  const mc = document.modelContext;
  const $ = (id) => document.getElementById(id);

  /** el makes an element; props are properties (className, textContent, …). */
  const el = (tag, props = {}, ...kids) => {
    const e = Object.assign(document.createElement(tag), props);
    e.append(...kids);
    return e;
  };

  // ---- The site's API ----------------------------------------------------

  const api = async (method, path, body) => {
    const res = await fetch(path, {
      method,
      headers: body ? { 'Content-Type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    if (res.status === 401) throw new Error('Not signed in: the tool acts on your account, so sign in first.');
    const data = res.status === 204 ? null : await res.json();
    if (!res.ok) throw new Error(data?.error ?? `The server answered ${res.status}.`);
    return data;
  };

  // ---- Signing in ----------------------------------------------------------

  // A visitor arrives signed in as Ada, the demo's one user: the tools act on
  // an account, and the first one run should show what Veil keeps from the
  // agent, not a 401. Signing out holds for the tab until Sign in.
  const signedOutKey = 'veil-demo-signed-out';
  const signIn = () =>
    api('POST', '/api/signin').then((r) => {
      sessionStorage.removeItem(signedOutKey);
      return r.user;
    });
  const signOut = () =>
    api('POST', '/api/signout').then(() => {
      sessionStorage.setItem(signedOutKey, '1');
      return null;
    });
  /**
   * Who is signed in, once the page knows; a tool waits for it, so that a run
   * right after the page loads does not beat the sign-in.
   * @type {Promise<{name: string, email: string} | null>}
   */
  let session = api('GET', '/api/session').then((r) => r.user ?? (sessionStorage.getItem(signedOutKey) ? null : signIn()));

  // ---- The tools ---------------------------------------------------------

  /**
   * What each tool returned last, kept on the page for the console's left
   * pane. Agents never read it: they get what executeTool resolves with.
   * @type {Map<string, {value?: unknown, error?: Error}>}
   */
  const produced = new Map();

  /** Examples the console offers as input, and a word on the rule each tool shows. */
  const examples = {
    create_api_key: { input: { name: 'ci-deploy', ttl: 300 }, rule: 'Returns a secret_reference: the key is stored by the server and reaches this page only when you reveal it.' },
    get_profile: { input: {}, rule: 'Its outputSchema marks the ID number and date of birth x-sensitive; the rest reaches the agent.' },
    read_medical_record: { input: {}, rule: 'sensitiveHint and no outputSchema: the whole output is withheld.' },
    generate_recovery_codes: { input: {}, rule: 'sensitiveHint with an outputSchema: only declared, non-sensitive fields reach the agent; the codes do not.' },
    list_orders: { input: { status: 'paid' }, rule: 'Nothing sensitive: the agent gets the output byte for byte.' },
  };

  const tool = (def, run) =>
    mc
      .registerTool({
        ...def,
        async execute(input, options) {
          try {
            await session.catch(() => {});
            const value = await run(input, options);
            produced.set(def.name, { value });
            return value;
          } catch (error) {
            produced.set(def.name, { error });
            throw error;
          }
        },
      })
      .catch((e) => console.error(`demo: registering ${def.name}:`, e));

  tool(
    {
      name: 'create_api_key',
      title: 'Create API key',
      description:
        'Creates an API key for the signed-in user. The key goes to the user, not to you: the result says it was made, and the user reveals it on the page.',
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 64, description: 'A name for the key' },
          ttl: { type: 'integer', minimum: 1, maximum: 3600, description: 'Seconds the user has to reveal it (default 300)' },
        },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: { sensitiveHint: true },
    },
    async ({ name, ttl }) => {
      const key = await api('POST', '/api/keys', { name, ttl });
      return {
        content: [
          { type: 'text', text: `Created API key "${key.name}" (${key.id}). The user can reveal it once in the next ${key.reference.ttl} seconds.` },
          key.reference,
        ],
      };
    },
  );

  tool(
    {
      name: 'get_profile',
      title: 'Get profile',
      description: "Reads the signed-in user's profile.",
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      outputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          email: { type: 'string' },
          plan: { type: 'string' },
          memberSince: { type: 'string', format: 'date' },
          address: { type: 'object', properties: { city: { type: 'string' }, country: { type: 'string' } } },
          idNumber: { type: 'string', description: 'National insurance number', 'x-sensitive': true },
          dateOfBirth: { type: 'string', format: 'date', 'x-sensitive': true },
        },
      },
      annotations: { readOnlyHint: true },
    },
    () => api('GET', '/api/profile'),
  );

  tool(
    {
      name: 'read_medical_record',
      title: 'Medical record',
      description: "Reads the signed-in user's medical record.",
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      annotations: { readOnlyHint: true, sensitiveHint: true },
    },
    async () => (await api('GET', '/api/medical-record')).text,
  );

  tool(
    {
      name: 'generate_recovery_codes',
      title: 'Generate recovery codes',
      description: "Replaces the signed-in user's two-factor recovery codes with ten new ones.",
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      outputSchema: {
        type: 'object',
        properties: {
          codes: { type: 'array', items: { type: 'string', 'x-sensitive': true } },
          count: { type: 'integer' },
          generatedAt: { type: 'string', format: 'date-time' },
        },
        required: ['codes', 'count', 'generatedAt'],
      },
      annotations: { sensitiveHint: true },
    },
    () => api('POST', '/api/recovery-codes', {}),
  );

  tool(
    {
      name: 'list_orders',
      title: 'List orders',
      description: "Lists the signed-in user's orders, optionally only those with a status.",
      inputSchema: {
        type: 'object',
        properties: { status: { type: 'string', enum: ['paid', 'pending'] } },
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    },
    ({ status }) => api('GET', '/api/orders' + (status ? `?status=${encodeURIComponent(status)}` : '')),
  );

  // ---- The account ---------------------------------------------------------

  const account = $('account');
  const showAccount = (user) => {
    const button = el('button', { type: 'button', className: 'button' + (user ? '' : ' primary') });
    if (user) {
      const initials = user.name
        .split(' ')
        .map((w) => w[0])
        .join('');
      button.textContent = 'Sign out';
      button.onclick = () => (session = signOut()).then(showAccount);
      account.replaceChildren(
        el(
          'div',
          { className: 'who' },
          el('span', { className: 'avatar', textContent: initials, ariaHidden: 'true' }),
          el('span', {}, el('strong', { textContent: user.name }), el('small', { textContent: user.email })),
        ),
        button,
      );
    } else {
      button.textContent = 'Sign in as Ada';
      button.onclick = () => (session = signIn()).then(showAccount);
      account.replaceChildren(el('span', { className: 'signed-out', textContent: 'Signed out' }), button);
    }
  };
  session.then(showAccount, () => showAccount(null));

  const engine = $('engine');
  veil.ready.then(
    () => {
      engine.classList.add('ready');
      engine.lastChild.textContent = `Engine ready · ${veil.mode === 'worker' ? 'in a Worker' : 'on the main thread'}`;
    },
    () => {
      engine.classList.add('failed');
      engine.lastChild.textContent = 'The engine could not start';
    },
  );

  // ---- The agent console ---------------------------------------------------

  const list = $('tools');
  const input = $('input');
  const inputError = $('input-error');
  const runButton = $('run-button');
  const runStatus = $('run-status');
  const producedPane = $('produced');
  const receivedPane = $('received');
  const verdict = $('verdict');
  const showWithheld = $('show-withheld');
  const exact = $('exact');
  /** @type {RegisteredTool[]} */
  let tools = [];
  /** The last run, rendered again when a switch changes. */
  let last = null;
  /** Whether the engine runs, and whether a run is under way. */
  let up = false;
  let running = false;

  // "Run as the agent" waits for the engine and the tools the page
  // registered (the page's HTML starts it disabled): a click before then
  // would have nothing to run.
  const canRun = () => (runButton.disabled = running || !up || !tools.length);
  veil.ready.then(
    () => {
      up = true;
      if (!running) runStatus.textContent = '';
      canRun();
    },
    () => (runStatus.textContent = 'The engine could not start, so no tool can run. Reload the page to try again.'),
  );

  const badgesOf = (t) => {
    const b = [];
    const schema = JSON.stringify(t.outputSchema ?? {});
    if (t.name === 'create_api_key') b.push(['secret_reference', 'secret']);
    if (t.annotations?.sensitiveHint) b.push(['sensitiveHint', 'sensitive']);
    if (schema.includes('"x-sensitive":true')) b.push(['x-sensitive', 'sensitive']);
    if (!b.length) b.push(['nothing sensitive', 'plain']);
    return b;
  };

  const pick = (name) => {
    input.value = JSON.stringify(examples[name]?.input ?? {});
    inputError.hidden = true;
    $('rule').textContent = examples[name]?.rule ?? '';
  };

  const listTools = async () => {
    // In the order of the rules they show, not by name.
    const rank = (t) => (Object.keys(examples).indexOf(t.name) + 1 || 99);
    tools = (await mc.getTools()).sort((a, b) => rank(a) - rank(b));
    const checked = list.querySelector('input:checked')?.value ?? tools[0]?.name;
    list.replaceChildren(
      ...tools.map((t) => {
        const radio = el('input', { type: 'radio', name: 'tool', value: t.name, checked: t.name === checked });
        radio.onchange = () => pick(t.name);
        const card = el(
          'label',
          { className: 'tool', title: t.description },
          radio,
          el('span', { className: 'tool-name', textContent: t.name }),
          el('span', { className: 'badges' }, ...badgesOf(t).map(([text, kind]) => el('span', { className: `badge ${kind}`, textContent: text }))),
        );
        return card;
      }),
    );
    if (!input.value && checked) pick(checked);
    canRun();
  };
  mc.addEventListener('toolchange', listTools);
  listTools();

  // JSON, rendered with colours, and with marks where Veil withheld or dropped something.
  const MASK = '••••••••';
  /**
   * @param {unknown} value
   * @param {Map<string, 'withheld'|'dropped'>} marks by JSON Pointer
   * @param {boolean} mask hide withheld values behind dots
   */
  const renderJSON = (value, marks = new Map(), mask = false) => {
    const out = document.createDocumentFragment();
    const text = (s, cls) => (cls ? el('span', { className: cls, textContent: s }) : document.createTextNode(s));
    const walk = (v, ptr, indent, into) => {
      const mark = marks.get(ptr);
      if (mark) {
        const m = el('mark', { className: mark, title: mark === 'withheld' ? `withheld: ${ptr || 'the whole output'}` : 'never sent to the agent' });
        into.append(m);
        if (mark === 'withheld' && mask) {
          m.classList.add('masked');
          m.textContent = MASK;
          return;
        }
        into = m;
      }
      if (Array.isArray(v) || (v && typeof v === 'object')) {
        const entries = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
        const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
        if (!entries.length) return into.append(text(open + close, 'p'));
        into.append(text(open, 'p'));
        entries.forEach(([k, x], i) => {
          into.append('\n' + '  '.repeat(indent + 1));
          if (!Array.isArray(v)) into.append(text(JSON.stringify(k), 'k'), text(': ', 'p'));
          walk(x, `${ptr}/${String(k).replace(/~/g, '~0').replace(/\//g, '~1')}`, indent + 1, into);
          if (i < entries.length - 1) into.append(text(',', 'p'));
        });
        into.append('\n' + '  '.repeat(indent), text(close, 'p'));
        return;
      }
      const cls = typeof v === 'string' ? 's' : typeof v === 'number' ? 'n' : 'b';
      into.append(text(JSON.stringify(v), cls));
    };
    walk(value, '', 0, out);
    return out;
  };

  /** marksFor finds what Veil withheld (from the agent view's _meta) and the reference fields it dropped. */
  const marksFor = (value, view) => {
    const marks = new Map();
    const find = (v, ptr) => {
      if (!v || typeof v !== 'object') return;
      if (v.type === 'secret_reference') for (const k of Object.keys(v)) if (!['type', 'label', 'ttl'].includes(k)) marks.set(`${ptr}/${k}`, 'dropped');
      for (const [k, x] of Object.entries(v)) find(x, `${ptr}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    };
    find(value, '');
    for (const p of view?._meta?.['dev.veil/withheld']?.withheld ?? []) marks.set(p, 'withheld');
    return marks;
  };

  const parse = (s) => {
    try {
      return JSON.parse(s);
    } catch {
      return undefined;
    }
  };

  const render = () => {
    if (!last) return;
    const { name, out, agent, error, ms, held } = last;
    const view = agent === undefined ? undefined : parse(agent);
    const marks = marksFor(out?.value, view);

    // Left: what the page's tool produced.
    if (out?.error) {
      producedPane.replaceChildren(el('span', { className: 'err', textContent: `The tool threw: ${out.error.message}` }));
    } else if (typeof out?.value === 'string') {
      const whole = marks.get('') === 'withheld';
      const m = whole ? el('mark', { className: 'withheld', title: 'withheld: the whole output' }) : document.createDocumentFragment();
      m.append(whole && !showWithheld.checked ? MASK : out.value);
      if (whole && !showWithheld.checked) m.classList.add('masked');
      producedPane.replaceChildren(m);
    } else if (out) {
      producedPane.replaceChildren(renderJSON(out.value, marks, !showWithheld.checked));
    } else {
      producedPane.replaceChildren(el('span', { className: 'placeholder', textContent: 'The tool did not run.' }));
    }

    // Right: exactly what the agent got.
    if (error) {
      receivedPane.replaceChildren(el('span', { className: 'err', textContent: `executeTool rejected: ${error.name}: ${error.message}` }));
    } else if (exact.checked || view === undefined) {
      receivedPane.replaceChildren(agent);
    } else {
      receivedPane.replaceChildren(renderJSON(view));
    }

    // The verdict.
    const meta = view?._meta?.['dev.veil/withheld'];
    const same = !error && out && !out.error && agent === (typeof out.value === 'string' ? out.value : JSON.stringify(out.value));
    verdict.hidden = false;
    verdict.className = 'verdict ' + (error ? 'error' : meta ? 'withheld' : same ? 'same' : '');
    const parts = [];
    if (error) parts.push(el('strong', { textContent: 'The agent got an error.' }), ' It carries none of the output.');
    else if (meta) {
      const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
      const n = meta.withheld.length;
      const r = meta.references;
      const what = [n && plural(n, 'value', 'values'), r && plural(r, 'secret reference', 'secret references')].filter(Boolean).join(' and ');
      const whole = meta.withheld.includes('');
      parts.push(
        el('strong', { textContent: whole ? 'Veil withheld the whole output.' : `Veil withheld ${what}.` }),
        whole
          ? ' The agent only learns that something was withheld; the output waits in your tray.'
          : ` The agent got the rest; ${held === 1 ? 'the item waits' : 'the items wait'} in your tray.`,
      );
    } else if (same) parts.push(el('strong', { textContent: 'Identical, byte for byte.' }), ' Nothing in this output is sensitive.');
    else parts.push('The agent received the output as shown.');
    parts.push(el('span', { className: 'muted', textContent: ` · ${name} · ${ms} ms` }));
    verdict.replaceChildren(...parts);
  };
  // Enter runs the tool; Shift+Enter adds a line.
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      if (!runButton.disabled) $('run').requestSubmit();
    }
  });
  showWithheld.onchange = render;
  exact.onchange = render;

  // How many items the last call held, from the runtime's held event.
  let heldCount = 0;
  veil.addEventListener('held', (e) => (heldCount = e.detail.count));

  $('run').onsubmit = async (e) => {
    e.preventDefault();
    if (runButton.disabled) return;
    const name = list.querySelector('input:checked')?.value;
    const t = tools.find((t) => t.name === name);
    if (!t) return;
    let args;
    try {
      args = JSON.parse(input.value || '{}');
      inputError.hidden = true;
    } catch (err) {
      inputError.textContent = `The input is not JSON: ${err.message}`;
      inputError.hidden = false;
      input.focus();
      return;
    }
    running = true;
    canRun();
    runStatus.textContent = `Running ${name}…`;
    produced.delete(name);
    heldCount = 0;
    const start = performance.now();
    let agent, error;
    try {
      agent = await mc.executeTool(t, args);
    } catch (err) {
      error = err;
    }
    const ms = Math.round(performance.now() - start);
    last = { name, out: produced.get(name), agent, error, ms, held: heldCount };
    render();
    running = false;
    canRun();
    runStatus.textContent = error ? `${name} failed.` : `${name} finished.`;
  };
})();
