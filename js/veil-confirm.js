// Veil's built-in confirmation dialog and notice. webmcp.js imports this
// module from beside itself the first time its risk policy needs to ask
// the user about a tool call and the page has not set its own handler with
// veil.configure({confirm, notice}).
//
// The dialog is a modal <dialog> in a shadow root, so the page's styles
// neither hide nor restyle it: the browser traps focus in it, Escape
// declines, focus starts on "Don't allow" and returns where it was. Only a
// real click or key press on "Allow" approves: a script's synthetic click
// (an agent acting through page script) does not. Nothing is ever approved
// by default; closing the dialog in any way declines.
/// <reference path="./webmcp.d.ts" />

/** What each rule asks, as the dialog's heading. */
const headings = {
  trifecta: 'This could send your private data out',
  consequential: 'This action has consequences',
  malicious: 'Something in this session looked malicious',
  foreign: 'A tool this site does not control is open to the assistant',
};

/**
 * Says what one fact means, or nothing when another fact says it.
 * @param {VeilFact} f
 * @param {VeilTrust|null} trust
 */
const explain = (f, trust) => {
  const from = (list) => (list?.length ? ` (from ${list.join(', ')})` : '');
  switch (`${f.source} ${f.key}=${f.value}`) {
    case 'session untrustedContent=true':
      return `The assistant has read content from untrusted sources${from(trust?.untrustedFrom)}, which may try to steer it.`;
    case 'session maliciousActivity=true':
      return `Something earlier in this session was flagged as possibly malicious${from(trust?.maliciousFrom)}.`;
    case 'call maliciousActivityHint=true':
      return 'The site flagged this request as possibly malicious.';
    case 'call resolve=failed':
      return 'The site could not say what this call would do.';
  }
  switch (`${f.key}=${f.value}`) {
    case 'inputMetadata.destination=public':
      return 'This tool can send what it is given to public places.';
    case 'mcp.dev/effect=external':
      return 'This tool sends data outside this site.';
    case 'openWorldHint=true':
      return f.source === 'default' ? 'This tool does not say that it stays within this site.' : 'This tool reaches outside this site.';
    case 'readOnlyHint=false':
      return 'This tool may change things.';
    case 'inputMetadata.outcomes=irreversible':
      return 'Its effects cannot be undone.';
    case 'inputMetadata.outcomes=consequential':
      return 'It changes things others can see.';
    case 'destructiveHint=true':
    case 'mcp.dev/effect=delete':
      return 'It may delete or overwrite data.';
    case 'reversibleHint=true':
      return 'The site says it can be undone.';
    case 'privilegedAccessHint=true':
      return 'It uses elevated privileges.';
    case 'consequentialHint=true':
      return 'The site marks it as consequential.';
    case 'mcp.dev/requiresConfirmation=true':
      return 'The site asks for your confirmation before it runs.';
    case 'aiProcessingHint=true':
      return 'This tool passes what it is given to an AI model.';
  }
  if (f.key === 'inputMetadata.sensitivity') return `It takes ${f.value === 'user' ? "the user's" : f.value} data.`;
  if (f.key === 'privateData' || f.key === 'foreignTool') return null; // said once, below
  return `${f.key}: ${f.value}`;
};

/**
 * The sentences a request's facts make, each once.
 * @param {VeilCallRequest} request
 */
const reasons = (request) => {
  const out = new Set();
  const classes = request.facts.filter((f) => f.key === 'privateData').map((f) => f.value);
  if (classes.length) out.add(`The assistant has read private data (${[...new Set(classes)].join(', ')})${request.trust?.privateFrom?.length ? ` from ${request.trust.privateFrom.join(', ')}` : ''}.`);
  const foreign = request.facts.filter((f) => f.key === 'foreignTool').map((f) => f.value);
  if (foreign.length) out.add(`The assistant can also use tools this site does not control (${[...new Set(foreign)].join(', ')}): whatever it reads could leave through them.`);
  for (const f of request.facts) {
    const s = explain(f, request.trust);
    if (s) out.add(s);
  }
  return [...out];
};

