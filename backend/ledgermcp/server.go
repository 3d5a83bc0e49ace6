// Package ledgermcp serves the coordination ledger (backend/coord) over the
// Model Context Protocol: six tools (read_claims, make_claim, release_claim,
// read_capsules, append_decision, raise_conflict_pr), each call attributed
// to a HAID spawned for the client (clientInfo.name at initialize, or the
// call's client_identity) and registered. It uses the official SDK's
// server with a transport of ours (Transport) for the dual stdio framing.
package ledgermcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heimdall-tui/heimdall-tui/backend/coord"
)

// Name and Version are the server's serverInfo: Version is the tool
// contract's semver (major: breaking tool shape; minor: additive).
const (
	Name    = "heimdall-ledger-mcp"
	Version = "1.0.0"
)

// Server is the ledger's MCP server for one root HAID.
type Server struct {
	l    *coord.Ledger
	root string // the root HAID clients' HAIDs are spawned from

	mu         sync.Mutex
	registered map[string]bool
}

// New serves ledger l for the agent whose root HAID is root.
func New(l *coord.Ledger, root string) *Server {
	return &Server{l: l, root: root, registered: map[string]bool{}}
}

// MCP builds the SDK server with the six tools.
func (s *Server) MCP(logger *slog.Logger) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Version: Version}, &mcp.ServerOptions{
		Logger:       logger,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: false}},
	})
	for _, t := range s.tools() {
		srv.AddTool(t.tool, t.handler)
	}
	return srv
}

// haid is the identity of a call: its client_identity, else the client's
// name, under the root HAID. A writing tool's call registers it (once per
// process); a read only names it, and creates nothing.
func (s *Server) haid(req *mcp.CallToolRequest, override string) (string, error) {
	name := strings.TrimSpace(override)
	if name == "" && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
			name = p.ClientInfo.Name
		}
	}
	if name == "" {
		name = "mcp-client"
	}
	h := coord.Spawn(s.root, name)
	if !writingTools[req.Params.Name] {
		return h, nil // a read leaves the ledger as it found it: no registration
	}
	s.mu.Lock()
	done := s.registered[h]
	s.mu.Unlock()
	if !done {
		if _, err := s.l.Register(h, ""); err != nil {
			return h, err
		}
		s.mu.Lock()
		s.registered[h] = true
		s.mu.Unlock()
	}
	return h, nil
}

type tool struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
}

// prop is a JSON schema property.
type prop map[string]any

var (
	str      = prop{"type": "string"}
	strArray = prop{"type": "array", "items": prop{"type": "string"}, "minItems": 1}
	identity = prop{"type": "string", "description": "per-call override of the initialize-time client identity (cursor, copilot, claude-code, …) for HAID attribution"}
)

// schema is an object schema with props (client_identity added) and the
// required ones.
func schema(props map[string]prop, required ...string) map[string]any {
	ps := map[string]any{"client_identity": identity}
	for k, v := range props {
		ps[k] = v
	}
	m := map[string]any{"type": "object", "properties": ps, "additionalProperties": false}
	if len(required) > 0 {
		m["required"] = required
	}
	return m
}

// argError is a bad-arguments tool error.
type argError struct{ msg string }

func (e argError) Error() string { return "bad arguments: " + e.msg }

// decode unmarshals a call's arguments strictly into v and checks the
// required fields are present and non-empty.
func decode(raw json.RawMessage, v any, required ...string) error {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = []byte("{}")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return argError{"arguments must be a JSON object"}
	}
	for _, r := range required {
		if v, ok := m[r]; !ok || bytes.Equal(v, []byte("null")) || bytes.Equal(v, []byte(`""`)) || bytes.Equal(v, []byte("[]")) {
			return argError{fmt.Sprintf("%q is required", r)}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return argError{fmt.Sprintf("%q must be %s, not %s", te.Field, jsonType(te.Type.Kind().String()), te.Value)}
		}
		return argError{strings.TrimPrefix(err.Error(), "json: ")}
	}
	return nil
}

func jsonType(kind string) string {
	switch kind {
	case "slice":
		return "an array of strings"
	case "int", "int64":
		return "an integer"
	case "string":
		return "a string"
	}
	return kind
}

// result is a tool result: payload (client_haid added) as JSON text in
// content[0] and as structuredContent.
func result(h string, payload map[string]any, isErr bool) *mcp.CallToolResult {
	payload["client_haid"] = h
	b, _ := json.Marshal(payload)
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: payload,
		IsError:           isErr,
	}
}

// writingTools are the tools that change the ledger: on one connection,
// a request after a call of one is handled once that call is answered
// (Transport), so a read sees the writes sent before it.
var writingTools = map[string]bool{"make_claim": true, "release_claim": true, "append_decision": true, "raise_conflict_pr": true}

// handle wraps a tool's function: decode, attribute, run; errors are tool
// errors ({"error": …, "client_haid": …}, isError).
func handle[A any](s *Server, required []string, ident func(*A) string, fn func(h string, a *A) (map[string]any, error)) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a A
		err := decode(req.Params.Arguments, &a, required...)
		var h string
		if err == nil {
			h, err = s.haid(req, ident(&a))
		} else {
			h, _ = s.haid(req, "")
		}
		if err != nil {
			return result(h, map[string]any{"error": err.Error()}, true), nil
		}
		out, err := fn(h, &a)
		if err != nil {
			return result(h, map[string]any{"error": err.Error()}, true), nil
		}
		return result(h, out, false), nil
	}
}

