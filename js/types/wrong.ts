// Misuses of the API that webmcp.d.ts must refuse. The line before each
// holds a ts-expect-error directive that says what mistake it stands for:
// if the types stop catching one, the directive is unused and
// `make test-types` fails. Everything else here must compile.
export {};

declare const item: VeilItem;
declare const tool: RegisteredTool;
declare const decision: VeilDecision;
declare const signal: AbortSignal;

const execute = () => 'ok';

// ---- registerTool: the tool ----------------------------------------------------

// @ts-expect-error no description: registerTool rejects (the draft requires one)
await document.modelContext.registerTool({ name: 'a', execute });

// @ts-expect-error no execute: registerTool rejects with a TypeError
await document.modelContext.registerTool({ name: 'a', description: 'd' });

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  // @ts-expect-error execute must be a function, not the name of one
  execute: 'run',
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  // @ts-expect-error the tool's title is a string; annotations.title is the other place for it
  title: 42,
  execute,
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  // @ts-expect-error resolve returns annotations (or null), not a destination
  resolve: () => 'internal',
});

// @ts-expect-error the signal goes in the options, not an AbortController
await document.modelContext.registerTool({ name: 'a', description: 'd', execute }, { signal: new AbortController() });

// @ts-expect-error exposedTo is a list of origins, not one
await document.modelContext.registerTool({ name: 'a', description: 'd', execute }, { exposedTo: 'https://a.example' });

// @ts-expect-error fromOrigins is a list of origins, not one
await document.modelContext.getTools({ fromOrigins: 'https://a.example' });

// @ts-expect-error registerTool resolves with undefined, not the registered tool
(await document.modelContext.registerTool({ name: 'a', description: 'd', execute })).name;

// ---- registerTool: schemas -----------------------------------------------------

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  outputSchema: {
    type: 'object',
    // @ts-expect-error a member declared beside `properties` instead of in it: JSON Schema ignores the unknown keyword, so its x-sensitive never applies and the value reaches the agent
    secret: { type: 'string', 'x-sensitive': true },
  },
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  outputSchema: {
    type: 'object',
    // @ts-expect-error x-sensitive is a boolean: registerTool rejects "yes"
    properties: { secret: { type: 'string', 'x-sensitive': 'yes' } },
  },
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  outputSchema: {
    type: 'object',
    // @ts-expect-error a misspelled x-sensitive, which would withhold nothing (registerTool rejects it)
    properties: { secret: { type: 'string', 'x-sensitve': true } },
  },
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  // @ts-expect-error "text" is not a JSON Schema type
  inputSchema: { type: 'text' },
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  // @ts-expect-error a schema's root is an object: registerTool rejects true
  inputSchema: true,
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  // @ts-expect-error null is no schema: leave the key out for "any object"
  inputSchema: null,
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  // @ts-expect-error an array is no schema
  outputSchema: [{ type: 'string' }],
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  // @ts-expect-error the field list instead of a schema: a property's schema is an object, not a type name
  outputSchema: { type: 'object', properties: { id: 'string' } },
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  // @ts-expect-error required lists names, not a boolean per property (draft-03's form)
  inputSchema: { type: 'object', properties: { to: { type: 'string' } }, required: true },
});

// ---- registerTool: annotations and _meta ---------------------------------------

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  // @ts-expect-error a misspelled sensitiveHint, which would withhold nothing (registerTool rejects it)
  annotations: { sensitveHint: true },
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  // @ts-expect-error a hint is a boolean, not a string
  annotations: { readOnlyHint: 'true' },
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  // @ts-expect-error SEP-1913's inputMetadata needs destination, sensitivity and outcomes
  annotations: { inputMetadata: { destination: 'public' } },
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  annotations: {
    // @ts-expect-error "secret" is not one of SEP-1913's data classes
    returnMetadata: { source: 'internal', sensitivity: 'secret' },
  },
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  annotations: {
    // @ts-expect-error "regulated" is a data class only with its scopes: {regulated: {scopes}}
    returnMetadata: { source: 'internal', sensitivity: 'regulated' },
  },
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  execute,
  // @ts-expect-error "send" is not an mcp.dev/effect ("read", "write", "delete", "external")
  _meta: { 'mcp.dev/effect': 'send' },
});

await document.modelContext.registerTool({
  name: 'a',
  description: 'd',
  async execute(input, { annotations }) {
    // @ts-expect-error execute's annotations are frozen: a tool cannot clear the session's flag
    annotations.maliciousActivityHint = false;
    return input;
  },
});

// ---- Running tools -------------------------------------------------------------

// @ts-expect-error executeTool takes a RegisteredTool, not a tool's name
await document.modelContext.executeTool('send_email', {});

// @ts-expect-error null input is a TypeError: leave it out for {}
await document.modelContext.executeTool(tool, null);

// @ts-expect-error input is an object, not JSON text (that is the testing API's form)
await document.modelContext.executeTool(tool, '{"to":"a@example.com"}');

// @ts-expect-error the testing API takes JSON text, not an object
await navigator.modelContextTesting.executeTool('send_email', { to: 'a@example.com' });

// @ts-expect-error executeTool's options hold a signal, not an AbortController
await document.modelContext.executeTool(tool, {}, { signal: new AbortController() });

// @ts-expect-error listTools gives inputSchema as JSON text: parse it first
navigator.modelContextTesting.listTools()[0].inputSchema.properties;

