package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/veilmcp/veil/wasm/engine/internal/schema"
	"github.com/veilmcp/veil/wasm/engine/internal/vault"
	"github.com/veilmcp/veil/wasm/internal/jsonx"
	"github.com/veilmcp/veil/wasm/pattern"
	"github.com/veilmcp/veil/wasm/risk"
)

// Engine holds a page's registered tools and the values withheld from
// their outputs. It is safe for concurrent use.
type Engine struct {
	opts   Options
	origin *url.URL
	base   *url.URL

	mu    sync.Mutex
	tools map[string]*tool
	vault vault.Vault
	ids   ids

	// session is the session's scrub set: what every view withheld.
	session session

	// patternWork is what the current validation may still match with
	// the page's RegExp (internal/schema's regexp.go). Concurrent
	// validations share it.
	patternWork atomic.Int64

	// risk is the policy, the session's trust state and the decision log.
	risk riskState
}

// tool is a registered tool as the engine keeps it.
type tool struct {
	name        string
	owner       Owner
	normalized  string
	input       *schema.Schema // nil: any object
	output      *schema.Schema // nil: none declared
	hint        bool           // the effective sensitiveHint: the hint, or a label the policy withholds
	declaresAny bool           // hint, or x-sensitive in outputSchema
	label       string         // title, or name
	ann         *risk.Annotations
	// sensitiveNames are the skeletons (fold.go) of the names of the
	// output's properties that hold an x-sensitive at or below them.
	sensitiveNames map[string]bool
}

// namesSensitive reports whether a member name is, in any case or
// spelling, that of a property the output schema makes sensitive.
func (t *tool) namesSensitive(name string) bool {
	if len(t.sensitiveNames) == 0 {
		return false
	}
	var buf [64]byte
	return t.sensitiveNames[string(appendSkeleton(buf[:0], name))]
}

