// The <veil-secrets> element: the tray's lifecycle, its list of the
// runtime's items grouped by call, newest call first, kept up to date as
// the runtime holds, forgets and loses them, and what it announces.

import { el } from './dom.js';
import { own, on, hidden } from '../webmcp/dom.js';
import { adopt } from './style.js';
import { join, leave, isKept, isFlying, stayed, take } from './store.js';
import { order, time, PAGE } from './text.js';
import { newRow } from './row.js';
import { discard, done, conceal, update } from './view.js';

/** The tray: <veil-secrets>. */
export class VeilSecrets extends HTMLElement {
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
  /** What the rows and the page's store reach of the tray. */
  #host = {
    sync: () => this.#sync(),
    touch: (handle) => this.#touch(handle),
    say: (text) => this.#say(text),
    hideAfter: () => this.#hideAfter,
    focused: () => this.#root.activeElement,
    leaving: (button) => void (this.#next = button),
  };

  constructor() {
    super();
    adopt(this.#root);
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
    const v = own('veil');
    if (typeof v?.items !== 'function') {
      this.#empty.textContent = 'Veil is not loaded on this page.';
      return;
    }
    this.#off = new AbortController();
    join(this.#host);
    const signal = this.#off.signal;
    v.addEventListener('held', (e) => ((this.#lost.hidden = true), this.#sync(e.detail?.call)), { signal });
    // The engine that held the values is gone, and they with it.
    v.addEventListener('enginelost', () => this.#engineLost(), { signal });
    v.addEventListener('forgotten', () => this.#sync(), { signal });
    // The page revealed a one-time secret itself: the server will not hand it out again.
    v.addEventListener('redeemed', (e) => take(`${e.detail?.handle}`), { signal });
    // A revealed value does not stay on a screen nobody is looking at.
    on(document, 'visibilitychange', () => hidden(document) && this.#concealAll(), { signal });
    this.#sync();
  }

  disconnectedCallback() {
    this.#off.abort();
    leave(this.#host);
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

  /** touch brings this tray's rows of one item up to date, leaving the other rows as they are. */
  #touch(handle) {
    for (const g of this.#groups.values()) {
      const row = g.rows.get(handle);
      if (row) update(this.#host, row);
    }
  }

  #engineLost() {
    // A one-time secret the tray keeps, or one already spent, was not lost with the engine.
    let n = 0;
    for (const g of this.#groups.values())
      for (const it of g.items ?? []) {
        const row = g.rows.get(it.handle);
        if (!row || (row.state === 'ready' && !isKept(it.handle))) n++;
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
    const all = [...items, ...stayed(held)];
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
      if (!row) g.rows.set(it.handle, (row = newRow(this.#host, it, g, ++this.#ids)));
      if (g.ul.children[i] !== row.li) g.ul.insertBefore(row.li, g.ul.children[i] ?? null);
      update(this.#host, row);
      // Past its redeemBy, the server answers 410 to any Reveal; one on its
      // way says for itself how it went.
      if (row.once && row.state === 'ready' && row.v === null && !row.pending && !isFlying(it.handle) && it.redeemBy <= Date.now())
        done(this.#host, row, 'expired', 'Its time ran out: the server no longer hands it out.');
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
    discard(row);
    row.li.remove();
    g.rows.delete(handle);
  }

  /** concealAll takes every value off the screen, as when the tab is hidden. */
  #concealAll() {
    for (const g of this.#groups.values()) g.rows.forEach((row) => conceal(row));
  }

  /** say announces text to screen readers, once, even when it repeats. */
  #say(text) {
    this.#status.textContent = '';
    setTimeout(() => (this.#status.textContent = text), 50);
  }
}
