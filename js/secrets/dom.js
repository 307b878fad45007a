// Making the tray's elements.

import { create } from '../webmcp/dom.js';

/**
 * el makes an element: props are attributes, except text and class; a
 * prop that is null or undefined is left out.
 * @param {string} tag
 * @param {Record<string, any>} [props]
 * @param {...(Node|string)} kids
 * @returns {HTMLElement}
 */
export const el = (tag, props = {}, ...kids) => {
  const e = create(document, tag);
  for (const [k, v] of Object.entries(props))
    if (v == null) continue;
    else if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  e.append(...kids);
  return e;
};
