// A page that uses the whole API as the README and webmcp.js allow.
// `make test-types` compiles it with tsc --strict against webmcp.d.ts: any
// error here is a type that refuses correct code.
export {};

declare function show(text: string): void;
declare function say(text: string): void;
declare function sendMail(input: { to: string; body: string }, options: { signal: AbortSignal }): Promise<string>;
declare function myDialog(request: VeilConfirmRequest): Promise<boolean>;
declare function myToast(request: VeilNoticeRequest): void;
declare const button: HTMLButtonElement;

// ---- Including the runtime: registering a tool ----------------------------

const controller = new AbortController();
await document.modelContext.registerTool(
  {
    name: 'generate_api_key',
    title: 'Generate an API key',
    description: 'Create an API key for the signed-in user',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    outputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        secret: { type: 'string', 'x-sensitive': true },
      },
    },
    async execute({ name }: { name: string }) {
      const r = await fetch('/api/keys', { method: 'POST', body: JSON.stringify({ name }) });
      return r.json(); // {id, name, secret}: the agent gets id and name only
    },
  },
  { signal: controller.signal },
);
// Aborting later unregisters the tool.
controller.abort();

// A schema kept apart from the tool: `satisfies` (or `as const`) keeps its
// literal types.
const recordSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $defs: {
    code: { type: 'string', pattern: '^[A-Z]{2}[0-9]{4}$', 'x-sensitive': true },
  },
  type: 'object',
  required: ['patient', 'codes'],
  additionalProperties: false,
  properties: {
    patient: { type: ['string', 'null'], minLength: 1, maxLength: 200 },
    born: { type: 'string', format: 'date', 'x-sensitive': true },
    codes: { type: 'array', items: { $ref: '#/$defs/code' }, uniqueItems: true, maxItems: 50 },
    notes: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    extra: { type: 'object', patternProperties: { '^x_': { 'x-sensitive': true } }, additionalProperties: false },
    pair: { type: 'array', prefixItems: [{ type: 'number', minimum: 0 }, true], items: false },
    kind: { enum: ['a', 'b', 1, null], default: 'a', examples: ['a'] },
  },
  if: { properties: { kind: { const: 'a' } } },
  then: { required: ['born'] },
  else: { not: { required: ['born'] } },
} satisfies JSONSchemaObject;

// A draft-04 schema, as $schema allows: `id`, a tuple `items`,
// `definitions`, `dependencies`, a boolean exclusiveMinimum.
const legacySchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  id: 'urn:example:record-query',
  type: 'object',
  definitions: { n: { type: 'integer', multipleOf: 2 } },
  dependencies: { a: ['b'], c: { required: ['d'] } },
  properties: {
    t: { type: 'array', items: [{ $ref: '#/definitions/n' }, { type: 'string' }], additionalItems: false },
    m: { type: 'number', minimum: 0, exclusiveMinimum: true },
  },
} as const;

await navigator.modelContext.registerTool({
  name: 'get_record',
  description: 'Reads a medical record',
  inputSchema: legacySchema,
  outputSchema: recordSchema,
  annotations: {
    sensitiveHint: true,
    readOnlyHint: true,
    openWorldHint: false,
    // null is the same as leaving the key out.
    destructiveHint: null,
    returnMetadata: { source: 'internal', sensitivity: ['pii', { regulated: { scopes: ['HIPAA'] } }] },
  },
  _meta: { 'mcp.dev/resultSensitivity': 'confidential', 'mcp.dev/effect': null, 'com.example/owner': 'records' },
  // An MCP CallToolResult, with a secret_reference the user redeems.
  execute: (input, { signal, annotations }) => {
    signal.throwIfAborted();
    const seen: readonly VeilSensitivityLabel[] = annotations.privateData;
    return {
      content: [
        { type: 'text', text: `record for ${String(input.patient)}; the agent has read ${seen.join(', ')}` },
        { type: 'secret_reference', id: 'r1', label: 'Record', redeemUrl: '/redeem/r1', ttl: 300 },
      ],
      structuredContent: { patient: 'A. Person', codes: ['AB1234'] },
    };
  },
});

