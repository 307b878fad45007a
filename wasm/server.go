//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/risk"
)

// sweepEvery is how often expired held values are wiped.
const sweepEvery = 30 * time.Second

// failure is the reply to anything that went wrong inside the engine: it
// says nothing about the input or the output.
const failure = `{"error":{"name":"OperationError","message":"engine failure"}}`

// server answers the ops of the JavaScript protocol. Its engine is created
// by "init".
type server struct {
	eng atomic.Pointer[engine.Engine]
	// exited is set by the "exit" op; done is then closed.
	exited bool
	done   chan struct{}
}

// errExited answers every op after "exit".
var errExited = &engine.Error{Name: "InvalidStateError", Message: "veil engine: exited"}

// handle answers one op. It never panics.
func (s *server) handle(op, header, body string) (string, string) {
	return safely(func() (string, string) { return s.dispatch(op, header, body) })
}

// safely runs f, turning a panic into the generic failure reply.
func safely(f func() (string, string)) (h, b string) {
	defer func() {
		if recover() != nil {
			h, b = failure, ""
		}
	}()
	return f()
}

func (s *server) dispatch(op, header, body string) (string, string) {
	if header == "" {
		header = "{}"
	}
	if op == "init" {
		return s.init(header)
	}
	if op == "exit" {
		s.exited = true
		return ok, ""
	}
	e := s.eng.Load()
	if e == nil {
		return errorReply(&engine.Error{Name: "InvalidStateError", Message: "veil engine: not initialized"}), ""
	}
	switch op {
	case "register":
		r, err := e.RegisterTool(body)
		if err != nil {
			return errorReply(err), ""
		}
		if len(r.Unknown) == 0 {
			return ok, r.Definition
		}
		return reply(struct {
			Unknown []string `json:"unknown"`
		}{r.Unknown}), r.Definition
	case "unregister":
		var hd struct {
			Name string `json:"name"`
		}
		if err := decode(header, &hd); err != nil {
			return errorReply(err), ""
		}
		return reply(struct {
			OK bool `json:"ok"`
		}{e.Unregister(hd.Name)}), ""
	case "input":
		var hd struct {
			Name string `json:"name"`
		}
		if err := decode(header, &hd); err != nil {
			return errorReply(err), ""
		}
		if err := e.CheckInput(hd.Name, body); err != nil {
			return errorReply(err), ""
		}
		return ok, ""
	case "decide", "settle", "configure", "trust", "decisions":
		return s.riskOp(e, op, header, body)
	case "output":
		hd, err := decodeOutput(header)
		if err != nil {
			return errorReply(err), ""
		}
		if !knownKind(hd.Kind) {
			return errorReply(&engine.Error{Name: "TypeError", Message: "veil engine: unknown outcome kind " + string(hd.Kind)}), ""
		}
		r := e.Output(hd.Name, engine.Outcome{Kind: hd.Kind, Data: body, Call: hd.Call})
		rp := outputReply{
			CallID:    r.CallID,
			Held:      r.Held,
			Invalid:   nonNil(r.Invalid),
			Error:     r.Err,
			Trust:     r.Trust,
			Malicious: r.Malicious,
			Same:      r.Unchanged,
			Reserved:  r.Reserved,
		}
		return rp.json(), agentBody(r)
	case "items":
		return reply(struct {
			Items []engine.Item `json:"items"`
		}{nonNil(e.Items())}), ""
	case "reveal":
		var hd struct {
			Handle string `json:"handle"`
		}
		if err := decode(header, &hd); err != nil {
			return errorReply(err), ""
		}
		v, err := e.Reveal(hd.Handle)
		if err != nil {
			return errorReply(err), ""
		}
		return reply(struct {
			Kind      string `json:"kind"`
			RedeemURL string `json:"redeemUrl,omitempty"`
		}{v.Kind, v.RedeemURL}), v.Value
	case "forget":
		var hd struct {
			Handle string `json:"handle"`
		}
		if err := decode(header, &hd); err != nil {
			return errorReply(err), ""
		}
		return reply(struct {
			OK bool `json:"ok"`
		}{e.Forget(hd.Handle)}), ""
	case "sweep":
		e.Sweep()
		return ok, ""
	}
	return errorReply(&engine.Error{Name: "NotSupportedError", Message: "veil engine: unknown op " + op}), ""
}

