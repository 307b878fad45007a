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
// without showing it. Revealing needs a click or a key press, as
// veil.reveal does; a secret_reference can be redeemed only once. Each
// call shows its first five items, then "Show more".
//
// Theming: CSS custom properties on the element or above it,
//   --veil-accent, --veil-accent-text, --veil-surface, --veil-border,
//   --veil-muted, --veil-danger, --veil-radius, --veil-font, --veil-mono;
// and the parts tray, title, count, empty, calls, call, tool, item,
// label, value, value-text, button, message, status. Slots: title, empty.
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
.actions{display:flex;gap:.35em}
button.quiet{border-color:transparent;color:var(--m)}
button{font:inherit;font-size:.85em;line-height:1.2;padding:.35em .75em;border-radius:calc(var(--r)*.6);
border:1px solid var(--b);background:transparent;color:inherit;cursor:pointer}
button:hover{border-color:var(--a)}
button:focus-visible{outline:2px solid var(--a);outline-offset:2px}
button.primary{background:var(--a);border-color:var(--a);color:var(--at)}
button:disabled{opacity:.55;cursor:progress}
.value{margin:.5em 0 0;position:relative;border-radius:calc(var(--r)*.6);background:color-mix(in srgb,var(--a) 8%,transparent);
border:1px solid color-mix(in srgb,var(--a) 35%,transparent);overflow:hidden}
code{display:block;padding:.5em .7em .6em;font-family:var(--veil-mono,ui-monospace,monospace);font-size:.9em;
white-space:pre-wrap;overflow-wrap:anywhere;max-height:14em;overflow:auto}
.bar{position:absolute;left:0;bottom:0;height:3px;width:100%;background:var(--a);transform-origin:left;animation:t var(--t,30s) linear forwards}
@keyframes t{to{transform:scaleX(0)}}
@media (prefers-reduced-motion:reduce){.bar{animation:none}}
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

  class VeilSecrets extends HTMLElement {
    #root = this.attachShadow({ mode: 'open' });
    #list;
    #empty;
    #count;
    #status;
    #lost;
    /** @type {Map<string, any>} callId -> group */
    #groups = new Map();
    /** @type {Map<string, number>} callId -> order of arrival, for calls heard of by a held event */
    #arrived = new Map();
    #seq = 0;
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
      const signal = this.#off.signal;
      v.addEventListener('held', (e) => ((this.#lost.hidden = true), this.#sync(e.detail?.callId)), { signal });
      // The engine that held the values is gone, and they with it.
      v.addEventListener('enginelost', () => this.#engineLost(), { signal });
      v.addEventListener('forgotten', () => this.#sync(), { signal });
      // A revealed value does not stay on a screen nobody is looking at.
      document.addEventListener('visibilitychange', () => document.hidden && this.#hideAll(), { signal });
      this.#sync();
    }

    disconnectedCallback() {
      this.#off.abort();
      clearTimeout(this.#expiry);
      this.#hideAll();
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
      let n = 0;
      for (const g of this.#groups.values()) n += g.items?.length ?? 0;
      if (n) {
        this.#lost.textContent = `${n === 1 ? '1 withheld value was' : `${n} withheld values were`} lost when Veil's engine stopped; ${n === 1 ? 'it' : 'they'} can no longer be revealed.`;
        this.#lost.hidden = false;
      }
      this.#sync();
    }

    #render(items) {
      const byCall = new Map();
      for (const it of items) {
        if (!byCall.has(it.callId)) byCall.set(it.callId, []);
        byCall.get(it.callId).push(it);
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
      this.#empty.hidden = items.length > 0;
      this.#count.textContent = items.length ? `${items.length}` : '';
      clearTimeout(this.#expiry);
      if (items.length) {
        const next = Math.min(...items.map((i) => i.expires));
        this.#expiry = setTimeout(() => this.#sync(), Math.min(Math.max(next - Date.now(), 0) + 50, 2 ** 31 - 1));
      }
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
      });
      const left = g.items.length - shown.length;
      g.more.hidden = left <= 0;
      g.more.textContent = left > 50 ? `Show 50 more of ${left}` : `Show ${left} more`;
    }

    #drop(g) {
      for (const [h, row] of g.rows) this.#dropRow(g, h, row);
      g.li.remove();
    }

    #dropRow(g, handle, row) {
      this.#hide(row);
      row.li.remove();
      g.rows.delete(handle);
    }

    #row(item, g) {
      const name = nameOf(item);
      const once = item.kind === 'reference';
      const code = el('code', { part: 'value-text' });
      const value = el('div', { class: 'value', part: 'value', hidden: '' }, code);
      const msg = el('p', { class: 'msg', part: 'message', hidden: '' });
      const button = (text, cls) => el('button', { part: 'button', class: cls }, text, el('span', { class: 'sr', text: ` ${name}` }));
      const reveal = button('Reveal', 'primary');
      const copy = button('Copy');
      const forget = button('Forget', 'quiet');
      const until = item.expires === g.exp ? '' : ` · until ${time(item.expires)}`;
      const row = {
        item,
        name,
        once,
        code,
        value,
        msg,
        reveal,
        v: null,
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
            el('div', { class: 'actions' }, reveal, copy, forget),
          ),
          value,
          msg,
        ),
      };
      reveal.setAttribute('aria-expanded', 'false');
      reveal.onclick = () => (row.v === null ? this.#reveal(row, reveal) : (this.#hide(row), reveal.focus()));
      copy.onclick = () => this.#copy(row, copy);
      forget.onclick = () => {
        // Where focus goes once the row is gone: the next item, else the previous one.
        const call = row.li.closest('.call');
        const near =
          row.li.nextElementSibling ?? row.li.previousElementSibling ?? call?.nextElementSibling ?? call?.previousElementSibling;
        this.#next = near?.querySelector('button') ?? null;
        veil.forget(item.handle).then(() => this.#say(`${name} forgotten.`));
      };
      return row;
    }

    /** get asks the runtime for a row's value, keeping the click's activation. */
    async #get(row, button) {
      if (row.v !== null) return { ok: true, value: row.v };
      const r = veil.reveal(row.item.handle);
      button.disabled = true;
      try {
        return await r;
      } finally {
        button.disabled = false;
      }
    }

    async #reveal(row, button) {
      const r = await this.#get(row, button);
      if (!r.ok) return this.#fail(row, r.message);
      const s = this.#hideAfter;
      row.v = r.value;
      row.code.textContent = r.value;
      row.value.style.setProperty('--t', `${s}s`);
      row.value.querySelector('.bar')?.remove();
      row.value.append(el('div', { class: 'bar' }));
      row.value.hidden = false;
      row.reveal.firstChild.data = 'Hide';
      row.reveal.setAttribute('aria-expanded', 'true');
      clearTimeout(row.timer);
      row.timer = setTimeout(() => this.#hide(row), s * 1000);
      this.#note(row, row.once ? 'Shown once: copy it now. It cannot be revealed again.' : '');
      this.#say(`${row.name} revealed. It hides again in ${s} seconds.`);
    }

    async #copy(row, button) {
      const r = await this.#get(row, button);
      if (!r.ok) return this.#fail(row, r.message);
      try {
        await navigator.clipboard.writeText(r.value);
      } catch {
        return this.#fail(row, 'The browser did not allow copying to the clipboard.');
      }
      const spent = row.once && row.v === null;
      this.#note(row, spent ? 'Copied. This secret cannot be revealed again.' : 'Copied to the clipboard.');
      this.#say(`${row.name} copied to the clipboard.`);
    }

    #hide(row) {
      clearTimeout(row.timer);
      if (row.v === null) return;
      row.v = null;
      row.code.textContent = '';
      row.value.hidden = true;
      row.reveal.firstChild.data = 'Reveal';
      row.reveal.setAttribute('aria-expanded', 'false');
      this.#note(row, row.once ? 'Revealed once; the server will not hand it out again.' : '');
    }

    #hideAll() {
      for (const g of this.#groups.values()) g.rows.forEach((row) => this.#hide(row));
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