// New returns an Engine. A nil opts means all defaults.
func New(opts *Options) *Engine {
	e := &Engine{tools: map[string]*tool{}}
	if opts != nil {
		e.opts = *opts
	}
	if e.opts.MaxOutputBytes <= 0 {
		e.opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if e.opts.MaxReferenceTTL <= 0 {
		e.opts.MaxReferenceTTL = DefaultMaxReferenceTTL
	}
	if e.opts.HoldTTL <= 0 {
		e.opts.HoldTTL = DefaultHoldTTL
	}
	if e.opts.MaxHeldBytes <= 0 {
		e.opts.MaxHeldBytes = DefaultMaxHeldBytes
	}
	if e.opts.MaxScrubNeedles <= 0 {
		e.opts.MaxScrubNeedles = DefaultMaxScrubNeedles
	}
	e.session.max = e.opts.MaxScrubNeedles
	e.session.full = e.opts.ScrubLost
	if e.opts.Now == nil {
		e.opts.Now = time.Now
	}
	if e.opts.Rand == nil {
		e.opts.Rand = defaultRand
	}
	if e.opts.Rand == nil {
		panic("engine: Options.Rand must be set under GOOS=js")
	}
	e.ids.init(e.opts.Rand)
	if u, err := url.Parse(e.opts.Origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		e.origin = &url.URL{Scheme: u.Scheme, Host: u.Host}
		e.base = e.origin.JoinPath("/")
		if b, err := url.Parse(e.opts.BaseURL); err == nil && b.IsAbs() {
			e.base = b
		}
	}
	e.vault.Init(e.opts.Now())
	e.risk.init()
	if e.opts.Trust != nil {
		e.risk.session = risk.Resume(*e.opts.Trust)
	}
	return e
}

// definition is the JSON form of a ModelContextTool, less execute.
type definition struct {
	Name         *string         `json:"name"`
	Title        *string         `json:"title"`
	Description  *string         `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  json.RawMessage `json:"annotations"`
	// Meta is the tool's _meta, where the mcp.dev/ policy hints live.
	Meta json.RawMessage `json:"_meta"`
}

// maxNameLength is the longest tool name the draft allows.
const maxNameLength = 128

func typeError(format string, args ...any) *Error {
	return &Error{Name: TypeError, Message: fmt.Sprintf(format, args...)}
}

// noTool is the error of a call of a tool that is not registered, as
// Chromium's executeTool names it.
func noTool(name string) *Error {
	return &Error{Name: UnknownError, Message: fmt.Sprintf("executeTool: no tool named %q is registered", name)}
}

func stateError(format string, args ...any) *Error {
	return &Error{Name: InvalidStateError, Message: fmt.Sprintf(format, args...)}
}

// Register validates and compiles a tool definition, given as JSON text
// (name, title, description, inputSchema, outputSchema, annotations), and
// returns its normalized form: what getTools exposes. Errors are *Error
// with the draft's names: InvalidStateError for a bad or duplicate name or
// an empty description, TypeError for anything else malformed. A rejected
// definition leaves nothing registered.
func (e *Engine) Register(def string) (string, error) {
	r, err := e.RegisterTool(def, Owner{})
	return r.Definition, err
}

// Registration is what [Engine.RegisterTool] made of a definition.
type Registration struct {
	// Name is the tool's name.
	Name string
	// Definition is the normalized definition, what getTools exposes.
	Definition string
	// Unknown lists the annotations the runtime does not read; they pass
	// through as given. The page should hear of them: an annotation it
	// meant the runtime to act on may be one the runtime does not know.
	Unknown []string
}

// RegisterTool is [Engine.Register], with what the page should hear of.
// The tool belongs to owner, the page's registration.
func (e *Engine) RegisterTool(def string, owner Owner) (Registration, error) {
	t, err := e.compile(def)
	if err != nil {
		return Registration{}, err
	}
	t.owner = owner
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, dup := e.tools[t.name]; dup {
		return Registration{}, stateError("registerTool: a tool named %q is already registered", t.name)
	}
	e.tools[t.name] = t
	return Registration{Name: t.name, Definition: t.normalized, Unknown: t.ann.Unknown}, nil
}

func (e *Engine) compile(def string) (*tool, error) {
	var d definition
	dec := json.NewDecoder(strings.NewReader(def))
	if err := dec.Decode(&d); err != nil {
		return nil, typeError("registerTool: the tool definition is not a JSON object: %v", err)
	}
	if d.Name == nil {
		return nil, typeError("registerTool: the tool has no name")
	}
	name := *d.Name
	if err := checkName(name); err != nil {
		return nil, err
	}
	if d.Description == nil {
		return nil, typeError("registerTool: tool %q has no description", name)
	}
	if strings.TrimSpace(*d.Description) == "" {
		return nil, stateError("registerTool: tool %q has an empty description", name)
	}
	t := &tool{name: name, label: name}
	if d.Title != nil && *d.Title != "" {
		t.label = *d.Title
	}
	var err error
	if t.input, err = e.compileField(name, "inputSchema", d.InputSchema); err != nil {
		return nil, err
	}
	if t.output, err = e.compileField(name, "outputSchema", d.OutputSchema); err != nil {
		return nil, err
	}
	ann, annJSON, err := risk.ParseAnnotations(d.Annotations)
	if err != nil {
		return nil, declarationError(name, err)
	}
	var metaJSON []byte
	if ann.Meta, metaJSON, err = risk.ParseMeta(d.Meta); err != nil {
		return nil, declarationError(name, err)
	}
	t.ann = ann
	t.hint = e.withholds(ann)
	t.declaresAny = t.hint || (t.output != nil && t.output.AnySensitive())
	if t.output != nil {
		for _, name := range t.output.SensitiveNames() {
			if t.sensitiveNames == nil {
				t.sensitiveNames = map[string]bool{}
			}
			t.sensitiveNames[skeleton(name)] = true
		}
	}

	// The normalized definition keeps the page's schema text as given.
	var b bytes.Buffer
	b.WriteString(`{"name":`)
	b.Write(jsonx.AppendString(nil, name))
	if d.Title != nil {
		b.WriteString(`,"title":`)
		b.Write(jsonx.AppendString(nil, *d.Title))
	}
	b.WriteString(`,"description":`)
	b.Write(jsonx.AppendString(nil, *d.Description))
	b.WriteString(`,"inputSchema":`)
	if len(d.InputSchema) > 0 && !isNull(d.InputSchema) {
		b.Write(compact(d.InputSchema))
	} else {
		b.WriteString(`{"type":"object","properties":{}}`)
	}
	if len(d.OutputSchema) > 0 && !isNull(d.OutputSchema) {
		b.WriteString(`,"outputSchema":`)
		b.Write(compact(d.OutputSchema))
	}
	b.WriteString(`,"annotations":`)
	b.Write(annJSON)
	if metaJSON != nil {
		b.WriteString(`,"_meta":`)
		b.Write(metaJSON)
	}
	b.WriteByte('}')
	t.normalized = b.String()
	return t, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// checkName applies the draft's rule for tool names.
func checkName(name string) error {
	if name == "" {
		return stateError("registerTool: the tool name is empty")
	}
	if len(name) > maxNameLength {
		return stateError("registerTool: tool name %q… is longer than %d characters", name[:16], maxNameLength)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return stateError("registerTool: tool name %q has a character outside [A-Za-z0-9_.-] at offset %d", name, i)
		}
	}
	return nil
}

// compileField compiles one of a tool's schemas; null or absent is none.
func (e *Engine) compileField(name, field string, raw json.RawMessage) (*schema.Schema, error) {
	if len(raw) == 0 || isNull(raw) {
		return nil, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, typeError("registerTool: %s of tool %q is not valid JSON: %v", field, name, err)
	}
	cs, err := schema.Compile(doc, name+"/"+field, schema.RegexpEngine(e.opts.Regexp, &e.patternWork))
	if err != nil {
		return nil, typeError("registerTool: %s of tool %q is not a valid JSON Schema: %v", field, name, err)
	}
	return cs, nil
}

// Unregister removes the named tool and reports whether it was there.
func (e *Engine) Unregister(name string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.tools[name]
	delete(e.tools, name)
	return ok
}

// UnregisterOwned removes the tool called name when registration, the
// page's number for it, is the one it was registered with (Owner): a
// later registration of the same name stays. It reports whether it
// removed the tool.
func (e *Engine) UnregisterOwned(name string, registration int64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	t, ok := e.tools[name]
	if !ok || t.owner.Registration != registration {
		return false
	}
	delete(e.tools, name)
	return true
}

// Owner is what the page knows a registration of a tool by: the number it
// gave it, so that only that registration's unregistration removes the
// tool, and whether the tool has a resolve callback, for whose answer
// every call of the tool waits ([Resolution].Later).
type Owner struct {
	Registration int64
	Resolve      bool
}

func (e *Engine) lookup(name string) *tool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.tools[name]
}

// CheckInput validates a call's input, as JSON text, against the tool's
// inputSchema. The error is a DataError whose message is the JSON of a
// [Failure] for the first failing location.
func (e *Engine) CheckInput(name, input string) error {
	t := e.lookup(name)
	if t == nil {
		return noTool(name)
	}
	_, err := e.checkInput(t, input)
	return err
}

// checkInput validates input against t's inputSchema, and returns the
// input's tree when it parsed as an object or array, for the policy's use.
func (e *Engine) checkInput(t *tool, input string) (tr *tree, err error) {
	e.patternWork.Store(pattern.MaxBacktrackingWork)
	defer func() {
		if p := recover(); p != nil {
			long, ok := p.(*schema.TooLongForPattern)
			if !ok {
				panic(p)
			}
			tr, err = nil, patternInputError(long, t.name)
		}
	}()
	// The common case, a valid input, needs neither encoding/json nor the
	// library's walk: the reader and the schema's fast path (internal/schema) say
	// so. Anything else takes the library's road, which words the error.
	tr, err = parseTree(input)
	if err != nil || tr.nodes[0].kind < kArray {
		tr = nil
	} else if t.input == nil || t.input.FastValid(tr, 0) {
		return tr, nil
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(input))
	if err != nil {
		return nil, typeError("executeTool: the input of tool %q is not valid JSON: %v", t.name, err)
	}
	switch v.(type) {
	case map[string]any, []any:
	default:
		return nil, typeError("executeTool: the input of tool %q must be an object, got %s", t.name, jsonx.TypeOf(v))
	}
	if t.input == nil {
		return tr, nil
	}
	if f := t.input.Validate(v); f != nil {
		msg, _ := json.Marshal(f)
		return nil, &Error{Name: DataError, Message: string(msg)}
	}
	return tr, nil
}

// Items lists what is held for the user, without values, oldest call
// first. Expired items are wiped first.
func (e *Engine) Items() []Item {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.vault.Sweep(e.opts.Now())
	return e.vault.Items()
}

// Reveal returns a held item for the user: a withheld value, or the URL
// to redeem a reference. It does not forget the item.
func (e *Engine) Reveal(handle string) (Revealed, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.vault.Sweep(e.opts.Now())
	text, reference, ok := e.vault.Reveal(handle)
	if !ok {
		return Revealed{}, &Error{Name: NotFoundError, Message: "reveal: no item with that handle is held (it may have expired or been forgotten)"}
	}
	if reference {
		return Revealed{Kind: "reference", RedeemURL: text}, nil
	}
	return Revealed{Kind: "value", Value: text}, nil
}

// Forget wipes a held item and reports whether it was held.
func (e *Engine) Forget(handle string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.vault.Forget(handle)
}

// Sweep wipes every expired item and returns how many it wiped.
func (e *Engine) Sweep() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.vault.Sweep(e.opts.Now())
}

// patternInputError is the DataError of an input validation that stopped
// at a string too long for a backtracking pattern.
func patternInputError(e *schema.TooLongForPattern, tool string) *Error {
	reason := fmt.Sprintf("a string of %d characters in the input of tool %q is longer than the %d the runtime matches the pattern %q against (keyword pattern): it needs the page's RegExp, whose matching cannot be stopped", e.Length, tool, pattern.MaxBacktrackingInput, e.Pattern)
	if e.Total {
		reason = fmt.Sprintf("the input of tool %q has more than the %d characters in all that the runtime matches patterns that need the page's RegExp against (keyword pattern, %q): their matching cannot be stopped", tool, pattern.MaxBacktrackingWork, e.Pattern)
	}
	msg, _ := json.Marshal(Failure{Reason: reason})
	return &Error{Name: DataError, Message: string(msg)}
}