document.modelContext.addEventListener('toolactivated', (e) => {
  // @ts-expect-error toolactivated names the tool (toolName), it carries no input
  e.input;
});

// ---- veil: events ----------------------------------------------------------------

// @ts-expect-error a misspelled event name: the listener would never run
veil.addEventListener('helds', () => {});

// @ts-expect-error toolchange is the registry's event (document.modelContext), not veil's
veil.addEventListener('toolchange', () => {});

// @ts-expect-error the held event carries {tool, call, count}; the values come from veil.items
veil.addEventListener('held', (e: CustomEvent<{ items: VeilItem[] }>) => e.detail.items);

veil.addEventListener('held', ({ detail }) => {
  // @ts-expect-error held carries a count, never the values
  detail.value;
});

// @ts-expect-error removing a listener for an event veil never fires
veil.removeEventListener('reveal', () => {});

// @ts-expect-error veil has no on<event> attributes: use addEventListener
veil.onheld = () => {};

// ---- veil.configure --------------------------------------------------------------

// @ts-expect-error "secret" is not a sensitivity label (configure rejects it)
await veil.configure({ withhold: ['secret'] });

// @ts-expect-error a label list, not a single label
await veil.configure({ private: 'pii' });

// @ts-expect-error a rule is "confirm" or "block"; turning it off is insecureDisableRules
await veil.configure({ rules: { trifecta: 'off' } });

// @ts-expect-error spotlight only turns off (insecureDisableRules); it has no "block"
await veil.configure({ rules: { spotlight: 'block' } });

// @ts-expect-error the resolve rule cannot be turned off
await veil.configure({ insecureDisableRules: ['resolve'] });

// @ts-expect-error capacity cannot be turned off; set maxCalls
await veil.configure({ insecureDisableRules: ['capacity'] });

// @ts-expect-error a misspelled option (configure rejects unknown keys)
await veil.configure({ maxcalls: 8 });

// @ts-expect-error timeouts are numbers of milliseconds
await veil.configure({ timeoutMs: '2m' });

// @ts-expect-error confirm is a handler, not a switch: nothing is ever approved automatically
await veil.configure({ confirm: true });

// @ts-expect-error a confirmation approves only with true, not with "yes"
await veil.configure({ confirm: () => 'yes' });

await veil.configure({
  notice: (request) => {
    // @ts-expect-error a notice asks nothing: it has no waiting count (that is the confirmation's)
    console.log(request.waiting);
  },
});

await veil.configure({
  confirm: async (request) => {
    // @ts-expect-error the input is frozen: the approval is for the input as the agent gave it
    request.input = {};
    return false;
  },
});

// ---- veil: state -----------------------------------------------------------------

// @ts-expect-error veil.trust is null until the engine answers
veil.trust.untrustedContent;

// @ts-expect-error the trust state is frozen: only the engine changes it
veil.trust!.untrustedContent = false;

// @ts-expect-error the mode is chosen at load (data-veil-mode), not set later
veil.mode = 'main';
// @ts-expect-error the version is the runtime's, read-only
veil.version = '9.9.9';

// @ts-expect-error the decision log is read-only
(await veil.decisions()).push(decision);

// @ts-expect-error "allowed" is no outcome ("allow", then "approved" or "declined" for a question)
if (decision.outcome === 'allowed') console.log(decision);

// @ts-expect-error "spotlight" delimits output; it never decides a call
if (decision.rule === 'spotlight') console.log(decision);

// @ts-expect-error declinePending returns how many it declined, at once
veil.declinePending().then(() => {});

// @ts-expect-error a call's state is "confirming", "queued", "running" or "retrying"
if (veil.calls[0].state === 'waiting') console.log(veil.calls);

// ---- Reveal ----------------------------------------------------------------------

// @ts-expect-error reveal takes the item's handle, not the item
await veil.reveal(item);

// @ts-expect-error forget takes the item's handle, not its call
await veil.forget({ call: item.call });

{
  const r = await veil.reveal(item.handle);
  // @ts-expect-error a reveal can fail: check r.ok before reading the value
  console.log(r.value);
  if (!r.ok) {
    // @ts-expect-error "expired" is no reason: an expired secret is "gone" (410) or "notfound"
    if (r.reason === 'expired') console.log(r);
  }
}

// @ts-expect-error expires is milliseconds since the epoch, not a Date
item.expires.getTime();

// @ts-expect-error only references with a ttl have redeemBy: it may be undefined
const left: number = item.redeemBy - Date.now();

// @ts-expect-error an item never carries its value: reveal it
item.value;

// @ts-expect-error a kind is "value" or "reference"
if (item.kind === 'secret') console.log(item);

// @ts-expect-error veil.items takes a call's id, not a tool's definition
await veil.items(tool);

document.querySelector('form')?.addEventListener('submit', (e) => {
  // @ts-expect-error agentInvoked is read-only: the runtime says whose submission it is
  e.agentInvoked = true;
  // @ts-expect-error respondWith takes the response (a Promise, or a value)
  e.respondWith();
});

// @ts-expect-error a foreign tool is a native one: forms are tools now
veil.addEventListener('foreigntool', ({ detail }) => detail.kind === 'form');
// @ts-expect-error callable is a boolean: the tool is callable, or gone
veil.addEventListener('foreigntool', ({ detail }) => detail.callable === 'yes');
// @ts-expect-error the foreign rule cannot be turned off, only made to block
await veil.configure({ insecureDisableRules: ['foreign'] });

void signal;
void left;
