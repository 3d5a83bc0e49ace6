package headless

import (
	"encoding/json"
	"maps"
	"strconv"
	"time"
)

// Usage is a session's token accounting, accumulated from the usage block
// of each claude result event (integer fields only, passed through by
// name, so keys Anthropic adds appear by themselves).
type Usage struct {
	Turns int `json:"turns"`
	// LastTurnAtMs is when the last turn ended (Unix ms; 0: none yet).
	LastTurnAtMs int64            `json:"last_turn_at_ms,omitempty"`
	LastTurn     map[string]int64 `json:"last_turn_usage"`
	Total        map[string]int64 `json:"cumulative_usage"`
	// ContextTokens is the last turn's input side: input_tokens +
	// cache_read_input_tokens + cache_creation_input_tokens.
	ContextTokens int64  `json:"context_tokens"`
	Model         string `json:"model,omitempty"`
}

func (u *Usage) add(raw map[string]json.RawMessage, at time.Time) {
	u.Turns++
	u.LastTurnAtMs = at.UnixMilli()
	u.LastTurn = make(map[string]int64, len(raw))
	if u.Total == nil {
		u.Total = make(map[string]int64, len(raw))
	}
	for k, v := range raw {
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			continue // nested objects, strings
		}
		u.LastTurn[k] = n
		u.Total[k] += n
	}
	u.ContextTokens = u.LastTurn["input_tokens"] + u.LastTurn["cache_read_input_tokens"] + u.LastTurn["cache_creation_input_tokens"]
}

func (u Usage) clone() Usage {
	u.LastTurn = maps.Clone(u.LastTurn)
	u.Total = maps.Clone(u.Total)
	return u
}
