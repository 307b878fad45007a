// <veil-secrets>: the user's tray of what Veil withheld from AI agents.
// It lists the items of window.veil, with Reveal, Copy and Forget for each.
// webmcp.js loads it from beside itself when the document has a
// <veil-secrets> element; a page that adds the element later includes
// this script itself.
//
//   <veil-secrets hide-after="30" heading-level="2"></veil-secrets>
//
// Reveal shows a value until hide-after seconds pass (default 30), the
// user hides it, or the tab is hidden. Copy puts a value on the clipboard
// without showing it; when the browser refuses the clipboard, a value the
// tray fetched is shown instead, for the user to copy by hand. Revealing
// needs a click or a key press, as veil.reveal does. A secret_reference is
// redeemed only once, so the tray keeps what it redeemed: hiding masks it
// (Show brings it back) until the user confirms hiding it for good. It
// keeps them for the page, not in the element, so a tray the page puts in
// place of another still has them; and an item whose value is on its way
// stays, its Forget disabled, until the value comes. Spent and expired
// items say so, and their Reveal and Copy are disabled. Each
// call shows its first five items, then "Show more".
//
// Theming: CSS custom properties on the element or above it,
//   --veil-accent, --veil-accent-text, --veil-surface, --veil-border,
//   --veil-muted, --veil-danger, --veil-radius, --veil-font, --veil-mono;
// and the parts tray, title, count, empty, calls, call, tool, item,
// label, state, value, value-text, mask, button, message, confirm, status.
// Slots: title, empty.
/// <reference path="./webmcp.d.ts" />
'use strict';
(() => {
  if (customElements.get('veil-secrets')) return;

  const CSS = `
:host{display:block;font:var(--veil-font,inherit);color:inherit;
--a:var(--veil-accent,#4f46e5);--at:var(--veil-accent-text,#fff);
--s:var(--veil-surface,color-mix(in srgb,currentColor 4%,transparent));
--b:var(--veil-border,color-mix(in srgb,currentColor 14%,transparent));
--m:var(--veil-muted,color-mix(in srgb,currentColor 62%,transparent));
--d:var(--veil-danger,#c0392b);--r:var(--veil-radius,10px)}
[hidden]{display:none!important}
.head{display:flex;align-items:baseline;gap:.5em;margin:0 0 .75em}
h2{font-size:1em;font-weight:600;margin:0}
.count{color:var(--m);font-variant-numeric:tabular-nums}
.empty{color:var(--m);margin:0;padding:1em;border:1px dashed var(--b);border-radius:var(--r)}
.lost{margin:0 0 .75em;padding:.75em 1em;border:1px solid var(--b);border-radius:var(--r);background:var(--s)}
ol,ul{list-style:none;margin:0;padding:0}
.call{border:1px solid var(--b);border-radius:var(--r);background:var(--s);margin:0 0 .75em;overflow:hidden}
.call>p{display:flex;justify-content:space-between;gap:1em;margin:0;padding:.5em .8em;border-bottom:1px solid var(--b);color:var(--m);font-size:.85em}
.tool{font-family:var(--veil-mono,ui-monospace,monospace);color:inherit}
.item{padding:.6em .8em}
.item+.item{border-top:1px solid var(--b)}
.row{display:flex;flex-wrap:wrap;align-items:center;gap:.4em .8em}
.info{flex:1 1 9em;min-width:0;display:flex;flex-direction:column}
.label{font-weight:600;overflow-wrap:anywhere}
.meta{color:var(--m);font-size:.8em}
.actions,.choices{display:flex;gap:.35em}
button.quiet{border-color:transparent;color:var(--m)}
button{font:inherit;font-size:.85em;line-height:1.2;padding:.35em .75em;border-radius:calc(var(--r)*.6);
border:1px solid var(--b);background:transparent;color:inherit;cursor:pointer}
button:hover{border-color:var(--a)}
button:focus-visible{outline:2px solid var(--a);outline-offset:2px}
button.primary{background:var(--a);border-color:var(--a);color:var(--at)}
button:disabled{opacity:.55;cursor:progress}
button.danger{background:var(--d);border-color:var(--d);color:#fff}
.done button:disabled{cursor:not-allowed}
.state{align-self:flex-start;margin-top:.2em;padding:0 .45em;border:1px solid var(--b);border-radius:999px;font-size:.75em;color:var(--m)}
.value{margin:.5em 0 0;position:relative;border-radius:calc(var(--r)*.6);background:color-mix(in srgb,var(--a) 8%,transparent);
border:1px solid color-mix(in srgb,var(--a) 35%,transparent);overflow:hidden}
code{display:block;padding:.5em .7em .6em;font-family:var(--veil-mono,ui-monospace,monospace);font-size:.9em;
white-space:pre-wrap;overflow-wrap:anywhere;max-height:14em;overflow:auto}
.mask{display:block;width:100%;text-align:left;border:0;border-radius:0;padding:.5em .7em .6em;color:var(--m)}
.mask span[aria-hidden]{font-family:var(--veil-mono,ui-monospace,monospace);letter-spacing:.1em;margin-right:.6em}
.ask{margin:.5em 0 0;padding:.6em .7em;border:1px solid var(--d);border-radius:calc(var(--r)*.6)}
.ask p{margin:0 0 .5em;font-size:.9em}
.bar{position:absolute;left:0;bottom:0;height:3px;width:100%;background:var(--a);transform-origin:left;animation:t var(--t,30s) linear forwards}
@keyframes t{to{transform:scaleX(0)}}
@media (prefers-reduced-motion:reduce){.mask{display:block;width:100%;text-align:left;border:0;border-radius:0;padding:.5em .7em .6em;color:var(--m)}
.mask span[aria-hidden]{font-family:var(--veil-mono,ui-monospace,monospace);letter-spacing:.1em;margin-right:.6em}
.ask{margin:.5em 0 0;padding:.6em .7em;border:1px solid var(--d);border-radius:calc(var(--r)*.6)}
.ask p{margin:0 0 .5em;font-size:.9em}
.bar{animation:none}}
.msg{margin:.4em 0 0;font-size:.85em;color:var(--m)}
.msg.bad{color:var(--d)}
.more{margin:.5em .8em .7em}
.sr{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}`;
  let sheet;

  /** el makes an element: props are attributes, except text and class. */
  const el = (tag, props = {}, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props))
      if (v == null) continue;
      else if (k === 'text') e.textContent = v;
      else if (k === 'class') e.className = v;
      else e.setAttribute(k, v);
    e.append(...kids);
    return e;
  };
  const time = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const words = (s) => s.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim();
  const cap = (s) =>
    (s.charAt(0).toUpperCase() + s.slice(1).toLowerCase()).replace(/\b(id|url|api|pin|ssn|iban)\b/gi, (w) => w.toUpperCase());
  const tokens = (p) => p.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));

  /** A name for the user: the engine's label, made readable when it is a pointer's last token. */
  const nameOf = (item) => {
    const t = tokens(item.pointer);
    if (item.kind !== 'value' || !t.length || t.at(-1) !== item.label) return item.label;
    const n = t.at(-1);
    return /^\d+$/.test(n) && t.length > 1 ? `${cap(words(t.at(-2)))} ${+n + 1}` : cap(words(n));
  };
  const order = (a, b) => a.pointer.localeCompare(b.pointer, undefined, { numeric: true });

  /** How many items of a call show before "Show more". */
  const PAGE = 5;

  /** What an item that can no longer be revealed says it is, by state. */
  const STATES = { spent: 'Spent', expired: 'Expired', gone: 'Gone' };
  const ACTIVATION = 'This needs a click or a key press.';
  const KEPT = 'Shown once: the server will not hand it out again. It stays here until you hide it for good.';
  const MASKED = 'Masked. Show brings it back; it stays here until you hide it for good.';

  /**
   * The page's one-time secrets, shared by every tray of the page so that a
   * tray the page renders again still has them. kept: those redeemed, by
   * handle, until the user hides or forgets them for good. flying: those
   * whose redemption is on its way, by handle, with how many are.
   * @type {Map<string, {item: any, value: string}>}
   */
  const kept = new Map();
  /** @type {Map<string, {item: any, n: number}>} */
  const flying = new Map();
  /** The one-time secrets the user hid for good, by handle: spent in every tray. @type {Set<string>} */
  const spent = new Set();
  /** @type {Set<VeilSecrets>} the trays in the document */
  const trays = new Set();

  /** active says whether the user just clicked or pressed a key, as veil.reveal asks. */
  const active = () => !!navigator.userActivation?.isActive;

  /**
   * clipboardAccess is what the browser says of writing to the clipboard:
   * "granted", "denied", "prompt", or "unknown" where it can't be asked
   * (Firefox and Safari know no clipboard-write permission).
   * @returns {Promise<string>}
   */
  const clipboardAccess = async () => {
    try {
      return (await navigator.permissions.query({ name: /** @type {PermissionName} */ ('clipboard-write') })).state;
    } catch {
      return 'unknown';
    }
  };

  /**
   * write puts text that is still to come on the clipboard, and resolves
   * with whether the browser took it. Call it within the click: Safari lets
   * a page write only there, and a ClipboardItem takes the text as a
   * promise, so the write can start before the value has arrived.
   * @param {Promise<string>} text
   * @returns {Promise<boolean>}
   */
  const write = (text) => {
    let done;
    try {
      const blob = text.then((t) => new Blob([t], { type: 'text/plain' }));
      // The write reports a value that never came; this promise need not.
      blob.catch(() => {});
      done = navigator.clipboard.write([new ClipboardItem({ 'text/plain': blob })]);
    } catch {
      // No ClipboardItem, or one that takes no promise: write the text once it is here.
      done = text.then((t) => navigator.clipboard.writeText(t));
    }
    return done.then(
      () => true,
      () => false,
    );
  };

  class VeilSecrets extends HTMLElement {
    #root = this.attachShadow({ mode: 'open' });
    #list;
    #empty;
    #count;
    #status;
    #lost;
    /** @type {Map<string, any>} call id -> group */
    #groups = new Map();
    /** @type {Map<string, number>} call id -> order of arrival, for calls heard of by a held event */
    #arrived = new Map();
    #seq = 0;
    /** For the ids of the rows' questions. */
    #ids = 0;
    /** @type {HTMLElement|null} */
    #next = null;
    #syncing = null;
    #again = false;
    #expiry = 0;
    #off = new AbortController();

    constructor() {
      super();
      sheet ??= new CSSStyleSheet();
      if (!sheet.cssRules.length) sheet.replaceSync(CSS);
      this.#root.adoptedStyleSheets = [sheet];
      const level = /^[1-6]$/.test(this.getAttribute('heading-level') ?? '') ? this.getAttribute('heading-level') : '2';
      this.#count = el('span', { class: 'count', part: 'count' });
      this.#empty = el(
        'p',
        { class: 'empty', part: 'empty' },
        el('slot', { name: 'empty', text: 'Nothing is held. When a tool withholds values from an agent, they wait here for you.' }),
      );
      this.#list = el('ol', { part: 'calls', 'aria-label': 'Withheld items, newest call first' });
      this.#status = el('p', { class: 'sr', role: 'status', part: 'status' });
      this.#lost = el('p', { class: 'lost', part: 'lost', role: 'status', hidden: '' });
      this.#root.append(
        el(
          'section',
          { part: 'tray', 'aria-labelledby': 'title' },
          el(
            'div',
            { class: 'head' },
            el('h2', { id: 'title', part: 'title', 'aria-level': level, tabindex: '-1' }, el('slot', { name: 'title', text: 'Withheld from the agent' })),
            this.#count,
          ),
          this.#lost,
          this.#empty,
          this.#list,
          this.#status,
        ),
      );
    }

    connectedCallback() {
      const v = globalThis.veil;
      if (typeof v?.items !== 'function') {
        this.#empty.textContent = 'Veil is not loaded on this page.';
        return;
      }
      this.#off = new AbortController();
      trays.add(this);
      const signal = this.#off.signal;
      v.addEventListener('held', (e) => ((this.#lost.hidden = true), this.#sync(e.detail?.call)), { signal });
      // The engine that held the values is gone, and they with it.
      v.addEventListener('enginelost', () => this.#engineLost(), { signal });
      v.addEventListener('forgotten', () => this.#sync(), { signal });
      // A revealed value does not stay on a screen nobody is looking at.
      document.addEventListener('visibilitychange', () => document.hidden && this.#concealAll(), { signal });
      this.#sync();
    }

    disconnectedCallback() {
      this.#off.abort();
      trays.delete(this);
      clearTimeout(this.#expiry);
      this.#concealAll();
    }

    get #hideAfter() {
      const s = Number(this.getAttribute('hide-after'));
      return s > 0 ? s : 30;
    }

    /** Brings the list up to date with the runtime; calls overlap into one more run. */
    #sync(newCall) {
      if (newCall) this.#arrived.set(newCall, ++this.#seq);
      if (this.#syncing) return void (this.#again = true);
      this.#syncing = veil
        .items()
        .then((items) => this.#render(items))
        .finally(() => {
          this.#syncing = null;
          if (this.#again) (this.#again = false), this.#sync();
        });
    }

    #engineLost() {
      // A one-time secret the tray keeps, or one already spent, was not lost with the engine.
      let n = 0;
      for (const g of this.#groups.values())
        for (const it of g.items ?? []) {
          const row = g.rows.get(it.handle);
          if (!row || (row.state === 'ready' && !kept.has(it.handle))) n++;
        }
      if (n) {
        this.#lost.textContent = `${n === 1 ? '1 withheld value was' : `${n} withheld values were`} lost when Veil's engine stopped; ${n === 1 ? 'it' : 'they'} can no longer be revealed.`;
        this.#lost.hidden = false;
      }
      this.#sync();
    }

    #render(items) {
      // A one-time secret the tray redeemed stays until the user hides it for
      // good, even once the engine no longer holds it (it expired there, was
      // forgotten by the page, or the engine was lost): the server will not
      // hand it out again. So does one whose redemption is on its way: the
      // server may have handed it out already.
      const held = new Set(items.map((i) => i.handle));
      const more = new Map();
      for (const [h, k] of [...kept, ...flying]) if (!held.has(h)) more.set(h, k.item);
      const all = [...items, ...more.values()];
      const byCall = new Map();
      for (const it of all) {
        if (!byCall.has(it.call)) byCall.set(it.call, []);
        byCall.get(it.call).push(it);
      }
      const focused = this.#root.activeElement;
      for (const [id, g] of this.#groups) if (!byCall.has(id)) this.#drop(g), this.#groups.delete(id);
      for (const [id, list] of byCall) {
        let g = this.#groups.get(id);
        if (!g) this.#groups.set(id, (g = this.#group(list[0], this.#arrived.get(id) ?? 0)));
        this.#arrived.delete(id);
        g.items = list.sort(order);
        this.#fill(g);
      }
      // Newest call first: by arrival, else by expiry.
      const groups = [...this.#groups.values()].sort((a, b) => b.seq - a.seq || b.exp - a.exp);
      groups.forEach((g, i) => this.#list.children[i] !== g.li && this.#list.insertBefore(g.li, this.#list.children[i] ?? null));
      if (focused && !focused.isConnected) (this.#next?.isConnected ? this.#next : this.#root.getElementById('title')).focus();
      this.#next = null;
      this.#empty.hidden = all.length > 0;
      this.#count.textContent = all.length ? `${all.length}` : '';
      // Look again when the engine lets an item go, or a reference's server does.
      clearTimeout(this.#expiry);
      const now = Date.now();
      const next = Math.min(...items.flatMap((i) => [i.expires, ...(i.redeemBy > now ? [i.redeemBy] : [])]));
      if (items.length) this.#expiry = setTimeout(() => this.#sync(), Math.min(Math.max(next - now, 0) + 50, 2 ** 31 - 1));
    }

    #group(first, seq) {
      const ul = el('ul');
      const more = el('button', { class: 'more', part: 'button' });
      const g = {
        seq,
        exp: first.expires,
        ul,
        more,
        rows: new Map(),
        limit: PAGE,
        li: el(
          'li',
          { class: 'call', part: 'call' },
          el('p', {}, el('span', { class: 'tool', part: 'tool', text: first.tool }), el('span', { text: `held until ${time(first.expires)}` })),
          ul,
          more,
        ),
      };
      more.onclick = () => ((g.limit += 50), this.#fill(g), ul.children[g.limit - 50]?.querySelector('button')?.focus());
      return g;
    }

    /** fill shows the first g.limit items of a call, keeping rows that stay. */
    #fill(g) {
      const shown = g.items.slice(0, g.limit);
      const keep = new Set(shown.map((i) => i.handle));
      for (const [h, row] of g.rows) if (!keep.has(h)) this.#dropRow(g, h, row);
      shown.forEach((it, i) => {
        let row = g.rows.get(it.handle);
        if (!row) g.rows.set(it.handle, (row = this.#row(it, g)));
        if (g.ul.children[i] !== row.li) g.ul.insertBefore(row.li, g.ul.children[i] ?? null);
        this.#update(row);
        // Past its redeemBy, the server answers 410 to any Reveal; one on its
        // way says for itself how it went.
        if (row.once && row.state === 'ready' && row.v === null && !row.pending && !flying.has(it.handle) && it.redeemBy <= Date.now())
          this.#done(row, 'expired', 'Its time ran out: the server no longer hands it out.');
      });
      const left = g.items.length - shown.length;
      g.more.hidden = left <= 0;
      g.more.textContent = left > 50 ? `Show 50 more of ${left}` : `Show ${left} more`;
    }

    /**
     * update brings a one-time secret's row in line with the page's store:
     * one redeemed by another tray is kept masked; one hidden or forgotten
     * for good elsewhere is dropped; one on its way elsewhere can't be
     * revealed or forgotten meanwhile. A row's own Reveal or Copy settles
     * its row itself.
     */
    #update(row) {
      if (!row.once) return;
      const k = kept.get(row.item.handle);
      if (row.pending) return this.#buttons(row);
      if (spent.has(row.item.handle)) {
        if (row.state !== 'spent') this.#discard(row), this.#done(row, 'spent', 'Hidden for good. The server will not hand it out again.');
        return this.#buttons(row);
      }
      if (k && row.v === null && row.state === 'ready') (row.v = k.value), this.#mask(row), this.#note(row, MASKED);
      else if (!k && row.v !== null && !row.pending && !flying.has(row.item.handle)) {
        this.#discard(row);
        this.#done(row, 'spent', 'Hidden for good. The server will not hand it out again.');
      }
      this.#buttons(row);
    }

    #drop(g) {
      for (const [h, row] of g.rows) this.#dropRow(g, h, row);
      g.li.remove();
    }

    #dropRow(g, handle, row) {
      this.#discard(row);
      row.li.remove();
      g.rows.delete(handle);
    }

    #row(item, g) {
      const name = nameOf(item);
      const once = item.kind === 'reference';
      const sr = () => el('span', { class: 'sr', text: ` ${name}` });
      const code = el('code', { part: 'value-text' });
      const mask = el(
        'button',
        { class: 'mask', part: 'mask', hidden: '' },
        el('span', { 'aria-hidden': 'true', text: '••••••••' }),
        'Show again',
        sr(),
      );
      const value = el('div', { class: 'value', part: 'value', hidden: '' }, code, mask);
      const msg = el('p', { class: 'msg', part: 'message', hidden: '' });
      const button = (text, cls) => el('button', { part: 'button', class: cls }, text, sr());
      const reveal = button('Reveal', 'primary');
      const copy = button('Copy');
      const forget = button('Forget', 'quiet');
      const state = el('span', { class: 'state', part: 'state', hidden: '' });
      const question = el('p', { id: `ask-${++this.#ids}` });
      const yes = button('Hide for good', 'danger');
      const no = button('Keep it');
      const ask = el(
        'div',
        { class: 'ask', part: 'confirm', role: 'group', 'aria-labelledby': question.id, hidden: '' },
        question,
        el('div', { class: 'choices' }, yes, no),
      );
      const until = item.expires === g.exp ? '' : ` · until ${time(item.expires)}`;
      const row = {
        item,
        name,
        once,
        code,
        mask,
        value,
        msg,
        reveal,
        copy,
        forget,
        state: 'ready',
        stateEl: state,
        ask,
        question,
        yes,
        no,
        /** The value, while shown, and a redeemed one-time secret's until the user hides it for good. */
        v: null,
        shown: false,
        /** Whether a Reveal or Copy waits for the value. */
        pending: false,
        /** What the open question is about: "hide" or "forget". */
        asking: '',
        timer: 0,
        li: el(
          'li',
          { class: 'item', part: 'item' },
          el(
            'div',
            { class: 'row' },
            el(
              'div',
              { class: 'info' },
              el('span', { class: 'label', part: 'label', text: name }),
              el('span', { class: 'meta', text: (once ? 'one-time secret' : 'value') + until }),
            ),
            state,
            el('div', { class: 'actions' }, reveal, copy, forget),
          ),
          value,
          msg,
          ask,
        ),
      };
      reveal.setAttribute('aria-expanded', 'false');
      reveal.onclick = () => this.#primary(row);
      mask.onclick = () => this.#unmask(row);
      copy.onclick = () => this.#copy(row);
      forget.onclick = () => (row.once && (row.v !== null || kept.has(item.handle)) ? this.#ask(row, 'forget') : this.#forget(row));
      yes.onclick = (e) => {
        // Only the user's own click or key press throws a secret away, never a script's.
        if (!e.isTrusted) return;
        this.#close(row);
        if (row.asking === 'forget') return this.#forget(row);
        spent.add(row.item.handle);
        kept.delete(row.item.handle);
        this.#discard(row);
        this.#done(row, 'spent', 'Hidden for good. The server will not hand it out again.');
        // Gone from every tray of the page, as from this one.
        this.#touch(row.item.handle);
        row.forget.focus();
        this.#say(`${name} hidden for good.`);
      };
      no.onclick = () => (this.#close(row), reveal.focus());
      ask.onkeydown = (e) => e.key === 'Escape' && (e.stopPropagation(), no.click());
      return row;
    }

    /** primary is the Reveal button: Reveal, Hide, or Show for a secret the tray keeps masked. */
    #primary(row) {
      if (row.v === null) return this.#reveal(row);
      if (!row.shown) return this.#unmask(row);
      if (!row.once) return this.#discard(row), this.#note(row, ''), row.reveal.focus();
      // Off the screen at once; gone only once the user says so.
      this.#conceal(row);
      this.#ask(row, 'hide');
    }

    /**
     * busy disables Reveal, Copy and Forget while a value is on its way: a
     * second redemption of a one-time secret would only be refused, and
     * forgetting it would throw away what the server has handed out.
     */
    #busy(row, on) {
      row.pending = on;
      this.#buttons(row);
    }

    #buttons(row) {
      const wait = row.pending || flying.has(row.item.handle);
      row.reveal.disabled = row.copy.disabled = wait || row.state !== 'ready';
      row.forget.disabled = wait;
    }

    /** syncAll brings every tray of the page up to date. */
    #syncAll() {
      for (const t of trays) t.#sync();
    }

    /**
     * touch brings the rows of one item up to date in every tray of the
     * page, leaving the other rows as they are: a row of an item the engine
     * no longer holds stays until the tray looks again, so that its Reveal
     * can say so.
     */
    #touch(handle) {
      for (const t of trays)
        for (const g of t.#groups.values()) {
          const row = g.rows.get(handle);
          if (row) t.#update(row);
        }
    }

    /**
     * redeem asks the runtime for an item's value. A one-time secret that
     * comes is kept in the page's store at once, whatever became of the tray
     * or its row meanwhile, and its row stays while it is on its way.
     * @param {Promise<any>} r the runtime's answer
     */
    /**
     * claim notes that an item's value is on its way, so that its rows in
     * every tray can't be revealed or forgotten meanwhile, and returns what
     * ends the claim: with fresh, a one-time secret newly kept goes to every
     * tray, which may have let its row go meanwhile.
     * @returns {(fresh: boolean) => void}
     */
    #claim(item) {
      const h = item.handle;
      const f = flying.get(h) ?? { item, n: 0 };
      f.n++;
      flying.set(h, f);
      this.#touch(h);
      let ended = false;
      return (fresh) => {
        if (ended) return;
        ended = true;
        if (--f.n === 0 && flying.get(h) === f) flying.delete(h);
        if (fresh) this.#syncAll();
        else this.#touch(h);
      };
    }

    /**
     * redeem waits for the runtime's answer r for an item. A one-time secret
     * that comes is kept in the page's store at once, whatever became of the
     * tray or its row meanwhile, and its row stays while it is on its way.
     * @param {Promise<any>} r the runtime's answer
     */
    async #redeem(item, r, end = this.#claim(item)) {
      const h = item.handle;
      let fresh = false;
      try {
        const got = await r;
        if (got.ok && item.kind === 'reference' && !kept.has(h) && !spent.has(h)) kept.set(h, { item, value: got.value }), (fresh = true);
        return got;
      } finally {
        end(fresh);
      }
    }

    /** get asks the runtime for a row's value, keeping the click's activation. */
    async #get(row) {
      const r = this.#redeem(row.item, veil.reveal(row.item.handle));
      this.#busy(row, true);
      try {
        return await r;
      } finally {
        this.#busy(row, false);
      }
    }

    async #reveal(row) {
      const r = await this.#get(row);
      if (!r.ok) return this.#refused(row, r);
      const s = this.#show(row, r.value);
      this.#note(row, row.once ? KEPT : '');
      this.#say(`${row.name} revealed. It ${row.once ? 'is masked' : 'hides'} again in ${s} seconds.`);
    }

    /**
     * copy puts an item's value on the clipboard without showing it. The
     * write starts within the click, and the value is fetched only when the
     * browser has not said it refuses the clipboard: a one-time secret is
     * never spent on a copy that cannot happen. When the write fails after
     * all, the value is shown for the user to copy by hand, never dropped.
     */
    async #copy(row) {
      if (!active()) return this.#fail(row, ACTIVATION);
      if (row.v !== null) return this.#copied(row, row.v, await write(Promise.resolve(row.v)));
      // Claimed before the browser is asked about the clipboard, so that no
      // other tray redeems it meanwhile.
      const end = this.#claim(row.item);
      const got = (async () =>
        (await clipboardAccess()) === 'denied'
          ? (end(false),
            {
              ok: false,
              reason: 'clipboard',
              message: `The browser does not let this page use the clipboard, so ${row.once ? 'the secret' : 'the value'} was not fetched. Reveal it to copy it by hand.`,
            })
          : this.#redeem(row.item, veil.reveal(row.item.handle), end))();
      const written = write(got.then((r) => (r.ok ? r.value : Promise.reject(new Error(r.reason)))));
      this.#busy(row, true);
      const [r, ok] = await Promise.all([got, written]);
      this.#busy(row, false);
      if (!r.ok) return r.reason === 'clipboard' ? this.#fail(row, r.message) : this.#refused(row, r);
      this.#copied(row, r.value, ok);
    }

    /**
     * copied says how a copy went. A one-time secret the tray redeemed stays:
     * masked once copied, shown when the browser refused it.
     */
    #copied(row, value, ok) {
      if (!ok) {
        this.#show(row, value);
        const stays = row.once ? ' It stays here until you hide it for good.' : '';
        return this.#fail(row, `The browser did not let the page copy it: copy it by hand.${stays}`);
      }
      if (row.once && row.v === null) {
        row.v = value;
        if (!kept.has(row.item.handle) && !spent.has(row.item.handle)) kept.set(row.item.handle, { item: row.item, value });
        this.#mask(row);
      }
      const stays = `The server will not hand it out again; it stays here${row.shown ? '' : ', masked,'} until you hide it for good.`;
      this.#note(row, row.once ? `Copied. ${stays}` : 'Copied to the clipboard.');
      this.#say(`${row.name} copied to the clipboard.`);
    }

    /** refused says why a value did not come; an item the server or engine will never give marks its state. */
    #refused(row, r) {
      this.#fail(row, r.message);
      if (r.reason === 'gone') this.#done(row, row.item.redeemBy <= Date.now() ? 'expired' : 'spent');
      else if (r.reason === 'notfound') this.#done(row, 'gone');
    }

    /** show puts a value on the screen for hide-after seconds, and returns them. */
    #show(row, value) {
      const s = this.#hideAfter;
      row.v = value;
      if (row.once && !kept.has(row.item.handle) && !spent.has(row.item.handle)) kept.set(row.item.handle, { item: row.item, value });
      row.shown = true;
      row.code.textContent = value;
      row.code.hidden = false;
      row.mask.hidden = true;
      row.value.style.setProperty('--t', `${s}s`);
      row.value.querySelector('.bar')?.remove();
      row.value.append(el('div', { class: 'bar' }));
      row.value.hidden = false;
      row.reveal.firstChild.data = 'Hide';
      row.reveal.setAttribute('aria-expanded', 'true');
      clearTimeout(row.timer);
      row.timer = setTimeout(() => this.#conceal(row), s * 1000);
      return s;
    }

    /** unmask shows again a one-time secret the tray keeps. */
    #unmask(row) {
      if (!active()) return this.#fail(row, ACTIVATION);
      this.#close(row);
      const s = this.#show(row, row.v);
      this.#note(row, KEPT);
      row.reveal.focus();
      this.#say(`${row.name} shown. It is masked again in ${s} seconds.`);
    }

    /**
     * conceal takes a shown value off the screen: a value the engine can give
     * again is dropped; a one-time secret is masked, kept for Show.
     */
    #conceal(row) {
      if (!row.shown) return;
      if (!row.once) return this.#discard(row), this.#note(row, '');
      this.#mask(row);
      this.#note(row, MASKED);
    }

    /** mask shows a kept one-time secret as dots, and Show. */
    #mask(row) {
      clearTimeout(row.timer);
      row.shown = false;
      row.code.textContent = '';
      row.code.hidden = true;
      row.value.querySelector('.bar')?.remove();
      row.mask.hidden = false;
      row.value.hidden = false;
      row.reveal.firstChild.data = 'Show';
      row.reveal.setAttribute('aria-expanded', 'false');
    }

    /** discard drops a row's value for good. */
    #discard(row) {
      clearTimeout(row.timer);
      this.#close(row);
      row.v = null;
      row.shown = false;
      row.code.textContent = '';
      row.mask.hidden = true;
      row.value.hidden = true;
      row.value.querySelector('.bar')?.remove();
      row.reveal.firstChild.data = 'Reveal';
      row.reveal.setAttribute('aria-expanded', 'false');
    }

    /** concealAll takes every value off the screen, as when the tab is hidden. */
    #concealAll() {
      for (const g of this.#groups.values()) g.rows.forEach((row) => this.#conceal(row));
    }

    /**
     * ask asks, in the row, whether to throw a kept one-time secret away:
     * "hide" or "forget". Focus starts on "Keep it".
     */
    #ask(row, what) {
      row.asking = what;
      const verb = what === 'forget' ? 'Forget' : 'Hide';
      row.question.textContent = `This secret cannot be shown again. ${verb} it for good?`;
      row.yes.firstChild.data = `${verb} for good`;
      row.ask.hidden = false;
      row.no.focus();
    }

    #close(row) {
      row.ask.hidden = true;
      row.asking = '';
    }

    #forget(row) {
      // Where focus goes once the row is gone: the next item, else the previous one.
      const call = row.li.closest('.call');
      const near = row.li.nextElementSibling ?? row.li.previousElementSibling ?? call?.nextElementSibling ?? call?.previousElementSibling;
      this.#next = near?.querySelector('button:not(:disabled)') ?? null;
      kept.delete(row.item.handle);
      this.#discard(row);
      // An item the engine no longer holds (a kept secret) leaves the trays on the next look.
      veil.forget(row.item.handle).then((ok) => (ok || this.#syncAll(), this.#say(`${row.name} forgotten.`)));
    }

    /** done marks an item that can no longer be revealed, and disables its Reveal and Copy. */
    #done(row, state, message = '') {
      row.state = state;
      row.li.classList.add('done');
      row.stateEl.textContent = STATES[state];
      row.stateEl.hidden = false;
      const focused = this.#root.activeElement;
      row.reveal.disabled = row.copy.disabled = true;
      if (focused === row.reveal || focused === row.copy) row.forget.focus();
      if (message) this.#note(row, message);
    }

    #note(row, text, bad = false) {
      row.msg.textContent = text;
      row.msg.hidden = !text;
      row.msg.classList.toggle('bad', bad);
    }

    #fail(row, message) {
      this.#note(row, message, true);
      this.#say(`${row.name}: ${message}`);
    }

    /** say announces text to screen readers, once, even when it repeats. */
    #say(text) {
      this.#status.textContent = '';
      setTimeout(() => (this.#status.textContent = text), 50);
    }
  }

  customElements.define('veil-secrets', VeilSecrets);
})();