// ---- Risk hints ------------------------------------------------------------

// One address, whose domain is exactly ours.
function isInternal(to: unknown): boolean {
  if (typeof to !== 'string') return false;
  const m = /^[^\s@,;<>"]+@([^\s@,;<>"]+)$/.exec(to.trim());
  return m !== null && m[1].toLowerCase() === 'example.com';
}

const sendEmail: ModelContextTool = {
  name: 'send_email',
  description: "Sends an email on the user's behalf",
  inputSchema: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } } },
  annotations: {
    inputMetadata: { destination: 'public', sensitivity: ['pii', 'user'], outcomes: 'irreversible' },
    returnMetadata: { source: 'system', sensitivity: 'none' },
    attribution: ['mail.example.com'],
    aiProcessingHint: false,
    slowExecutionHint: true,
    resourceIntensiveHint: true,
    idempotentHint: false,
    reversibleHint: false,
  },
  _meta: { 'mcp.dev/requiresConfirmation': true, 'mcp.dev/idempotent': false },
  // Annotations for one call, or null: the tool's own stand.
  resolve: ({ to }) =>
    isInternal(to)
      ? { inputMetadata: { destination: 'internal', sensitivity: ['pii', 'user'], outcomes: 'irreversible' } }
      : null,
  async execute(input, { signal, annotations }) {
    if (annotations.maliciousActivityHint) throw new Error('refusing while the session is flagged');
    if (annotations.openWorldHint && annotations.attribution.length > 0) console.info('untrusted content reached the agent');
    return sendMail(input, { signal });
  },
};
await document.modelContext.registerTool(sendEmail);

// An async resolve, and a tool with no schema (any object is its input).
await document.modelContext.registerTool({
  name: 'search.web',
  description: 'Searches the web',
  annotations: { untrustedContentHint: true, openWorldHint: true, readOnlyHint: true },
  resolve: async () => undefined,
  execute: () => 'results',
});

// A tool a cross-origin frame of the page may see and run too (its iframe has allow="tools ...").
await document.modelContext.registerTool(
  { name: 'cart.total', description: 'The total of the cart', execute: () => '12.50' },
  { exposedTo: ['https://widgets.example'], signal: new AbortController().signal },
);

// ---- Running tools as an agent would ---------------------------------------

const tools: RegisteredTool[] = await document.modelContext.getTools();
for (const t of tools) {
  const title: string = t.title || t.name;
  const schema: JSONSchemaObject = t.inputSchema;
  console.log(title, t.description, schema.type, t.outputSchema?.properties, t.annotations.sensitiveHint, t._meta, t.origin, t.window === window);
}
// The tools of a cross-origin frame too, where it exposes them to this origin.
const framed: RegisteredTool[] = await document.modelContext.getTools({ fromOrigins: ['https://widgets.example'] });
const other = framed.find((t) => t.window !== window);
if (other) console.log(other.origin, await document.modelContext.executeTool(other, {}));
const abort = new AbortController();
const out: string = await document.modelContext.executeTool(tools[0], { name: 'ci' }, { signal: abort.signal });
await navigator.modelContext.executeTool(tools[0]);
// A RegisteredTool by its four members, as veil.paths builds one.
await document.modelContext.executeTool({ name: 'send_email', description: '', window, origin: location.origin }, { to: 'a@example.com', body: 'hi' });
try {
  await document.modelContext.executeTool(tools[0], { name: 42 });
} catch (e) {
  if (e instanceof DOMException && e.name === 'DataError') {
    const { path, reason, schemaPath } = JSON.parse(e.message) as { path: string; reason: string; schemaPath: string };
    console.warn(path, reason, schemaPath, out);
  }
}