type identArgs struct {
	ClientIdentity string `json:"client_identity"`
}

func (a *identArgs) ident() string { return a.ClientIdentity }

type makeClaimArgs struct {
	identArgs
	Surfaces   []string `json:"surfaces"`
	Task       string   `json:"task"`
	TTLMinutes int      `json:"ttl_minutes"`
}

type releaseArgs struct {
	identArgs
	HAID string `json:"haid"`
}

type capsulesArgs struct {
	identArgs
	ID string `json:"id"`
}

type decisionArgs struct {
	identArgs
	Title string `json:"title"`
	Body  string `json:"body"`
}

type conflictArgs struct {
	identArgs
	ID               string   `json:"id"`
	Title            string   `json:"title"`
	Surfaces         []string `json:"surfaces"`
	DisplacedHAID    string   `json:"displaced_haid"`
	OverridingIntent string   `json:"overriding_intent"`
	DisplacedIntent  string   `json:"displaced_intent"`
}

func (s *Server) tools() []tool {
	return []tool{
		{&mcp.Tool{Name: "read_claims", Description: "List the active (unexpired) claims on file surfaces: {active_claims, count}.",
			InputSchema: schema(nil)},
			handle(s, nil, (*identArgs).ident, func(h string, _ *identArgs) (map[string]any, error) {
				cls, err := s.l.Claims()
				if cls == nil {
					cls = []coord.Claim{}
				}
				return map[string]any{"active_claims": cls, "count": len(cls)}, err
			})},
		{&mcp.Tool{Name: "make_claim", Description: "Claim file surfaces (glob patterns) for a task. Refused, naming the holder, if a surface overlaps another agent's active claim.",
			InputSchema: schema(map[string]prop{"surfaces": strArray, "task": str, "ttl_minutes": {"type": "integer", "minimum": 1}}, "surfaces", "task")},
			handle(s, []string{"surfaces", "task"}, func(a *makeClaimArgs) string { return a.ClientIdentity }, func(h string, a *makeClaimArgs) (map[string]any, error) {
				if a.TTLMinutes < 0 {
					return nil, argError{`"ttl_minutes" must be positive`}
				}
				c, err := s.l.Claim(h, a.Surfaces, a.Task+" ["+h+"]", a.TTLMinutes)
				if err != nil {
					return nil, err
				}
				return map[string]any{"claim": c}, nil
			})},
		{&mcp.Tool{Name: "release_claim", Description: "Release a claim: the caller's own, or that of haid.",
			InputSchema: schema(map[string]prop{"haid": str})},
			handle(s, nil, func(a *releaseArgs) string { return a.ClientIdentity }, func(h string, a *releaseArgs) (map[string]any, error) {
				who := h
				if a.HAID != "" {
					who = a.HAID
				}
				had, err := s.l.Release(who)
				return map[string]any{"released": had, "haid": who}, err
			})},
		{&mcp.Tool{Name: "read_capsules", Description: "Read completed-work and protocol capsules (ledger/completed/*.md, protocol/capsules/*.md), all or one id.",
			InputSchema: schema(map[string]prop{"id": str})},
			handle(s, nil, func(a *capsulesArgs) string { return a.ClientIdentity }, func(h string, a *capsulesArgs) (map[string]any, error) {
				docs, err := s.l.CapsuleDocs(a.ID)
				if docs == nil {
					docs = []coord.CapsuleDoc{}
				}
				return map[string]any{"capsules": docs, "count": len(docs)}, err
			})},
		{&mcp.Tool{Name: "append_decision", Description: "Append a HAID-attributed, timestamped decision to ledger/decisions.md (append-only).",
			InputSchema: schema(map[string]prop{"title": str, "body": str}, "title", "body")},
			handle(s, []string{"title", "body"}, func(a *decisionArgs) string { return a.ClientIdentity }, func(h string, a *decisionArgs) (map[string]any, error) {
				d, err := s.l.AppendDecision(h, a.Title, a.Body)
				return map[string]any{"decision": d, "path": s.l.DecisionsPath()}, err
			})},
		{&mcp.Tool{Name: "raise_conflict_pr", Description: "Write a conflict PR (ledger/conflicts/<date>-<id>.md) for surfaces one agent takes over from another, cross-linked from decisions.md; returns its path.",
			InputSchema: schema(map[string]prop{"id": str, "title": str, "surfaces": strArray, "displaced_haid": str, "overriding_intent": str, "displaced_intent": str}, "id", "title", "surfaces")},
			handle(s, []string{"id", "title", "surfaces"}, func(a *conflictArgs) string { return a.ClientIdentity }, func(h string, a *conflictArgs) (map[string]any, error) {
				p, err := s.l.RaiseConflict(h, coord.Conflict{ID: a.ID, Title: a.Title, Surfaces: a.Surfaces,
					DisplacedHAID: a.DisplacedHAID, OverridingIntent: a.OverridingIntent, DisplacedIntent: a.DisplacedIntent})
				return map[string]any{"path": p}, err
			})},
	}
}
