// Types for Veil's webmcp.js: the WebMCP API it installs (the Community
// Group draft, plus the 2025 methods and Chromium's testing API) and the
// runtime's own `veil` namespace.

export {};

declare global {
  /** A JSON Schema, as an object. */
  type JSONSchema = Record<string, unknown> | boolean;

  interface ToolAnnotations {
    readOnlyHint?: boolean;
    untrustedContentHint?: boolean;
    consequentialHint?: boolean;
    debugging?: boolean;
    /**
     * The output may carry sensitive values: only what the outputSchema
     * declares non-sensitive, or the text next to secret_reference items,
     * reaches an agent. Default: false.
     */
    sensitiveHint?: boolean;
    [hint: string]: unknown;
  }

  interface ToolExecuteCallbackOptions {
    /** Aborts when the caller cancels the call. */
    signal: AbortSignal;
  }

  type ToolExecuteCallback = (input: any, options: ToolExecuteCallbackOptions) => unknown;

  interface ModelContextTool {
    /** 1 to 128 characters of [A-Za-z0-9_.-], unique in the document. */
    name: string;
    title?: string;
    /** Not empty. */
    description: string;
    inputSchema?: object;
    /**
     * The result's shape (draft 2020-12 unless $schema says otherwise).
     * `"x-sensitive": true` on a subschema withholds the values it applies to.
     */
    outputSchema?: object;
    annotations?: ToolAnnotations;
    /**
     * Runs the tool. A string result reaches agents as it is, anything else
     * as its JSON.stringify text, less what is sensitive.
     */
    execute: ToolExecuteCallback;
  }

  interface ModelContextRegisterToolOptions {
    /** Aborting it unregisters the tool. */
    signal?: AbortSignal;
    exposedTo?: string[];
  }

  interface ModelContextExecuteToolOptions {
    signal?: AbortSignal;
  }

  interface RegisteredTool {
    name: string;
    /** getTools gives "" when the tool has none. */
    title?: string;
    description: string;
    inputSchema?: object;
    outputSchema?: object;
    annotations?: ToolAnnotations;
    window: Window;
    origin: string;
  }

  interface ToolActivatedEvent extends Event {
    readonly toolName: string;
  }
  var ToolActivatedEvent: {
    prototype: ToolActivatedEvent;
    new (type: string, init?: EventInit & { toolName?: string }): ToolActivatedEvent;
  };

  interface ToolCancelEvent extends Event {
    readonly toolName: string;
  }
  var ToolCancelEvent: {
    prototype: ToolCancelEvent;
    new (type: string, init?: EventInit & { toolName?: string }): ToolCancelEvent;
  };

  interface ModelContextEventMap {
    toolchange: Event;
    toolactivated: ToolActivatedEvent;
    toolcancel: ToolCancelEvent;
  }

  /** document.modelContext, also navigator.modelContext: the same object. */
  interface ModelContext extends EventTarget {
    /**
     * Registers a tool. Rejects with an InvalidStateError DOMException for a
     * duplicate or invalid name or an empty description, a TypeError for a
     * schema that can't be serialized or compiled or an execute that is not
     * a function, and with the signal's reason if it is already aborted.
     */
    registerTool(tool: ModelContextTool, options?: ModelContextRegisterToolOptions): Promise<undefined>;
    /** The registered tools, sorted by name. */
    getTools(): Promise<RegisteredTool[]>;
    /**
     * Runs a tool as an agent would and resolves with what an agent sees.
     * Input that fails the tool's inputSchema rejects with a DataError
     * DOMException whose message is JSON {path, reason, schemaPath}.
     */
    executeTool(
      tool: RegisteredTool,
      input?: object,
      options?: ModelContextExecuteToolOptions,
    ): Promise<string>;

    ontoolchange: ((this: ModelContext, ev: Event) => any) | null;
    ontoolactivated: ((this: ModelContext, ev: ToolActivatedEvent) => any) | null;
    ontoolcancel: ((this: ModelContext, ev: ToolCancelEvent) => any) | null;

    /** 2025 API: unregisters every tool, then registers these. */
    provideContext(context?: { tools?: ModelContextTool[] }): void;
    /** 2025 API: unregisters every tool. */
    clearContext(): void;
    /** 2025 API. */
    unregisterTool(name: string): void;

    addEventListener<K extends keyof ModelContextEventMap>(
      type: K,
      listener: (this: ModelContext, ev: ModelContextEventMap[K]) => any,
      options?: boolean | AddEventListenerOptions,
    ): void;
    addEventListener(
      type: string,
      listener: EventListenerOrEventListenerObject,
      options?: boolean | AddEventListenerOptions,
    ): void;
    removeEventListener<K extends keyof ModelContextEventMap>(
      type: K,
      listener: (this: ModelContext, ev: ModelContextEventMap[K]) => any,
      options?: boolean | EventListenerOptions,
    ): void;
    removeEventListener(
      type: string,
      listener: EventListenerOrEventListenerObject,
      options?: boolean | EventListenerOptions,
    ): void;
  }

  /** navigator.modelContextTesting: the harness API of Chromium 146–151. */
  interface ModelContextTesting extends EventTarget {
    listTools(): { name: string; description: string; /** JSON text */ inputSchema: string }[];
    executeTool(name: string, inputJson: string, options?: ModelContextExecuteToolOptions): Promise<string | null>;
    registerToolsChangedCallback(callback: (() => void) | null): void;
    ontoolchange: ((this: ModelContextTesting, ev: Event) => any) | null;
  }

  interface Document {
    readonly modelContext: ModelContext;
  }

  interface Navigator {
    readonly modelContext: ModelContext;
    readonly modelContextTesting: ModelContextTesting;
  }

  /** One of Veil's held values or secret references, never the value. */
  interface VeilItem {
    /** Opaque; names the item to veil.reveal and veil.forget. */
    handle: string;
    /** The call that withheld it. */
    callId: string;
    /** The tool's name. */
    tool: string;
    /** A withheld value, or a secret_reference redeemed from the server. */
    kind: 'value' | 'reference';
    /**
     * For the user: a reference's label, the tool's title for a whole
     * withheld output, else the last token of the pointer.
     */
    label: string;
    /** JSON Pointer of the value in the tool's output ("" for all of it). */
    pointer: string;
    /** When it is wiped, in milliseconds since the epoch (like Date.now()). */
    expires: number;
  }

  /**
   * Why a reveal failed:
   * - activation: no transient user activation (reveal from a click or key handler);
   * - notfound: the item is no longer held, or the server answered 404;
   * - invalid: a redeemUrl not on the page's origin; nothing was fetched;
   * - gone: 410, the secret expired or was already revealed;
   * - signin: 401; forbidden: 403;
   * - ratelimited: 429, retryAfter says when to try again;
   * - unavailable: a 5xx answer; network: no answer at all;
   * - error: anything else.
   */
  type VeilRevealFailure =
    | 'activation'
    | 'notfound'
    | 'invalid'
    | 'gone'
    | 'signin'
    | 'forbidden'
    | 'ratelimited'
    | 'unavailable'
    | 'network'
    | 'error';

  type VeilRevealResult =
    | { ok: true; value: string }
    | {
        ok: false;
        reason: VeilRevealFailure;
        /** A sentence to show the user. */
        message: string;
        /** The redemption's HTTP status, when the server answered. */
        status?: number;
        /** Seconds to wait, for "ratelimited" when the server said. */
        retryAfter?: number;
      };

  interface VeilEventMap {
    /**
     * A call withheld values or references; they are held for the user.
     * veil.items(callId) lists them.
     */
    held: CustomEvent<{ tool: string; callId: string; count: number }>;
    /** veil.forget wiped an item. */
    forgotten: CustomEvent<{ handle: string }>;
    /** A tool returned secret_reference items that are not valid. */
    invalidreference: CustomEvent<{ tool: string; reasons: string[] }>;
  }

  /** An agent path: a way tool output leaves the runtime. */
  interface VeilPath {
    readonly name: string;
    /** Executes a tool through this path, as an agent would. */
    execute(toolName: string, inputJson: string): Promise<string | null>;
  }

  /** The runtime's own namespace. */
  interface Veil extends EventTarget {
    /** Resolves once the engine runs; rejects if it can't start. */
    readonly ready: Promise<void>;
    /**
     * Where the engine runs. "worker" unless a Worker can't be created or
     * started (a page's CSP), or the script tag says
     * data-veil-mode="main".
     */
    readonly mode: 'worker' | 'main';
    /** Every agent path, for conformance tests. */
    readonly paths: readonly VeilPath[];

    /** What is held for the user, soonest to expire first: every call's items, or one call's. */
    items(callId?: string): Promise<VeilItem[]>;
    /**
     * Reveals one item: a withheld value from the runtime's memory, or a
     * secret_reference's value by a same-origin GET of its redeemUrl
     * (once: the server answers 410 after). Needs transient user
     * activation. Never rejects.
     */
    reveal(handle: string): Promise<VeilRevealResult>;
    /** Wipes one item; resolves with whether it was held. */
    forget(handle: string): Promise<boolean>;

    addEventListener<K extends keyof VeilEventMap>(
      type: K,
      listener: (this: Veil, ev: VeilEventMap[K]) => any,
      options?: boolean | AddEventListenerOptions,
    ): void;
    addEventListener(
      type: string,
      listener: EventListenerOrEventListenerObject,
      options?: boolean | AddEventListenerOptions,
    ): void;
  }

  var veil: Veil;

  /**
   * <veil-secrets hide-after="30">: the user's tray of withheld items, with
   * Reveal, Copy and Forget (veil-secrets.js). Themed with --veil-* CSS
   * custom properties and ::part().
   */
  interface VeilSecretsElement extends HTMLElement {}

  interface HTMLElementTagNameMap {
    'veil-secrets': VeilSecretsElement;
  }
}