/** How much of the input the dialog shows before "Show all". */
const INPUT_PREVIEW = 600;

/**
 * The input as the dialog shows it: JSON, with each value the tool's
 * inputSchema marks x-sensitive replaced by a mark, so the user sees what
 * is sent without the dialog showing it on screen.
 * @param {VeilCallRequest} request
 */
const inputText = (request) => {
  const copy = structuredClone(request.input ?? {});
  for (const pointer of request.sensitive ?? []) {
    const tokens = pointer.split('/').slice(1).map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    if (!tokens.length) return '(all of it is sensitive, so it is not shown)';
    let parent = copy;
    for (const t of tokens.slice(0, -1)) parent = parent?.[t];
    if (parent && typeof parent === 'object') parent[tokens.at(-1)] = '•••••• (sensitive, not shown)';
  }
  return JSON.stringify(copy, null, 2);
};

const css = `
:host { all: initial; }
dialog { font: 15px/1.45 system-ui, sans-serif; color: #1b1b1f; background: #fff; border: 1px solid #767680;
  border-radius: 10px; padding: 20px 22px; max-width: min(32rem, calc(100vw - 2rem)); box-shadow: 0 12px 40px #0005; }
dialog::backdrop { background: #0007; }
h2 { font-size: 17px; margin: 0 0 8px; }
p { margin: 0 0 8px; }
ul { margin: 0 0 12px; padding-left: 1.2em; }
.tool { font-weight: 600; }
pre { font: 13px/1.4 ui-monospace, monospace; background: #f2f2f5; border-radius: 6px; padding: 8px 10px; margin: 0 0 10px;
  max-height: 14rem; overflow: auto; white-space: pre-wrap; word-break: break-word; }
details { margin: 0 0 10px; }
summary { cursor: pointer; }
.buttons { display: flex; gap: 10px; justify-content: flex-end; margin-top: 16px; }
button { font: inherit; padding: 7px 16px; border-radius: 6px; border: 1px solid #767680; background: #f2f2f5; color: inherit; cursor: pointer; }
button.allow { background: #8a1c1c; border-color: #8a1c1c; color: #fff; }
button:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
.toast { position: fixed; inset: auto 16px 16px auto; font: 14px/1.4 system-ui, sans-serif; color: #fff; background: #1b1b1f;
  padding: 10px 14px; border-radius: 8px; max-width: 24rem; box-shadow: 0 6px 20px #0005; }
@media (prefers-color-scheme: dark) {
  dialog { color: #e6e6ea; background: #1f1f24; border-color: #8e8e99; }
  button { background: #2c2c33; }
  pre { background: #2c2c33; }
}
@media (prefers-reduced-motion: no-preference) { .toast { transition: opacity .3s; } }
`;

// The document as markup cannot shadow it: <img name="body"> is
// document.body, <form name="createElement"> document.createElement.
const D = Document.prototype;
const bodyOf = Object.getOwnPropertyDescriptor(D, 'body').get;
const rootOf = Object.getOwnPropertyDescriptor(D, 'documentElement').get;
const activeOf = Object.getOwnPropertyDescriptor(D, 'activeElement').get;
const createElement = D.createElement;
const create = (tag) => createElement.call(document, tag);
/** The runtime's namespace, its own property of the window: an element named veil is not it. */
const veil = () => (Object.hasOwn(globalThis, 'veil') ? globalThis.veil : undefined);

let sheet;
/** host makes a shadow root on the page for one dialog or notice. */
const host = () => {
  const el = create('veil-confirm');
  const root = el.attachShadow({ mode: 'open' });
  try {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
    }
    root.adoptedStyleSheets = [sheet];
  } catch {
    const style = create('style');
    style.textContent = css;
    root.append(style);
  }
  (bodyOf.call(document) ?? rootOf.call(document)).append(el);
  return { el, root };
};

