package ops

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/internal/jsonx"
)

// This file holds the methods of the table (server.go): each answers one
// op's request, read already, with the reply header and body, or fails
// with the error its reply carries.

func (s *Server) register(e *engine.Engine, r RegisterRequest, body string) (string, string, error) {
	reg, err := e.RegisterTool(body, engine.Owner{Registration: r.Registration, Resolve: r.Resolve})
	if err != nil {
		return "", "", err
	}
	var notes []string
	for _, k := range reg.Unknown {
		if !s.heard[k] {
			if s.heard == nil {
				s.heard = map[string]bool{}
			}
			s.heard[k] = true
			notes = append(notes, fmt.Sprintf("annotations.%s (tool %s) is not an annotation the runtime reads; it is passed on as it is", k, jsonx.AppendString(nil, reg.Name)))
		}
	}
	if len(notes) == 0 {
		return "{}", reg.Definition, nil
	}
	return reply(RegisterReply{Notes: notes}), reg.Definition, nil
}

func (s *Server) unregister(e *engine.Engine, r UnregisterRequest, _ string) (string, string, error) {
	return reply(OKReply{e.UnregisterOwned(r.Name, r.Registration)}), "", nil
}

func (s *Server) decide(e *engine.Engine, r DecideRequest, body string) (string, string, error) {
	d, err := e.Decide(r.Name, body, engine.Resolution{})
	if err != nil {
		return "", "", err
	}
	return reply(DecideReply{d, d.Owner.Registration}), d.Refusal, nil
}

// decodeResolve reads a Resolve header. One that cannot be read (nested
// too deep, say) but names its call is read as resolve failing: the call
// is blocked, as when resolve fails, rather than left open.
func decodeResolve(op, header string) (ResolveRequest, error) {
	r, err := strict[ResolveRequest](op, header)
	if err != nil {
		if id, ok := leadingCall(header); ok {
			return ResolveRequest{Call: id, Failed: true}, nil
		}
	}
	return r, err
}

func (s *Server) resolve(e *engine.Engine, r ResolveRequest, _ string) (string, string, error) {
	d, err := e.Resolve(r.Call, engine.Resolution{Annotations: string(r.Resolved), Failed: r.Failed})
	if err != nil {
		return "", "", err
	}
	return reply(DecideReply{d, d.Owner.Registration}), d.Refusal, nil
}

func (s *Server) settle(e *engine.Engine, r SettleRequest, _ string) (string, string, error) {
	entry, err := e.Settle(r.Call, r.Approved)
	if err != nil {
		return "", "", err
	}
	return reply(SettleReply{entry}), "", nil
}

func (s *Server) output(e *engine.Engine, r OutputRequest, body string) (string, string, error) {
	if !slices.Contains(Kinds, r.Kind) {
		// The call is closed all the same: no output will come.
		e.Output(engine.Outcome{Kind: engine.Aborted, Call: r.Call})
		return "", "", &engine.Error{Name: engine.TypeError, Message: "veil engine: unknown outcome kind " + string(r.Kind)}
	}
	res := e.Output(engine.Outcome{Kind: r.Kind, Data: body, Call: r.Call})
	rp := OutputReply{
		Held:      res.Held,
		Invalid:   jsonx.NonNil(res.Invalid),
		Error:     res.Err,
		Trust:     res.Trust,
		Malicious: res.Malicious,
		Same:      res.Unchanged,
		Reserved:  res.Reserved,
		Warnings:  outputWarnings(res),
		Scrubbing: res.Scrubbing,
	}
	if res.Unchanged {
		// The page answers with its own string, which need not cross
		// back.
		return rp.json(), "", nil
	}
	return rp.json(), res.Agent, nil
}

// outputWarnings says on the console, in counts, what a call's output
// had that the page's events give in full.
func outputWarnings(res engine.Result) []string {
	var w []string
	if n := len(res.Invalid); n > 0 {
		w = append(w, fmt.Sprintf("returned %d invalid secret reference(s); see the invalidreference event", n))
	}
	if res.Reserved > 0 {
		w = append(w, fmt.Sprintf("returned %d _meta key(s) under %s, which only the runtime writes; they were removed", res.Reserved, engine.ReservedPrefix))
	}
	return w
}

func (s *Server) configure(e *engine.Engine, config, _ string) (string, string, error) {
	if err := e.Configure(config); err != nil {
		return "", "", err
	}
	return reply(ConfigureReply{OK: true, Settings: e.Settings()}), "", nil
}

func (s *Server) decisions(e *engine.Engine, _ struct{}, _ string) (string, string, error) {
	return reply(DecisionsReply{jsonx.NonNil(e.Decisions())}), "", nil
}

func (s *Server) items(e *engine.Engine, _ struct{}, _ string) (string, string, error) {
	return reply(ItemsReply{jsonx.NonNil(e.Items())}), "", nil
}

func (s *Server) reveal(e *engine.Engine, r HandleRequest, _ string) (string, string, error) {
	v, err := e.Reveal(r.Handle)
	if err != nil {
		return "", "", err
	}
	return reply(RevealReply{Kind: v.Kind, RedeemURL: v.RedeemURL}), v.Value, nil
}

func (s *Server) forget(e *engine.Engine, r HandleRequest, _ string) (string, string, error) {
	return reply(OKReply{e.Forget(r.Handle)}), "", nil
}

func (s *Server) sweep(e *engine.Engine, _ struct{}, _ string) (string, string, error) {
	e.Sweep()
	return okReply, "", nil
}

func (s *Server) scrub(e *engine.Engine, r ScrubRequest, body string) (string, string, error) {
	var values []string
	if err := json.Unmarshal([]byte(body), &values); err != nil {
		return "", "", &engine.Error{Name: engine.TypeError, Message: "veil engine: the scrub body is not a JSON array of strings"}
	}
	if err := e.Scrub(r.Tool, values); err != nil {
		return "", "", err
	}
	return okReply, "", nil
}

func (s *Server) withheld(e *engine.Engine, _ struct{}, body string) (string, string, error) {
	var values []string
	if err := json.Unmarshal([]byte(body), &values); err != nil {
		return "", "", &engine.Error{Name: engine.TypeError, Message: "veil engine: the withheld body is not a JSON array of strings"}
	}
	w, err := e.Withheld(values)
	if err != nil {
		return "", "", err
	}
	return reply(WithheldReply{jsonx.NonNil(w)}), "", nil
}

func (s *Server) foreign(e *engine.Engine, r ForeignRequest, _ string) (string, string, error) {
	e.SetForeign(r.Names)
	return okReply, "", nil
}

func (s *Server) stats(e *engine.Engine, r StatsRequest, _ string) (string, string, error) {
	return reply(stats(e, r.GC)), "", nil
}
