package ops

import (
	"reflect"
	"sync"
	"time"

	"github.com/veilmcp/veil/wasm/engine"
)

// Server answers the ops. Its engine is created by Init. It is safe for
// concurrent use.
type Server struct {
	host engine.Options

	mu     sync.Mutex
	eng    *engine.Engine
	exited bool
	// heard are the unknown annotations a registration's notes named.
	heard map[string]bool
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
	m, ok := methods[op]
	if !ok {
		return errorReply(&engine.Error{Name: engine.NotSupportedError, Message: "veil engine: unknown op " + op}), ""
	}
	return m.answer(s, e, op, header, body)
}

// Exited reports whether the server has answered Exit.
func (s *Server) Exited() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exited
}

// init answers Init, which needs no engine: it makes one.
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
	s.eng = e
	s.mu.Unlock()
	return reply(InitReply{Trust: e.Trust()}), ""
}

// A method answers one op on the server's engine: the op's entry in
// the table, methods. request is the type its header is read into, and
// reply the type of its reply header (Shapes).
type method struct {
	request, reply reflect.Type
	answer         func(s *Server, e *engine.Engine, op, header, body string) (replyHeader, replyBody string)
}

// newMethod is the method that reads the op's header with read and
// answers the request with answer: the one decode and error path. A
// header that cannot be read, or an answer that fails, is the error
// reply, with an empty body. Reply is the type of what answer writes in
// its reply header, which TestReplies holds it to.
func newMethod[Req, Reply any](read func(op, header string) (Req, error), answer func(s *Server, e *engine.Engine, r Req, body string) (string, string, error)) method {
	return method{reflect.TypeFor[Req](), reflect.TypeFor[Reply](), func(s *Server, e *engine.Engine, op, header, body string) (string, string) {
		r, err := read(op, header)
		if err != nil {
			return errorReply(err), ""
		}
		h, b, err := answer(s, e, r, body)
		if err != nil {
			return errorReply(err), ""
		}
		return h, b
	}}
}

// methods are the ops an initialized engine answers, each with how its
// header is read (header.go) and the method that answers it
// (methods.go). Init and Exit, which change the server rather than ask
// its engine, are Handle's.
var methods = map[string]method{
	Register:   newMethod[RegisterRequest, RegisterReply](strict, (*Server).register),
	Unregister: newMethod[UnregisterRequest, OKReply](strict, (*Server).unregister),
	Decide:     newMethod[DecideRequest, DecideReply](decodeDecide, (*Server).decide),
	Resolve:    newMethod[ResolveRequest, DecideReply](decodeResolve, (*Server).resolve),
	Settle:     newMethod[SettleRequest, SettleReply](strict, (*Server).settle),
	Output:     newMethod[OutputRequest, OutputReply](decodeOutput, (*Server).output),
	Configure:  newMethod[string, ConfigureReply](raw, (*Server).configure),
	Decisions:  newMethod[struct{}, DecisionsReply](none, (*Server).decisions),
	Items:      newMethod[struct{}, ItemsReply](none, (*Server).items),
	Reveal:     newMethod[HandleRequest, RevealReply](strict, (*Server).reveal),
	Forget:     newMethod[HandleRequest, OKReply](strict, (*Server).forget),
	Sweep:      newMethod[struct{}, OKReply](none, (*Server).sweep),
	Scrub:      newMethod[ScrubRequest, OKReply](strict, (*Server).scrub),
	Foreign:    newMethod[ForeignRequest, OKReply](strict, (*Server).foreign),
	Withheld:   newMethod[struct{}, WithheldReply](none, (*Server).withheld),
	Stats:      newMethod[StatsRequest, StatsReply](strict, (*Server).stats),
}

const okReply = `{"ok":true}`
