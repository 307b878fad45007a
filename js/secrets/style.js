// The tray's look: its style sheet, one for every tray of the page, themed
// by the --veil-* custom properties on the element or above it.

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

/**
 * adopt gives a tray's shadow root the page's one style sheet, made the
 * first time a tray asks for it.
 * @param {ShadowRoot} root
 */
export const adopt = (root) => {
  sheet ??= new CSSStyleSheet();
  if (!sheet.cssRules.length) sheet.replaceSync(CSS);
  root.adoptedStyleSheets = [sheet];
};