/** make creates an element with properties and children. */
const make = (tag, props = {}, ...children) => {
  const e = Object.assign(create(tag), props);
  e.append(...children);
  return e;
};

let seq = 0;

/**
 * confirm asks the user whether a tool call may run, in a modal dialog.
 * It resolves with true only when the user activated "Allow".
 * @param {VeilConfirmRequest} request
 * @returns {Promise<boolean>}
 */
export const confirm = (request) =>
  new Promise((resolve) => {
    if (request.signal?.aborted) return resolve(false);
    const id = `veil-confirm-${++seq}`;
    const { el, root } = host();
    const before = activeOf.call(document);
    const dialog = make('dialog', { className: 'veil-confirm' });
    dialog.setAttribute('aria-labelledby', `${id}-h`);
    dialog.setAttribute('aria-describedby', `${id}-d`);
    const heading = make('h2', { id: `${id}-h`, textContent: headings[request.rule] ?? 'Allow this action?' });
    const what = make('p', { id: `${id}-d` }, 'The assistant wants to run ', make('span', { className: 'tool', textContent: request.title }), `: ${request.description}`);
    const list = make('ul', {}, ...reasons(request).map((r) => make('li', { textContent: r })));
    // The arguments this approval is for: the same tool with other
    // arguments is another question.
    const text = inputText(request);
    const input = [make('p', { textContent: 'With this input:' })];
    if (text.length <= INPUT_PREVIEW) input.push(make('pre', { className: 'input', textContent: text }));
    else
      input.push(
        make('pre', { className: 'input', textContent: `${text.slice(0, INPUT_PREVIEW)}…` }),
        make('details', {}, make('summary', { textContent: `Show all of it (${text.length} characters)` }), make('pre', { className: 'input-all', textContent: text })),
      );
    const ask = make('p', { textContent: 'Allow it to run this once?' });
    const no = make('button', { type: 'button', className: 'deny', textContent: "Don't allow", autofocus: true });
    const yes = make('button', { type: 'button', className: 'allow', textContent: 'Allow' });
    const buttons = make('div', { className: 'buttons' }, no);
    let none;
    if (request.waiting > 0) {
      // Many questions at once are a flood: one press declines them all.
      none = make('button', { type: 'button', className: 'deny-all', textContent: `Don't allow any (${request.waiting + 1})` });
      buttons.append(none);
    }
    buttons.append(yes);
    dialog.append(heading, what, ...input, list, ask, buttons);
    root.append(dialog);

    let answer = false;
    const close = () => dialog.open && dialog.close();
    no.addEventListener('click', close);
    none?.addEventListener('click', () => {
      veil()?.declinePending();
      close();
    });
    yes.addEventListener('click', (e) => {
      // A script's click is not the user's.
      if (!e.isTrusted) return;
      answer = true;
      close();
    });
    request.signal?.addEventListener('abort', close, { once: true });
    dialog.addEventListener('close', () => {
      request.signal?.removeEventListener('abort', close);
      el.remove();
      if (before instanceof HTMLElement && before.isConnected) before.focus({ preventScroll: true });
      resolve(answer);
    });
    try {
      dialog.showModal();
      no.focus();
    } catch (e) {
      console.warn('veil: the confirmation dialog cannot open, so the call is declined', e);
      el.remove();
      resolve(false);
    }
  });

/**
 * notice tells the user, without asking, that a tool runs: a status
 * message that screen readers announce politely and that goes away.
 * @param {VeilNoticeRequest} request
 */
export const notice = (request) => {
  const { el, root } = host();
  const why = reasons(request).join(' ');
  const toast = make('div', { className: 'toast' });
  toast.setAttribute('role', 'status');
  toast.setAttribute('aria-live', 'polite');
  root.append(toast);
  // Filled after insertion, so the live region announces it.
  requestAnimationFrame(() => (toast.textContent = `${request.title} is running. ${why}`));
  setTimeout(() => el.remove(), 6000);
};