// initHeader is the "init" op's header.
type initHeader struct {
	Origin           string  `json:"origin"`
	BaseURL          string  `json:"baseURL"`
	MaxOutputBytes   int     `json:"maxOutputBytes"`
	HoldTTLms        float64 `json:"holdTTLms"`
	MaxReferenceTTLs float64 `json:"maxReferenceTTLs"`
	RedeemPath       string  `json:"redeemPath"`
}

// init creates the engine. Calling it again replaces the engine and drops
// everything the old one held.
func (s *server) init(header string) (string, string) {
	var hd initHeader
	if err := decode(header, &hd); err != nil {
		return errorReply(err), ""
	}
	s.eng.Store(engine.New(&engine.Options{
		Origin:          hd.Origin,
		BaseURL:         hd.BaseURL,
		MaxOutputBytes:  hd.MaxOutputBytes,
		RedeemPath:      hd.RedeemPath,
		HoldTTL:         time.Duration(hd.HoldTTLms * float64(time.Millisecond)),
		MaxReferenceTTL: time.Duration(hd.MaxReferenceTTLs * float64(time.Second)),
		Regexp:          compileRegexp,
		Rand:            browserRand{},
	}))
	return ok, ""
}

// startSweeper wipes expired held values until the returned func is called.
func (s *server) startSweeper() (stop func()) {
	t := time.NewTicker(sweepEvery)
	quit := make(chan struct{})
	go func() {
		for {
			select {
			case <-t.C:
				s.handle("sweep", "", "")
			case <-quit:
				return
			}
		}
	}()
	return func() {
		t.Stop()
		close(quit)
	}
}

// outputReply is the "output" op's reply header.
type outputReply struct {
	CallID string `json:"callId"`
	// Held counts what the call withheld; the list can run to thousands
	// of items, so the page asks for it with the "items" op.
	Held    int           `json:"held"`
	Invalid []string      `json:"invalid"`
	Error   *engine.Error `json:"error,omitempty"`
	// Trust is the session's trust state, when the call changed it.
	Trust *risk.State `json:"trust,omitempty"`
	// Malicious: the result was flagged with maliciousActivityHint.
	Malicious bool `json:"malicious,omitempty"`
	// Same: the agent view is the output as the page sent it; the body is
	// empty and the page answers with its own string.
	Same bool `json:"same,omitempty"`
	// Reserved counts the members under the runtime's own _meta prefix
	// the result carried, which were removed.
	Reserved int `json:"reserved,omitempty"`
}

// agentBody is the "output" reply's body: the agent view, or nothing when
// it is the page's own output, which need not cross back.
func agentBody(r engine.Result) string {
	if r.Unchanged {
		return ""
	}
	return r.Agent
}

const ok = `{"ok":true}`

func knownKind(k engine.OutcomeKind) bool {
	switch k {
	case engine.Returned, engine.Text, engine.Empty, engine.Threw,
		engine.Unserializable, engine.TimedOut, engine.Aborted, engine.Refused:
		return true
	}
	return false
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func decode(header string, v any) error {
	if err := json.Unmarshal([]byte(header), v); err != nil {
		return &engine.Error{Name: "TypeError", Message: "veil engine: malformed header: " + err.Error()}
	}
	return nil
}

func reply(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return failure
	}
	return string(b)
}

// errorReply is the reply header for err. An error that is not an
// *engine.Error is reported as an OperationError without its text.
func errorReply(err error) string {
	var e *engine.Error
	if !errors.As(err, &e) {
		return failure
	}
	return reply(struct {
		Error *engine.Error `json:"error"`
	}{e})
}
