package headless

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Line is one event of Claude Code's stream-json output (a line of its
// stdout, or a blemees/1 claude.* frame) as heimdall reads it. It is the
// one interpreter of that stream: the daemon takes a session's state,
// model and usage from it, the dashboard's transcript view its state and
// entries.
type Line struct {
	// Type is the native type ("system", "stream_event", "assistant",
	// "user", "result"), a frame's "claude." prefix removed.
	Type    string                     `json:"type"`
	Subtype string                     `json:"subtype"`
	Model   string                     `json:"model"`
	IsError bool                       `json:"is_error"`
	Result  string                     `json:"result"`
	Usage   map[string]json.RawMessage `json:"usage"`
	Event   *StreamEvent               `json:"event"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	// IsReplay marks a user message claude echoes back
	// (--replay-user-messages): the user's turn, not a tool result.
	IsReplay          bool `json:"isReplay"`
	PermissionDenials []struct {
		ToolName string `json:"tool_name"`
	} `json:"permission_denials"`
}

// StreamEvent is the part of a `stream_event` line's event that tells
// what is streaming: a content block starting (text, tool_use, thinking)
// and deltas (text_delta with its Text, input_json_delta, …).
type StreamEvent struct {
	Type         string `json:"type"`
	ContentBlock struct {
		Type string `json:"type"`
	} `json:"content_block"`
	Delta struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"delta"`
}

var errNotEvent = errors.New("not a claude event")

// ParseLine reads one event; an error if b is not a JSON object with a
// type.
func ParseLine(b []byte) (Line, error) {
	var l Line
	if err := json.Unmarshal(b, &l); err != nil {
		return l, err
	}
	l.Type = strings.TrimPrefix(l.Type, "claude.")
	if l.Type == "" {
		return l, errNotEvent
	}
	return l, nil
}

// Init reports a system init event (claude started; Model is its model).
func (l *Line) Init() bool { return l.Type == "system" && l.Subtype == "init" }

// TurnStart reports the start of an assistant message.
func (l *Line) TurnStart() bool {
	return l.Type == "stream_event" && l.Event != nil && l.Event.Type == "message_start"
}

// TurnEnd reports a turn's result.
func (l *Line) TurnEnd() bool { return l.Type == "result" }

// State is the state the event puts a session in during a turn: Thinking,
// Streaming or ToolUse from stream events, Idle at the result; ok is false
// for events that say nothing of it.
func (l *Line) State() (st session.State, ok bool) {
	if l.TurnEnd() {
		return session.Idle, true
	}
	if l.Type != "stream_event" || l.Event == nil {
		return 0, false
	}
	switch l.Event.Type {
	case "message_start":
		return session.Thinking, true
	case "content_block_start":
		switch l.Event.ContentBlock.Type {
		case "tool_use", "server_tool_use":
			return session.ToolUse, true
		case "thinking":
			return session.Thinking, true
		}
		return session.Streaming, true
	case "content_block_delta":
		switch l.Event.Delta.Type {
		case "text_delta":
			return session.Streaming, true
		case "thinking_delta":
			return session.Thinking, true
		}
	}
	return 0, false
}

// Delta is a streamed piece of the answer's text ("" if l is none).
func (l *Line) Delta() string {
	if l.Type == "stream_event" && l.Event != nil && l.Event.Type == "content_block_delta" && l.Event.Delta.Type == "text_delta" {
		return l.Event.Delta.Text
	}
	return ""
}

// ItemKind says what an Item of a transcript is.
type ItemKind uint8

const (
	ItemUser       ItemKind = iota // the user's turn (echoed by claude)
	ItemText                       // a completed assistant message's text
	ItemTool                       // a tool call: its name and JSON arguments
	ItemToolResult                 // a tool's result (IsErr: it failed)
)

// Item is an entry of a transcript an event carries.
type Item struct {
	Kind  ItemKind
	Text  string          // a tool call's: the tool's name
	Input json.RawMessage // a tool call's arguments
	IsErr bool
}

// block is a message content block.
type block struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	Content json.RawMessage `json:"content"`
	IsError bool            `json:"is_error"`
}

// Items are the transcript entries of an assistant or user event: an
// assistant message's texts and tool calls; a user event's tool results,
// or, for a replayed user message, its text.
func (l *Line) Items() []Item {
	if l.Type != "assistant" && l.Type != "user" {
		return nil
	}
	if l.Type == "user" && l.IsReplay {
		var s string
		if json.Unmarshal(l.Message.Content, &s) == nil {
			return []Item{{Kind: ItemUser, Text: s}}
		}
	}
	var blocks []block
	json.Unmarshal(l.Message.Content, &blocks)
	var items []Item
	var user []string
	for _, b := range blocks {
		switch {
		case l.Type == "assistant" && b.Type == "text" && b.Text != "":
			items = append(items, Item{Kind: ItemText, Text: b.Text})
		case l.Type == "assistant" && (b.Type == "tool_use" || b.Type == "server_tool_use"):
			items = append(items, Item{Kind: ItemTool, Text: b.Name, Input: b.Input})
		case l.Type == "user" && b.Type == "tool_result":
			items = append(items, Item{Kind: ItemToolResult, Text: contentText(b.Content), IsErr: b.IsError})
		case l.Type == "user" && b.Type == "text" && l.IsReplay:
			user = append(user, b.Text)
		}
	}
	if len(user) > 0 {
		items = append(items, Item{Kind: ItemUser, Text: strings.Join(user, "\n")})
	}
	return items
}

// Failure is what went wrong with a turn, as its result says: "turn
// failed: <subtype>: <result>" for an error result, "permission denied:
// <tools>" for a turn whose tool calls were denied, else "". failed
// reports the first kind.
func (l *Line) Failure() (msg string, failed bool) {
	if !l.TurnEnd() {
		return "", false
	}
	if l.IsError || (l.Subtype != "" && l.Subtype != "success") {
		msg = "turn failed: " + l.Subtype
		if l.Result != "" {
			msg += ": " + l.Result
		}
		return msg, true
	}
	var denied []string
	for _, d := range l.PermissionDenials {
		denied = append(denied, d.ToolName)
	}
	if len(denied) > 0 {
		return "permission denied: " + strings.Join(denied, ", "), false
	}
	return "", false
}

// contentText is a tool result's content: a string, or its text blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []block
	json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
