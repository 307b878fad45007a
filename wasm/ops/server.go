package ops

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/internal/jsonx"
)

// Server answers the ops. Its engine is created by Init. It is safe for
// concurrent use.
type Server struct {
	host engine.Options

	mu  sync.Mutex
	eng *engine.Engine
	// owners maps each registered tool's name to the registration that
	// holds it.
	owners map[string]RegisterRequest
	exited bool
}

// NewServer returns a Server whose engines get host's Regexp, Rand and
// Now: what the host, not the page, provides. A nil host means Go's.
func NewServer(host *engine.Options) *Server {
	s := &Server{}
	if host != nil {
		s.host = engine.Options{Regexp: host.Regexp, Rand: host.Rand, Now: host.Now}
	}
	return s
}

// errExited answers every op after Exit.
var errExited = &engine.Error{Name: engine.InvalidStateError, Message: "veil engine: exited"}

// Handle answers one op with its reply header and body. It never panics:
// a panic is the Failure reply.
func (s *Server) Handle(op, header, body string) (replyHeader, replyBody string) {
	defer func() {
		if recover() != nil {
			replyHeader, replyBody = Failure, ""
		}
	}()
	if header == "" {
		header = "{}"
	}
	s.mu.Lock()
	e, exited := s.eng, s.exited
	switch {
	case exited:
	case op == Init:
		e = nil
	case op == Exit:
		s.exited = true
	}
	s.mu.Unlock()
	switch {
	case exited:
		return errorReply(errExited), ""
	case op == Init:
		return s.init(header)
	case op == Exit:
		return okReply, ""
	case e == nil:
		return errorReply(&engine.Error{Name: engine.InvalidStateError, Message: "veil engine: not initialized"}), ""
	}
	return s.dispatch(e, op, header, body)
}

// Exited reports whether the server has answered Exit.
func (s *Server) Exited() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exited
}

func (s *Server) init(header string) (string, string) {
	var r InitRequest
	if err := decode(Init, header, &r); err != nil {
		return errorReply(err), ""
	}
	opts := s.host
	opts.Origin, opts.BaseURL, opts.RedeemPath = r.Origin, r.BaseURL, r.RedeemPath
	opts.MaxOutputBytes = r.MaxOutputBytes
	opts.MaxScrubNeedles = r.MaxScrubNeedles
	opts.ScrubLost = r.ScrubLost
	opts.HoldTTL = time.Duration(r.HoldTTLms * float64(time.Millisecond))
	opts.MaxReferenceTTL = time.Duration(r.MaxReferenceTTLs * float64(time.Second))
	opts.Trust = r.Trust
	e := engine.New(&opts)
	if len(r.Settings) > 0 {
		// The settings an engine accepted before: refused now, the engine
		// is not replaced, rather than run with a weaker policy.
		if err := e.Configure(string(r.Settings)); err != nil {
			return errorReply(err), ""
		}
	}
	s.mu.Lock()
	s.eng, s.owners = e, map[string]RegisterRequest{}
	s.mu.Unlock()
	return reply(InitReply{Trust: e.Trust()}), ""
}

