// Veil's MCP server in the page. webmcp.js imports this module from beside
// itself when the script tag opts in:
//
//   <script src="/veil/webmcp.js" data-veil-mcp="tab"
//           data-veil-mcp-origins="self"></script>
//
// It speaks the tab transport of @mcp-b/transports (TabServerTransport's
// wire format), so that an agent using TabClientTransport and an MCP
// client reaches the page's tools. It serves tools/list from the registry
// and runs tools/call through the runtime's one way out, so the client
// receives the agent view and nothing else; the confirmation dialog and the
// tray work as for every other agent path.
//
// It is stricter than TabServerTransport: the allowed origins are required
// ("self" is the page's own) and "*" is not one; a message must be the
// browser's (not one page script made), come from this window and from an
// allowed origin, or it gets no answer at all (a client of this window
// whose origin is not allowed is named on the console, once); and every
// message goes to the client's exact origin, never to "*".
//
// The module holds no capability of its own: start gets what it may use
// from webmcp.js, so page code that imports the module gains nothing.

/** The tab transport's default channel (DEFAULT_TAB_CHANNEL_ID). */
export const CHANNEL = 'mcp-default';

/** The handshake payloads the tab transport exchanges before any JSON-RPC. */
const CHECK_READY = 'mcp-check-ready';
const SERVER_READY = 'mcp-server-ready';

/**
 * The MCP protocol versions the server speaks, newest first: those the
 * client packages negotiate. An initialize that asks for another gets the
 * newest, as the protocol has it.
 */