// Events of the registry, and their on… attributes.
const mc = document.modelContext;
const onActivated = (e: ToolActivatedEvent) => console.log('running', e.toolName);
mc.addEventListener('toolactivated', onActivated);
mc.removeEventListener('toolactivated', onActivated);
mc.addEventListener('toolcancel', (e) => console.log('cancelled', e.toolName), { once: true });
window.addEventListener('toolactivated', (e) => console.log('on window', e.toolName));
mc.addEventListener('toolchange', () => void mc.getTools());
mc.ontoolchange = () => console.log('tools changed');
mc.ontoolactivated = function (e) {
  console.log(this === mc, e.toolName);
};
mc.ontoolcancel = null;
const activated: ToolActivatedEvent = new ToolActivatedEvent('toolactivated', { toolName: 'x' });
const cancelled: ToolCancelEvent = new ToolCancelEvent('toolcancel');
console.log(activated.toolName, cancelled.toolName);

// The 2025 API.
navigator.modelContext.provideContext({ tools: [sendEmail] });
navigator.modelContext.provideContext();
navigator.modelContext.unregisterTool('send_email');
navigator.modelContext.clearContext();

// Chromium's testing API: input and schemas as JSON text.
const testing = navigator.modelContextTesting;
for (const t of testing.listTools()) console.log(t.name, t.description, JSON.parse(t.inputSchema), t.annotations.readOnlyHint);
const viaTesting: string | null = await testing.executeTool('send_email', JSON.stringify({ to: 'a@example.com', body: 'hi' }), {
  signal: abort.signal,
});
testing.registerToolsChangedCallback(() => console.log('changed', viaTesting));
testing.registerToolsChangedCallback(null);
testing.ontoolchange = () => {};

// ---- The veil namespace ----------------------------------------------------

await veil.ready;
const where: 'worker' | 'main' = veil.mode;
const version: string = veil.version;
for (const p of veil.paths) {
  const view: string | null = await p.execute('send_email', '{"to":"a@example.com","body":"hi"}');
  console.log(where, p.name, view);
}

await veil.configure({
  confirm: async (request) => myDialog(request), // default: the built-in dialog
  notice: (request) => myToast(request), // default: a polite status message
  timeoutMs: 120000, // execute's time limit
  slowTimeoutMs: 600000, // for slowExecutionHint tools
  rules: { trifecta: 'block' }, // "confirm" (default) or "block"
  maxCalls: 64, // calls in progress at once (rule capacity)
  maxConfirmations: 8, // calls waiting for the user (rule flood)
  withhold: ['pii'], // more labels withheld like sensitiveHint
  private: ['user'], // more labels that mark private data
  insecureDisableRules: ['spotlight'], // turns rules off; the name says what it costs
});
// null restores a default; keys left out keep their value.
await veil.configure({
  confirm: null,
  notice: null,
  timeoutMs: null,
  slowTimeoutMs: null,
  rules: null,
  maxCalls: null,
  maxConfirmations: null,
  withhold: null,
  private: null,
  insecureDisableRules: null,
});
await veil.configure({ rules: { malicious: 'confirm', consequential: 'block' }, insecureDisableRules: ['aiProcessing', 'trifecta'] });
await veil.configure({ withhold: ['credentials', 'restricted', 'regulated', 'sensitiveDataHint'], private: ['internal', 'confidential'] });
await veil.configure();

// A confirmation handler that shows the input, masks what is sensitive,
// closes when the agent gives up, and approves only with true.
await veil.configure({
  confirm: (request) =>
    new Promise<boolean>((resolve) => {
      const rule: VeilRule = request.rule;
      const masked = structuredClone(request.input);
      for (const pointer of request.sensitive) console.log('mask', pointer, masked);
      console.log(request.call, request.tool, request.title, request.description, rule, request.waiting);
      for (const f of request.facts) console.log(f.rule, f.source, f.key, f.value);
      if (request.trust?.privateData.includes('pii')) console.log('private data from', request.trust.privateFrom);
      request.signal?.addEventListener('abort', () => resolve(false), { once: true });
      if (request.waiting > 3) veil.declinePending();
      resolve(window.confirm(`Allow ${request.title}?`));
    }),
  notice: (request) => {
    const why: 'consequential' | 'aiProcessing' = request.rule;
    say(`${request.title} is running (${why})`);
  },
});

