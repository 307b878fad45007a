// Types for Veil's webmcp.js: the WebMCP API it installs (the Community
// Group draft, plus the 2025 methods and Chromium's testing API) and the
// runtime's own `veil` namespace. From the npm package, they are its
// entry point: "types": ["@veilmcp/veil"] in tsconfig.json's
// compilerOptions, or /// <reference types="@veilmcp/veil" />.

export {};

declare global {
  /** The names JSON Schema's `type` keyword takes. */
  type JSONSchemaTypeName = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

  /**
   * A subschema: an object, or true (anything) or false (nothing). A tool's
   * inputSchema and outputSchema are objects (JSONSchemaObject).
   */
  type JSONSchema = JSONSchemaObject | boolean;

  /**
   * A JSON Schema object, as registerTool takes it: the keywords of draft
   * 2020-12 (the default), of the earlier drafts a `$schema` may name
   * (draft-04 to 2019-09), and Veil's `"x-sensitive"`. The keywords are
   * typed exactly, so that a misspelled one, or an object that is no
   * schema, is a type error; at run time a key that looks like a
   * misspelled x-sensitive rejects, and other unknown keywords are ignored,
   * as JSON Schema says (cast to add one).
   */
  interface JSONSchemaObject {
    $schema?: string;
    $id?: string;
    /** draft-04's $id. */
    id?: string;
    $anchor?: string;
    $dynamicAnchor?: string;
    /** 2019-09. */
    $recursiveAnchor?: boolean;
    /** Within the schema only: nothing is ever fetched, and a $ref outside the schema is a TypeError. */
    $ref?: string;
    $dynamicRef?: string;
    /** 2019-09. */
    $recursiveRef?: string;
    $defs?: { readonly [name: string]: JSONSchema };
    /** Before 2019-09. */
    definitions?: { readonly [name: string]: JSONSchema };
    $vocabulary?: { readonly [uri: string]: boolean };
    $comment?: string;

    /**
     * The values this subschema applies to are sensitive: they are withheld
     * from agents and held for the user. Only a boolean is valid.
     */
    'x-sensitive'?: boolean;

    type?: JSONSchemaTypeName | readonly JSONSchemaTypeName[];
    enum?: readonly unknown[];
    const?: unknown;
    multipleOf?: number;
    maximum?: number;
    /** A number; a boolean in draft-04. */
    exclusiveMaximum?: number | boolean;
    minimum?: number;
    /** A number; a boolean in draft-04. */
    exclusiveMinimum?: number | boolean;
    maxLength?: number;
    minLength?: number;
    /** An ECMA-262 regular expression, as JSON Schema specifies. */
    pattern?: string;
    maxItems?: number;
    minItems?: number;
    uniqueItems?: boolean;
    maxContains?: number;
    minContains?: number;
    maxProperties?: number;
    minProperties?: number;
    required?: readonly string[];
    dependentRequired?: { readonly [name: string]: readonly string[] };
    /** Before 2019-09: dependentRequired and dependentSchemas in one. */
    dependencies?: { readonly [name: string]: JSONSchema | readonly string[] };

    properties?: { readonly [name: string]: JSONSchema };
    patternProperties?: { readonly [pattern: string]: JSONSchema };
    additionalProperties?: JSONSchema;
    propertyNames?: JSONSchema;
    unevaluatedProperties?: JSONSchema;
    dependentSchemas?: { readonly [name: string]: JSONSchema };
    prefixItems?: readonly JSONSchema[];
    /** A schema; before 2020-12 also an array of them (a tuple). */
    items?: JSONSchema | readonly JSONSchema[];
    /** Before 2020-12, with a tuple `items`. */
    additionalItems?: JSONSchema;
    unevaluatedItems?: JSONSchema;
    contains?: JSONSchema;
    allOf?: readonly JSONSchema[];
    anyOf?: readonly JSONSchema[];
    oneOf?: readonly JSONSchema[];
    not?: JSONSchema;
    if?: JSONSchema;
    then?: JSONSchema;
    else?: JSONSchema;

    format?: string;
    contentEncoding?: string;
    contentMediaType?: string;
    contentSchema?: JSONSchema;

    title?: string;
    description?: string;
    default?: unknown;
    examples?: readonly unknown[];
    deprecated?: boolean;
    readOnly?: boolean;
    writeOnly?: boolean;
  }

  /** SEP-1913's data classes. */
  type DataClass = 'none' | 'user' | 'pii' | 'financial' | 'credentials' | { regulated: { scopes: readonly string[] } };
  type OneOrMany<T> = T | readonly T[];

  /**
   * A tool's annotations. Every hint is advisory to agents and input to
   * Veil's risk policy (see the README's table of hints); a known key with
   * the wrong type or value makes registerTool reject with a TypeError, and
   * null is the same as leaving a key out. The keys are typed exactly, so
   * that a misspelled hint is a type error; at run time a key that looks
   * like a misspelled hint (case, a letter or two off) rejects too, and
   * other unknown keys pass through (cast to add one).
   */
  interface ToolAnnotations {
    title?: string | null;
    /** MCP. Default: false. */
    readOnlyHint?: boolean | null;
    /** MCP; meaningful when readOnlyHint is false. Default: true. */
    destructiveHint?: boolean | null;
    /** MCP; one retry after a transient failure. Default: false. */
    idempotentHint?: boolean | null;
    /** MCP. Default: true. */
    openWorldHint?: boolean | null;
    /** WebMCP draft: results come from untrusted sources and are spotlighted. */
    untrustedContentHint?: boolean | null;
    /** WebMCP draft: calls need the user's confirmation. */
    consequentialHint?: boolean | null;
    /** Not read by the runtime: passed on as given. */
    debugging?: boolean | null;
    /**
     * The output may carry sensitive values: only what the outputSchema
     * declares non-sensitive, or the text next to secret_reference items,
     * reaches an agent. Default: false.
     */
    sensitiveHint?: boolean | null;
    /** SEP-1984 hints: unset means no claim either way. */
    aiProcessingHint?: boolean | null;
    slowExecutionHint?: boolean | null;
    resourceIntensiveHint?: boolean | null;
    sensitiveDataHint?: boolean | null;
    privilegedAccessHint?: boolean | null;
    reversibleHint?: boolean | null;
    /** SEP-1913, validated against the SEP's JSON Schema. */
    maliciousActivityHint?: boolean | null;
    attribution?: readonly string[] | null;
    inputMetadata?: {
      destination: OneOrMany<'ephemeral' | 'system' | 'user' | 'internal' | 'public'>;
      sensitivity: OneOrMany<DataClass>;
      outcomes: OneOrMany<'benign' | 'consequential' | 'irreversible'>;
    } | null;
    returnMetadata?: {
      source: OneOrMany<'untrustedPublic' | 'trustedPublic' | 'internal' | 'user' | 'system'>;
      sensitivity: OneOrMany<DataClass>;
    } | null;
  }

  /**
   * A tool's _meta; the mcp.dev/ policy hints are checked (null is the same
   * as leaving one out), and a key that looks like a misspelled one rejects
   * registerTool. Other keys pass: _meta carries other conventions' keys
   * too.
   */
  interface ToolMeta {
    'mcp.dev/effect'?: 'read' | 'write' | 'delete' | 'external' | null;
    'mcp.dev/idempotent'?: boolean | null;
    'mcp.dev/requiresConfirmation'?: boolean | null;
    'mcp.dev/resultSensitivity'?: 'public' | 'internal' | 'confidential' | 'restricted' | null;
    [key: string]: unknown;
  }

  /**
   * What execute hears of the session: SEP-1913's request annotations
   * (openWorldHint: untrusted content reached the agent; attribution) and
   * Veil's own (maliciousActivityHint, privateData). Frozen.
   */
  interface VeilRequestAnnotations {
    readonly openWorldHint: boolean;
    readonly attribution: readonly string[];
    readonly maliciousActivityHint: boolean;
    /** Sensitivity labels of the private data the agent has read. */
    readonly privateData: readonly VeilSensitivityLabel[];
  }

  interface ToolExecuteCallbackOptions {
    /** Aborts when the caller cancels the call, or when it times out. */
    signal: AbortSignal;
    /** The session's trust state when the call was decided. */
    annotations: VeilRequestAnnotations;
  }

  type ToolExecuteCallback = (input: any, options: ToolExecuteCallbackOptions) => unknown;

  interface ModelContextTool {
    /** 1 to 128 characters of [A-Za-z0-9_.-], unique in the document. */
    name: string;
    title?: string;
    /** Not empty. */
    description: string;
    /**
     * The input's shape; executeTool refuses input it does not match, and
     * execute gets only input that does. Default: any object.
     */
    inputSchema?: JSONSchemaObject;
    /**
     * The result's shape (draft 2020-12 unless $schema says otherwise).
     * `"x-sensitive": true` on a subschema withholds the values it applies to.
     */
    outputSchema?: JSONSchemaObject;
    /** null is the same as none. */
    annotations?: ToolAnnotations | null;
    /** null is the same as none. */
    _meta?: ToolMeta | null;
    /**
     * Runs the tool. A string result reaches agents as it is, anything else
     * as its JSON.stringify text, less what is sensitive.
     */
    execute: ToolExecuteCallback;
    /**
     * Refines the annotations for one call, from its (valid) input, before
     * the risk policy decides it (SEP-1913's tool resolution): keys it
     * returns replace the tool's, except that sensitiveHint can only be
     * raised. Nothing (undefined or null) keeps the tool's. If it throws or
     * returns annotations that are not valid, the call is blocked.
     */
    resolve?: ((input: any) => ToolAnnotations | null | undefined | Promise<ToolAnnotations | null | undefined>) | null;
  }

  interface ModelContextRegisterToolOptions {
    /** Aborting it unregisters the tool. */
    signal?: AbortSignal;
    /**
     * Origins of other frames of the page that may see and run the tool
     * (frames of this document's own origin always may). Each must be a URL
     * whose origin is potentially trustworthy (https:, or loopback), else
     * registerTool throws a SecurityError DOMException. A cross-origin frame
     * also needs the "tools" permissions policy (allow="tools ..." on its
     * iframe).
     */
    exposedTo?: readonly string[];
  }

  interface ModelContextGetToolOptions {
    /**
     * Origins of cross-origin frames whose tools to list too, where they
     * expose them to this document's origin. Same-origin frames are always
     * listed. Each must be a URL whose origin is potentially trustworthy,
     * else getTools rejects with a SecurityError DOMException.
     */
    fromOrigins?: readonly string[];
  }

  interface ModelContextExecuteToolOptions {
    signal?: AbortSignal;
  }

  /** A tool as getTools gives it: the definition as registered, normalized, less execute and resolve. */
  interface RegisteredTool {
    name: string;
    /** "" when the tool has none. */
    title: string;
    description: string;
    /** The tool's, or {type: "object", properties: {}} when it gave none. */
    inputSchema: JSONSchemaObject;
    outputSchema?: JSONSchemaObject;
    /** The tool's annotations with every null dropped; MCP's defaults are not written in. */
    annotations: ToolAnnotations;
    _meta?: ToolMeta;
    /** The window of the document that registered the tool: this one's, or another frame's of the page. */
    window: Window;
    /** The serialized origin of the document that registered the tool. */
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

  /** toolactivated and toolcancel reach the window too, after the ModelContext. */
  interface WindowEventMap {
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
    /**
     * The tools this document may see, sorted by name: its own, those of
     * same-origin frames of the page, and those of the cross-origin frames
     * named in fromOrigins that expose them to this document's origin.
     */
    getTools(options?: ModelContextGetToolOptions): Promise<RegisteredTool[]>;
    /**
     * Runs a tool as an agent would and resolves with what an agent sees.
     * Input that fails the tool's inputSchema rejects with a DataError
     * DOMException whose message is JSON {path, reason, schemaPath}.
     * Another frame's tool runs in that frame, through its engine: this
     * document receives its agent view only. A tool's origin that is not a
     * URL with an origin is a NotSupportedError; a tool this document may
     * not run, or whose frame does not answer, an UnknownError.
     */
    executeTool(
      tool: Pick<RegisteredTool, 'name' | 'description' | 'window' | 'origin'>,
      input?: object,
      options?: ModelContextExecuteToolOptions,
    ): Promise<string>;

    ontoolchange: ((this: ModelContext, ev: Event) => any) | null;
    ontoolactivated: ((this: ModelContext, ev: ToolActivatedEvent) => any) | null;
    ontoolcancel: ((this: ModelContext, ev: ToolCancelEvent) => any) | null;

    /** 2025 API: unregisters every tool, then registers these. */
    provideContext(context?: { tools?: readonly ModelContextTool[] }): void;
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
    listTools(): { name: string; description: string; /** JSON text */ inputSchema: string; annotations: ToolAnnotations }[];
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

  /**
   * A <form toolname> is a tool (veil-forms.js): its submit event, when an
   * agent's call fills the form and it is submitted (by toolautosubmit or
   * by the user while the call waits), says so. Defined once the first
   * such form has been seen.
   */
  interface SubmitEvent {
    /** This submission answers an agent's call of the form's tool. */
    readonly agentInvoked: boolean;
    /**
     * Answers the agent's call with what response resolves with, in place
     * of the form's own submission: call preventDefault() first, while the
     * event is dispatched. The value is the tool's output, as execute's
     * would be (the engine decides what the agent gets). InvalidStateError
     * when agentInvoked is false, the event is over, or it was not
     * cancelled.
     */
    respondWith(response: any): void;
  }

  /** One of Veil's held values or secret references, never the value. */
  interface VeilItem {
    /** Opaque; names the item to veil.reveal and veil.forget. */
    handle: string;
    /** The call that withheld it. */
    call: string;
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
    /**
     * A reference with a ttl: when that runs out on its server, in
     * milliseconds since the epoch, like expires. The item is held at least
     * that long, so that a late reveal hears "gone" rather than "notfound".
     */
    redeemBy?: number;
  }

  /**
   * Why a reveal failed:
   * - activation: no transient user activation (reveal from a click or key handler);
   * - notfound: the item is no longer held, or redeem answered 404;
   * - invalid: a redeemUrl not on the page's origin; nothing was fetched;
   * - gone: 410, the secret expired or was already revealed;
   * - signin: 401; forbidden: 403;
   * - ratelimited: 429, retryAfter says when to try again;
   * - unavailable: a 5xx answer; network: no answer at all;
   * - error: anything else, an answer whose body is not redeem's JSON among
   *   them (a router's or a proxy's 404 page: the console then names the
   *   path fetched and what to check).
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
     * veil.items(call) lists them.
     */
    held: CustomEvent<{ readonly tool: string; readonly call: string; readonly count: number }>;
    /** veil.forget wiped an item. */
    forgotten: CustomEvent<{ readonly handle: string }>;
    /**
     * veil.reveal redeemed a secret_reference: its server will not hand it
     * out again. The tray marks it spent unless it redeemed it itself.
     */
    redeemed: CustomEvent<{ readonly handle: string }>;
    /** A tool returned secret_reference items that are not valid. */
    invalidreference: CustomEvent<{ readonly tool: string; readonly reasons: readonly string[] }>;
    /** A result carried _meta keys under dev.veil/, which only the runtime writes; they were removed. */
    reserved: CustomEvent<{ readonly tool: string; readonly count: number }>;
    /**
     * A tool in the browser's own registry that is not Veil's mirror (nor
     * a mirror of a same-origin frame's Veil) runs around the engine, and
     * the runtime cannot remove it: callable is true when it appears, and
     * every agent path of the browser can still call it. Until it is gone
     * (the same event again, callable false), every call asks the user
     * (rule "foreign") and private results are withheld from the agent.
     * name is the tool's name, as the tool chose it.
     */
    foreigntool: CustomEvent<{ readonly kind: 'native'; readonly name: string; readonly callable: boolean }>;
    /**
     * A <form toolname>'s tool was not registered: the engine refused it
     * (a name taken or not valid, an empty description, a tooloutputschema
     * that is no valid schema: the errors registerTool rejects with), its
     * tooloutputschema is not JSON (TypeError), or a risk attribute
     * (tooldestructivehint, toolrequiresconfirmation, ...) is neither
     * empty, "true" nor "false" (a TypeError whose attribute names it).
     * Nothing of it is registered; it is tried again when the form changes.
     */
    formtoolerror: CustomEvent<{ readonly form: HTMLFormElement; readonly name: string; readonly error: Error }>;
    /** A call was decided, or the user answered: its log entry. */
    decision: CustomEvent<VeilDecision>;
    /** The session's trust state changed: the new veil.trust. */
    trustchange: CustomEvent<VeilTrust>;
    /** A result carried maliciousActivityHint. */
    malicious: CustomEvent<{ readonly tool: string; readonly call: string }>;
    /** veil.calls changed. */
    callchange: Event;
    /**
     * The engine was lost: its Worker ended or failed, its Go program
     * exited, or an op never came back. The calls it was deciding (calls)
     * failed with OperationError, and what it held for the user is gone.
     * When restarting, the next op starts another engine in the same
     * mode, with the session's trust state, the policy and the live
     * tools; an engine lost three times within a minute is not started
     * again, and every call fails from then on.
     */
    enginelost: CustomEvent<VeilEngineLost>;
  }

  /** What the enginelost event tells. */
  interface VeilEngineLost {
    /** Where the engine ran. */
    readonly mode: 'worker' | 'main';
    /** What was noticed, in words. */
    readonly reason: string;
    /** How many calls in progress failed. */
    readonly calls: number;
    /** Whether the next op starts another engine. */
    readonly restarting: boolean;
  }

  /**
   * The sensitivity labels: SEP-1913's data classes (regulated data is
   * "regulated"), mcp.dev/resultSensitivity's values, and
   * sensitiveDataHint.
   */
  type VeilSensitivityLabel =
    | 'none'
    | 'user'
    | 'pii'
    | 'financial'
    | 'credentials'
    | 'regulated'
    | 'public'
    | 'internal'
    | 'confidential'
    | 'restricted'
    | 'sensitiveDataHint';

  /** The rules whose outcome a page can configure (rules); all but foreign can also be turned off. */
  type VeilRule = 'malicious' | 'trifecta' | 'consequential' | 'foreign';

  /** The rules that can decide a call. */
  type VeilDecisionRule = VeilRule | 'aiProcessing' | 'resolve' | 'undecided' | 'capacity' | 'flood';

  /** Something a rule of the risk policy used: never a value. */
  interface VeilFact {
    readonly rule: VeilDecisionRule;
    /**
     * Where it comes from: the tool's annotations, its resolve ("call"),
     * MCP's default for a hint the tool left out, its _meta, or the
     * session.
     */
    readonly source: 'tool' | 'call' | 'default' | 'meta' | 'session';
    /** The hint or state, such as "destructiveHint" or "privateData". */
    readonly key: string;
    /** The vocabulary's own value, such as "true" or "pii". */
    readonly value: string;
  }

  /** One entry of the decision log. */
  interface VeilDecision {
    readonly call: string;
    readonly tool: string;
    /** RFC 3339. */
    readonly time: string;
    /** "allow", "notice", "confirm" (asking), "block", then "approved" or "declined". */
    readonly outcome: 'allow' | 'notice' | 'confirm' | 'block' | 'approved' | 'declined';
    /** The rule that decided; absent when allowed. */
    readonly rule?: VeilDecisionRule;
    readonly facts: readonly VeilFact[];
  }

  /** The trust state of the page's agent session. Lists only grow. */
  interface VeilTrust {
    readonly untrustedContent: boolean;
    readonly untrustedFrom: readonly string[];
    readonly privateData: readonly VeilSensitivityLabel[];
    readonly privateFrom: readonly string[];
    readonly attribution: readonly string[];
    readonly attributionDropped: number;
    readonly maliciousActivity: boolean;
    readonly maliciousFrom: readonly string[];
    readonly version: number;
  }

  /** What a notice or confirmation handler is told of a call. Frozen. */
  interface VeilCallRequest {
    readonly call: string;
    readonly tool: string;
    /** The tool's title, else its annotations' title, else its name. */
    readonly title: string;
    readonly description: string;
    readonly rule: VeilDecisionRule;
    readonly facts: readonly VeilFact[];
    readonly trust: VeilTrust | null;
    /**
     * The call's exact input, frozen: what execute gets. Show it: the same
     * tool with other arguments is another question.
     */
    readonly input: any;
    /** JSON Pointers of the input's values that the inputSchema marks x-sensitive: show them masked. */
    readonly sensitive: readonly string[];
  }

  /** What a notice handler is told: a call runs, and why the user should know. */
  interface VeilNoticeRequest extends VeilCallRequest {
    /** consequential: a reversible destructive tool or consequential outcomes; aiProcessing. */
    readonly rule: 'consequential' | 'aiProcessing';
  }

  /** What a confirmation handler is asked. */
  interface VeilConfirmRequest extends VeilCallRequest {
    readonly rule: VeilRule;
    /** How many other questions wait after this one (veil.declinePending declines them). */
    readonly waiting: number;
    /** Aborts when the agent gives up on the call, or the engine that decided it is lost: close the question. */
    readonly signal: AbortSignal;
  }

  /** A call in progress. */
  interface VeilCall {
    readonly call: string;
    readonly tool: string;
    readonly state: 'confirming' | 'queued' | 'running' | 'retrying';
    /** slowExecutionHint: show progress. */
    readonly slow: boolean;
    /** Date.now() when the call started. */
    readonly since: number;
  }

  /**
   * veil.configure's options. Keys left out keep their value; null
   * restores the default. The lists add to the defaults, which nothing
   * removes.
   */
  interface VeilConfig {
    /**
     * Asks the user whether a call may run; only a resolved true approves,
     * anything else (a throw included) declines. Default: the built-in
     * dialog.
     */
    confirm?: ((request: VeilConfirmRequest) => boolean | Promise<boolean>) | null;
    /**
     * Tells the user that a call runs (a reversible destructive tool, an AI
     * tool while the session holds private data). Default: the built-in
     * notice.
     */
    notice?: ((request: VeilNoticeRequest) => void) | null;
    /** How long execute may take, in ms; positive. Default: 120000. */
    timeoutMs?: number | null;
    /** The same, for slowExecutionHint tools. Default: 600000. */
    slowTimeoutMs?: number | null;
    /** Makes a rule block instead of asking. Default: each asks ("confirm"). */
    rules?: { readonly [R in VeilRule]?: 'confirm' | 'block' } | null;
    /** Turns rules off. Default: none. */
    insecureDisableRules?: readonly (Exclude<VeilRule, 'foreign'> | 'aiProcessing' | 'spotlight')[] | null;
    /** Sensitivity labels withheld like sensitiveHint, besides credentials and restricted. */
    withhold?: readonly VeilSensitivityLabel[] | null;
    /** Sensitivity labels that mark private data, besides pii, financial, regulated, confidential and sensitiveDataHint. */
    private?: readonly VeilSensitivityLabel[] | null;
    /** Calls in progress at once; more are declined before they run (rule "capacity"). Default: 64, at most 4096. */
    maxCalls?: number | null;
    /** Calls waiting for the user's answer; more that need one are declined (rule "flood"). Default: 8, at most maxCalls. */
    maxConfirmations?: number | null;
  }

  /** An agent path: a way tool output leaves the runtime. */
  interface VeilPath {
    readonly name: string;
    /** Executes a tool through this path, as an agent would. */
    execute(toolName: string, inputJson: string): Promise<string | null>;
  }

  /** The runtime's own namespace. */
  interface Veil extends EventTarget {
    /**
     * Resolves once the engine runs; rejects if it can't start, with an
     * Error that names each of the runtime's files that did not load (its
     * URL, and why) when that is the reason. The files are beside
     * webmcp.js, or in the folder <meta name="veil-base" content="…"> in
     * the head names.
     */
    readonly ready: Promise<void>;
    /**
     * Where the engine runs. "worker" unless a Worker can't be created or
     * started (a page's CSP), or the script tag says
     * data-veil-mode="main".
     */
    readonly mode: 'worker' | 'main';
    /**
     * The runtime's version, its npm package's ("0.1.0"): what a page or
     * a bug report names (docs/CHANGELOG.md says what each changed).
     */
    readonly version: string;
    /** Every agent path, for conformance tests. */
    readonly paths: readonly VeilPath[];

    /** What is held for the user, soonest to expire first: every call's items, or one call's. */
    items(call?: string): Promise<VeilItem[]>;
    /**
     * Reveals one item: a withheld value from the runtime's memory, or a
     * secret_reference's value by a same-origin GET of its redeemUrl
     * (once: the server answers 410 after). Needs transient user
     * activation. Never rejects.
     */
    reveal(handle: string): Promise<VeilRevealResult>;
    /** Wipes one item; resolves with whether it was held. */
    forget(handle: string): Promise<boolean>;

    /** Configures the risk policy; rejects with a TypeError for a bad option. */
    configure(options?: VeilConfig): Promise<void>;
    /** The session's trust state; null until the engine answers. */
    readonly trust: VeilTrust | null;
    /** The calls in progress. */
    readonly calls: readonly VeilCall[];
    /** The decision log, oldest first. */
    decisions(): Promise<readonly VeilDecision[]>;
    /** Declines every call waiting to be put to the user, and returns how many. */
    declinePending(): number;
    /**
     * Takes the page's word for a form tool's risk attributes: without it,
     * one that lowers caution (toolreadonlyhint, toolopenworldhint="false",
     * ...) is not read, since markup the page shows can write it. Throws a
     * TypeError for anything but a form element.
     */
    vouch(form: HTMLFormElement): void;

    // Only the namespace's own events: a name it never fires is a type error.
    addEventListener<K extends keyof VeilEventMap>(
      type: K,
      listener: (this: Veil, ev: VeilEventMap[K]) => any,
      options?: boolean | AddEventListenerOptions,
    ): void;
    addEventListener(
      type: keyof VeilEventMap,
      listener: EventListenerOrEventListenerObject | null,
      options?: boolean | AddEventListenerOptions,
    ): void;
    removeEventListener<K extends keyof VeilEventMap>(
      type: K,
      listener: (this: Veil, ev: VeilEventMap[K]) => any,
      options?: boolean | EventListenerOptions,
    ): void;
    removeEventListener(
      type: keyof VeilEventMap,
      listener: EventListenerOrEventListenerObject | null,
      options?: boolean | EventListenerOptions,
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

  /**
   * The attributes of <veil-secrets> in JSX (React and the like), as
   * strings or numbers, with the few every element takes.
   */
  interface VeilSecretsAttributes {
    /** Seconds a revealed value stays shown (default 30). */
    'hide-after'?: number | `${number}`;
    /** The level of the tray's heading, 1 to 6 (default 2). */
    'heading-level'?: 1 | 2 | 3 | 4 | 5 | 6 | '1' | '2' | '3' | '4' | '5' | '6';
    id?: string;
    class?: string;
    className?: string;
    slot?: string;
    hidden?: boolean;
    style?: unknown;
    /** Elements for the slots "title" and "empty". */
    children?: unknown;
    ref?: unknown;
  }

  /** <veil-secrets> for JSX that looks the element up in the global JSX namespace. */
  namespace JSX {
    interface IntrinsicElements {
      'veil-secrets': VeilSecretsAttributes;
    }
  }
}

/**
 * <veil-secrets> for React 19's JSX ("jsx": "react-jsx"), which looks the
 * element up in react/jsx-runtime's JSX namespace, not the global one.
 */
declare module 'react/jsx-runtime' {
  namespace JSX {
    interface IntrinsicElements {
      'veil-secrets': VeilSecretsAttributes;
    }
  }
}