export const PROTOCOL_VERSIONS = Object.freeze(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']);

/** The server's name and version in the initialize result. */
const SERVER_INFO = Object.freeze({ name: 'veil', version: '0.1.0' });

// JSON-RPC error codes.
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

/**
 * @typedef {object} Runtime
 * @property {string} transport   the script tag's data-veil-mcp
 * @property {string} origins     the script tag's data-veil-mcp-origins
 * @property {() => Promise<any[]>} tools   the registry's tools, as registered definitions
 * @property {(name: string, input: string, signal: AbortSignal) => Promise<string>} run
 *   runs a tool as every agent path does and resolves with the agent view
 * @property {(listener: () => void) => void} ontoolchange
 */

const isPlainObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * parseOrigins reads the allowed origins: serialized http(s) origins, or
 * self (also written 'self', as in CSP) for the page's own origin,
 * separated by white space. It throws, naming the first that is not one.
 * @param {string} text
 * @param {string} [self] the page's origin
 * @returns {Set<string>}
 */
export const parseOrigins = (text, self = location.origin) => {
  const origins = new Set();
  for (let token of `${text ?? ''}`.split(/\s+/).filter(Boolean)) {
    if (token === 'self' || token === "'self'") {
      if (!/^https?:\/\//.test(self)) throw new TypeError(`data-veil-mcp-origins: self stands for the page's origin, and this page's origin (${self}) is not an http or https one`);
      token = self;
    }
    let u = null;
    try {
      u = new URL(token);
    } catch {}
    if (!u || !/^https?:$/.test(u.protocol) || u.origin !== token)
      throw new TypeError(`data-veil-mcp-origins: ${JSON.stringify(token)} is not an origin (scheme://host[:port], http or https, nothing after it, or self for the page's own; "*" is not allowed)`);
    origins.add(token);
  }
  if (!origins.size) throw new TypeError("data-veil-mcp-origins is missing or empty: list the origins MCP clients may connect from (self for the page's own)");
  return origins;
};

/** The content block types of MCP; a client refuses a result with any other. */
const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource_link', 'resource']);

/**
 * toCallToolResult turns an agent view into an MCP CallToolResult. A view
 * that is one (the engine's, or a tool's own) is it, except that a content
 * item MCP has no type for (a reduced secret_reference) becomes a text item
 * holding that item's JSON; any other view is one text item with the view's
 * exact text, plus the parsed object as structuredContent when the tool
 * declares an outputSchema. Nothing is added that the view does not hold.
 * @param {string} view
 * @param {any} tool
 */
export const toCallToolResult = (view, tool) => {
  let v;
  try {
    v = JSON.parse(view);
  } catch {}
  if (isPlainObject(v) && Array.isArray(v.content)) {
    v.content = v.content.map((item) => (isPlainObject(item) && CONTENT_TYPES.has(item.type) ? item : { type: 'text', text: JSON.stringify(item) }));
    return v;
  }
  /** @type {{content: any[], structuredContent?: any}} */
  const r = { content: view === '' ? [] : [{ type: 'text', text: view }] };
  if (tool.outputSchema && isPlainObject(v)) r.structuredContent = v;
  return r;
};

/**
 * toMCPTool lists a registered tool as an MCP Tool. An outputSchema that is
 * not an object schema is left out: MCP allows only those.
 */
const toMCPTool = (def) => {
  /** @type {Record<string, any>} */
  const t = { name: def.name };
  if (def.title) t.title = def.title;
  if (def.description !== undefined) t.description = def.description;
  t.inputSchema = isPlainObject(def.inputSchema) ? def.inputSchema : { type: 'object', properties: {} };
  if (isPlainObject(def.outputSchema) && def.outputSchema.type === 'object') t.outputSchema = def.outputSchema;
  if (isPlainObject(def.annotations)) t.annotations = def.annotations;
  if (isPlainObject(def._meta)) t._meta = def._meta;
  return t;
};

/** An error result's text: what the runtime said, never a tool's own error. */
const errorText = (e) => {
  try {
    return e instanceof Error || e instanceof DOMException ? `${e.name}: ${e.message}` : 'the call failed';
  } catch {
    return 'the call failed';
  }
};

/**
 * start serves MCP over the tab transport, with what webmcp.js hands it,
 * for as long as the page lives. It returns whether it started; when not,
 * it says why on the console.
 * @param {Runtime} runtime
 * @returns {boolean}
 */
export const start = ({ transport, origins, tools, run, ontoolchange }) => {
  if (transport !== 'tab') {
    console.error(`veil: data-veil-mcp=${JSON.stringify(`${transport}`)} is not a transport the runtime serves ("tab" is); the MCP server is off`);
    return false;
  }
  let allowed;
  try {
    allowed = parseOrigins(origins);
  } catch (e) {
    console.error(`veil: ${e.message}; the MCP server is off`);
    return false;
  }

  /** The origin of the last client that initialized: where notifications go. */
  let client = '';
  /** The calls in flight, by client origin and request id, for notifications/cancelled. */
  const inflight = new Map();
  const key = (origin, id) => `${origin} ${typeof id} ${id}`;

  /** post sends one message to the client on origin, and nowhere else. */
  const post = (origin, payload) => {
    window.postMessage({ channel: CHANNEL, type: 'mcp', direction: 'server-to-client', payload }, origin);
  };
  const reply = (origin, id, result) => post(origin, { jsonrpc: '2.0', id, result });
  const fail = (origin, id, code, message) => post(origin, { jsonrpc: '2.0', id, error: { code, message } });

  /**
   * The registry's definitions, by name, as of the last toolchange. The
   * runtime's list waits for pending registrations and copies every
   * definition, which a call should not pay for each time: a call looks its
   * tool up here, and a name the list lacks asks the runtime again. The
   * list only says whether a name is a tool and what its outputSchema is;
   * the engine finds the registration a call runs and makes its view. A
   * call made after an unregistration but before its toolchange, a task
   * later, still finds the name here; the engine then refuses it, and the
   * client gets that error as the result.
   * @type {Promise<Map<string, any>> | null}
   */
  let listed = null;
  const list = () => {
    const p = tools().then((defs) => new Map(defs.map((t) => [t.name, t])));
    p.catch(() => listed === p && (listed = null));
    return (listed = p);
  };
  /** lookup finds a tool's definition, or undefined. */
  const lookup = async (name) => (await (listed ?? list())).get(name) ?? (await list()).get(name);

  const call = async (origin, id, params) => {
    const { name, arguments: args } = isPlainObject(params) ? params : {};
    if (typeof name !== 'string') return fail(origin, id, INVALID_PARAMS, 'tools/call: params.name must be a string');
    if (args !== undefined && !isPlainObject(args)) return fail(origin, id, INVALID_PARAMS, 'tools/call: params.arguments must be an object');
    const tool = await lookup(name);
    if (!tool) return fail(origin, id, INVALID_PARAMS, `tools/call: unknown tool ${JSON.stringify(name)}`);
    const controller = new AbortController();
    const k = key(origin, id);
    inflight.set(k, controller);
    let result;
    try {
      result = toCallToolResult(await run(name, JSON.stringify(args ?? {}), controller.signal), tool);
    } catch (e) {
      result = { content: [{ type: 'text', text: errorText(e) }], isError: true };
    } finally {
      inflight.delete(k);
    }
    // A cancelled request gets no answer, as the protocol has it.
    if (!controller.signal.aborted) reply(origin, id, result);
  };

  const request = async (origin, id, method, params) => {
    switch (method) {
      case 'initialize': {
        const asked = isPlainObject(params) ? params.protocolVersion : undefined;
        client = origin;
        return reply(origin, id, {
          protocolVersion: PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0],
          capabilities: { tools: { listChanged: true } },
          serverInfo: SERVER_INFO,
        });
      }
      case 'ping':
        return reply(origin, id, {});
      case 'tools/list':
        return reply(origin, id, { tools: [...(await list()).values()].map(toMCPTool) });
      case 'tools/call':
        return call(origin, id, params);
    }
    fail(origin, id, METHOD_NOT_FOUND, `method ${JSON.stringify(method)} is not served`);
  };

  const notification = (origin, method, params) => {
    if (method === 'notifications/cancelled' && isPlainObject(params)) inflight.get(key(origin, params.requestId))?.abort();
  };

  /** The origins of this window's clients that were refused, each named on the console once. */
  const refused = new Set();

  /** @param {MessageEvent} event */
  const onMessage = (event) => {
    // Only this window's own scripts, from an allowed origin; anything
    // else gets no answer at all. isTrusted: a MessageEvent page script
    // made and dispatched can name any origin and source.
    if (!event.isTrusted || event.source !== window) return;
    const d = event.data;
    if (!isPlainObject(d) || d.channel !== CHANNEL || d.type !== 'mcp' || d.direction !== 'client-to-server' || !('payload' in d)) return;
    const origin = event.origin;
    if (!allowed.has(origin)) {
      // A client of this window is the page's own script or a content
      // script: its origin is the page's, which the list left out.
      if (!refused.has(origin)) {
        refused.add(origin);
        console.error(
          `veil: an MCP client of origin ${origin} gets no answer: data-veil-mcp-origins does not list it (${[...allowed].join(' ')}); add it, or self for the page's own origin`,
        );
      }
      return;
    }
    const m = d.payload;
    if (m === CHECK_READY) return post(origin, SERVER_READY);
    if (!isPlainObject(m) || m.jsonrpc !== '2.0') return;
    const hasId = typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id));
    if (typeof m.method !== 'string') {
      // A response, to a request this server never makes; or a message
      // that is neither.
      if (hasId && !('result' in m) && !('error' in m)) fail(origin, m.id, INVALID_REQUEST, 'not a JSON-RPC request');
      return;
    }
    if (!('id' in m)) return notification(origin, m.method, m.params);
    if (!hasId) return;
    request(origin, m.id, m.method, m.params).catch(() => fail(origin, m.id, -32603, 'internal error'));
  };

  window.addEventListener('message', onMessage);
  ontoolchange(() => {
    listed = null;
    if (client) post(client, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  });
  // A client that started first learns the server is up. The tab
  // transport's clients are this window's scripts: only this window's
  // origin can be theirs (a message posted to another is refused, loudly).
  if (allowed.has(location.origin)) post(location.origin, SERVER_READY);
  return true;
};