// Trust, calls and decisions.
const trust: VeilTrust | null = veil.trust;
if (trust) {
  const flags: boolean[] = [trust.untrustedContent, trust.maliciousActivity];
  console.log(flags, trust.untrustedFrom, trust.privateData, trust.privateFrom, trust.attribution, trust.attributionDropped, trust.maliciousFrom, trust.version);
}
for (const c of veil.calls) {
  if (c.state === 'confirming' || c.state === 'queued' || c.state === 'running' || c.state === 'retrying') {
    console.log(c.call, c.tool, c.slow ? 'slow' : '', Date.now() - c.since);
  }
}
const log: readonly VeilDecision[] = await veil.decisions();
for (const d of log) {
  switch (d.outcome) {
    case 'allow':
    case 'notice':
    case 'confirm':
    case 'block':
    case 'approved':
    case 'declined':
      console.log(d.call, d.tool, new Date(d.time), d.rule ?? 'none', d.facts.length);
  }
  if (d.rule === 'capacity' || d.rule === 'flood' || d.rule === 'undecided' || d.rule === 'resolve') console.log('bounded');
}
const declined: number = veil.declinePending();
console.log(declined);

// The namespace's events.
const onDecision = (e: VeilEventMap['decision']) => console.log(e.detail.outcome, e.detail.rule);
veil.addEventListener('decision', onDecision);
veil.removeEventListener('decision', onDecision);
veil.addEventListener('trustchange', ({ detail }) => console.log(detail.version, detail.untrustedContent));
veil.addEventListener('malicious', ({ detail: { tool, call } }) => console.warn('flagged', tool, call));
veil.addEventListener('callchange', () => console.log(veil.calls.length));
veil.addEventListener('reserved', ({ detail }) => console.warn(detail.tool, detail.count));
veil.addEventListener('foreigntool', ({ detail }) => console.warn(detail.kind, detail.name, detail.callable ? 'callable' : 'gone'));
await veil.configure({ rules: { foreign: 'block' } });
veil.addEventListener('formtoolerror', ({ detail }) => console.warn(detail.form.id, detail.name, detail.error.name));

// A declarative tool answers its agent with respondWith.
document.querySelector('form')?.addEventListener('submit', (e) => {
  if (!e.agentInvoked) return;
  e.preventDefault();
  e.respondWith(fetch('/api/search').then((r) => r.json()));
});
veil.addEventListener('invalidreference', ({ detail }) => console.warn(detail.tool, detail.reasons.join('; ')));
veil.addEventListener('forgotten', function (e) {
  console.log(this === veil, e.detail.handle);
});
veil.addEventListener('redeemed', ({ detail }) => console.log('spent on its server:', detail.handle));
const listener = { handleEvent: (e: Event) => console.log(e.type) };
veil.addEventListener('callchange', listener, { passive: true });
veil.removeEventListener('callchange', listener);

// ---- Reveal API --------------------------------------------------------------

let item: VeilItem | undefined;
veil.addEventListener('held', async ({ detail: { tool, call, count } }) => {
  const items = await veil.items(call); // veil.items() lists every call
  console.log(tool, count, items.length);
  item = items[0];
});
for (const i of await veil.items()) {
  const kind: 'value' | 'reference' = i.kind;
  const left = i.expires - Date.now();
  const redeemable = i.redeemBy === undefined ? null : i.redeemBy - Date.now();
  console.log(i.handle, i.call, i.tool, kind, i.label, i.pointer, left, redeemable);
}

button.onclick = async () => {
  if (!item) return;
  const r = await veil.reveal(item.handle); // must run inside the click
  if (r.ok) show(r.value);
  else {
    say(r.message);
    if (r.reason === 'ratelimited' && r.retryAfter !== undefined) say(`again in ${r.retryAfter} s`);
    if (r.status === 410 || r.reason === 'gone' || r.reason === 'notfound' || r.reason === 'activation') console.log(r.reason);
  }
};

if (item) {
  const wasHeld: boolean = await veil.forget(item.handle); // wipes it; fires "forgotten"
  console.log(wasHeld);
}

// ---- <veil-secrets> ------------------------------------------------------------

const tray: VeilSecretsElement | null = document.querySelector('veil-secrets');
const made: VeilSecretsElement = document.createElement('veil-secrets');
made.setAttribute('hide-after', '30');
tray?.after(made);
