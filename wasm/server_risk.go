//go:build js && wasm

package main

import (
	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/risk"
)

// riskOp answers the ops of the risk policy:
//
//   - "decide"    header {"name", "resolved"?: annotations, "resolveFailed"?}
//     body = input JSON -> header: the engine's Decision; body: the agent
//     view of a blocked call, which is over
//   - "settle"    header {"call", "approved"} -> {"entry"}
//   - "configure" header = the policy (a risk.Config) -> {"ok":true}
//   - "trust"     -> the session's trust state
//   - "decisions" -> {"decisions": [...]}
func (s *server) riskOp(e *engine.Engine, op, header, body string) (string, string) {
	switch op {
	case "decide":
		hd, err := decodeDecide(header)
		if err != nil {
			return errorReply(err), ""
		}
		d, err := e.Decide(hd.Name, body, engine.Resolution{Annotations: string(hd.Resolved), Failed: hd.ResolveFailed})
		if err != nil {
			return errorReply(err), ""
		}
		return reply(d), d.Refusal
	case "settle":
		var hd struct {
			Call     string `json:"call"`
			Approved bool   `json:"approved"`
		}
		if err := decode(header, &hd); err != nil {
			return errorReply(err), ""
		}
		entry, err := e.Settle(hd.Call, hd.Approved)
		if err != nil {
			return errorReply(err), ""
		}
		return reply(struct {
			Entry risk.Entry `json:"entry"`
		}{entry}), ""
	case "configure":
		if err := e.Configure(header); err != nil {
			return errorReply(err), ""
		}
		return ok, ""
	case "trust":
		return reply(e.Trust()), ""
	default: // "decisions"
		return reply(struct {
			Decisions []risk.Entry `json:"decisions"`
		}{nonNil(e.Decisions())}), ""
	}
}