func (s *Server) dispatch(e *engine.Engine, op, header, body string) (string, string) {
	switch op {
	case Register:
		var r RegisterRequest
		if err := decode(op, header, &r); err != nil {
			return errorReply(err), ""
		}
		// The registry and its owners change together.
		s.mu.Lock()
		reg, err := e.RegisterTool(body)
		if err == nil {
			s.owners[reg.Name] = r
		}
		s.mu.Unlock()
		if err != nil {
			return errorReply(err), ""
		}
		if len(reg.Unknown) == 0 {
			return "{}", reg.Definition
		}
		return reply(RegisterReply{Unknown: reg.Unknown}), reg.Definition
	case Unregister:
		var r UnregisterRequest
		if err := decode(op, header, &r); err != nil {
			return errorReply(err), ""
		}
		s.mu.Lock()
		owner, ok := s.owners[r.Name]
		ok = ok && owner.Registration == r.Registration && e.Unregister(r.Name)
		if ok {
			delete(s.owners, r.Name)
		}
		s.mu.Unlock()
		return reply(OKReply{ok}), ""
	case Decide:
		r, err := decodeDecide(header)
		if err != nil {
			return errorReply(err), ""
		}
		// The owner read and the decision see the same registration.
		s.mu.Lock()
		owner := s.owners[r.Name]
		d, err := e.Decide(r.Name, body, engine.Resolution{Later: owner.Resolve})
		s.mu.Unlock()
		if err != nil {
			return errorReply(err), ""
		}
		return reply(DecideReply{d, owner.Registration}), d.Refusal
	case Resolve:
		var r ResolveRequest
		if err := decode(op, header, &r); err != nil {
			// What resolve made of the call cannot be read (nested too
			// deep, say): the call is blocked, as when resolve fails,
			// rather than left open.
			if id, ok := leadingCall(header); ok {
				return decision(e.Resolve(id, engine.Resolution{Failed: true}))
			}
			return errorReply(err), ""
		}
		return decision(e.Resolve(r.Call, engine.Resolution{Annotations: string(r.Resolved), Failed: r.Failed}))
	case Settle:
		var r SettleRequest
		if err := decode(op, header, &r); err != nil {
			return errorReply(err), ""
		}
		entry, err := e.Settle(r.Call, r.Approved)
		if err != nil {
			return errorReply(err), ""
		}
		return reply(SettleReply{entry}), ""
	case Output:
		r, err := decodeOutput(header)
		if err != nil {
			return errorReply(err), ""
		}
		if !slices.Contains(Kinds, r.Kind) {
			// The call is closed all the same: no output will come.
			e.Output("", engine.Outcome{Kind: engine.Aborted, Call: r.Call})
			return errorReply(&engine.Error{Name: engine.TypeError, Message: "veil engine: unknown outcome kind " + string(r.Kind)}), ""
		}
		res := e.Output("", engine.Outcome{Kind: r.Kind, Data: body, Call: r.Call})
		rp := OutputReply{
			Held:      res.Held,
			Invalid:   jsonx.NonNil(res.Invalid),
			Error:     res.Err,
			Trust:     res.Trust,
			Malicious: res.Malicious,
			Same:      res.Unchanged,
			Reserved:  res.Reserved,
			Scrubbing: res.Scrubbing,
		}
		if res.Unchanged {
			// The page answers with its own string, which need not cross
			// back.
			return rp.json(), ""
		}
		return rp.json(), res.Agent
	case Configure:
		if err := e.Configure(header); err != nil {
			return errorReply(err), ""
		}
		return reply(ConfigureReply{OK: true, Settings: e.Settings()}), ""
	case Decisions:
		return reply(DecisionsReply{jsonx.NonNil(e.Decisions())}), ""
	case Items:
		return reply(ItemsReply{jsonx.NonNil(e.Items())}), ""
	case Reveal:
		var r HandleRequest
		if err := decode(op, header, &r); err != nil {
			return errorReply(err), ""
		}
		v, err := e.Reveal(r.Handle)
		if err != nil {
			return errorReply(err), ""
		}
		return reply(RevealReply{Kind: v.Kind, RedeemURL: v.RedeemURL}), v.Value
	case Forget:
		var r HandleRequest
		if err := decode(op, header, &r); err != nil {
			return errorReply(err), ""
		}
		return reply(OKReply{e.Forget(r.Handle)}), ""
	case Sweep:
		e.Sweep()
		return okReply, ""
	case Scrub:
		var r ScrubRequest
		if err := decode(op, header, &r); err != nil {
			return errorReply(err), ""
		}
		var values []string
		if err := json.Unmarshal([]byte(body), &values); err != nil {
			return errorReply(&engine.Error{Name: engine.TypeError, Message: "veil engine: the scrub body is not a JSON array of strings"}), ""
		}
		if err := e.Scrub(r.Tool, values); err != nil {
			return errorReply(err), ""
		}
		return okReply, ""
	case Foreign:
		var r ForeignRequest
		if err := decode(op, header, &r); err != nil {
			return errorReply(err), ""
		}
		e.SetForeign(r.Names)
		return okReply, ""
	case Stats:
		var r StatsRequest
		if err := decode(op, header, &r); err != nil {
			return errorReply(err), ""
		}
		return reply(stats(e, r.GC)), ""
	}
	return errorReply(&engine.Error{Name: engine.NotSupportedError, Message: "veil engine: unknown op " + op}), ""
}

// decision is the reply to Decide and Resolve.
func decision(d engine.Decision, err error) (string, string) {
	if err != nil {
		return errorReply(err), ""
	}
	return reply(d), d.Refusal
}

const okReply = `{"ok":true}`

// leadingCall reads the call id of a header the glue wrote, which starts
// with it: {"call":"…",…}.
func leadingCall(header string) (string, bool) {
	rest, ok := strings.CutPrefix(header, `{"call":"`)
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(rest, `"`)
	return id, ok && id != "" && !strings.ContainsAny(id, `\`)
}

// decode reads a request header into v, strictly: a member v does not
// have is an error, so the page cannot send what the engine ignores, and
// so is a member named in another case or written twice, which
// encoding/json would take.
func decode(op, header string, v any) error {
	d := json.NewDecoder(strings.NewReader(header))
	d.DisallowUnknownFields()
	err := d.Decode(v)
	if err == nil && strings.TrimLeft(header[d.InputOffset():], " \t\r\n") != "" {
		err = errors.New("invalid character after top-level value")
	}
	if err == nil {
		err = exactMembers(header, memberNames(reflect.TypeOf(v).Elem()))
	}
	if err != nil {
		return &engine.Error{Name: engine.TypeError, Message: "veil engine: malformed " + op + " header: " + err.Error()}
	}
	return nil
}

// exactMembers checks the names of the members of the JSON object header,
// which encoding/json has read: each is one of names, spelled exactly,
// and appears once.
func exactMembers(header string, names map[string]bool) error {
	d := json.NewDecoder(strings.NewReader(header))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil // null: encoding/json left v as it was
	}
	seen := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		switch {
		case !names[k]:
			return fmt.Errorf("json: unknown field %q", k)
		case seen[k]:
			return fmt.Errorf("json: field %q twice", k)
		}
		seen[k] = true
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// memberNames are the JSON member names of struct type t.
func memberNames(t reflect.Type) map[string]bool {
	if names, ok := memberCache.Load(t); ok {
		return names.(map[string]bool)
	}
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if name != "-" {
			names[name] = true
		}
	}
	memberCache.Store(t, names)
	return names
}

// memberCache holds memberNames' answers.
var memberCache sync.Map

func reply(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return Failure
	}
	return string(b)
}

// errorReply is the reply header for err. An error that is not an
// *engine.Error is reported as the Failure, without its text.
func errorReply(err error) string {
	var e *engine.Error
	if !errors.As(err, &e) {
		return Failure
	}
	return reply(ErrorReply{e})
}
