package blemees

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// OpenRequest is blemeesd.open (§5.4). Unset fields (absent or null) are
// nil and produce no flag.
type OpenRequest struct {
	ID          string `json:"id"`
	SessionID   string `json:"session_id"`
	Resume      bool   `json:"resume"`
	LastSeenSeq *int64 `json:"last_seen_seq"`

	Model                              *string         `json:"model"`
	SystemPrompt                       *string         `json:"system_prompt"`
	AppendSystemPrompt                 *string         `json:"append_system_prompt"`
	Tools                              *string         `json:"tools"`
	DisallowedTools                    []string        `json:"disallowed_tools"`
	PermissionMode                     *string         `json:"permission_mode"`
	Cwd                                *string         `json:"cwd"`
	AddDir                             []string        `json:"add_dir"`
	Effort                             *string         `json:"effort"`
	Agent                              *string         `json:"agent"`
	Agents                             json.RawMessage `json:"agents"`
	MCPConfig                          []string        `json:"mcp_config"`
	StrictMCPConfig                    *bool           `json:"strict_mcp_config"`
	Settings                           *string         `json:"settings"`
	SettingSources                     *string         `json:"setting_sources"`
	PluginDir                          []string        `json:"plugin_dir"`
	Betas                              []string        `json:"betas"`
	ExcludeDynamicSystemPromptSections *bool           `json:"exclude_dynamic_system_prompt_sections"`
	MaxBudgetUSD                       *float64        `json:"max_budget_usd"`
	JSONSchema                         json.RawMessage `json:"json_schema"`
	FallbackModel                      *string         `json:"fallback_model"`
	SessionName                        *string         `json:"session_name"`
	SessionPersistence                 *bool           `json:"session_persistence"`
	IncludePartialMessages             *bool           `json:"include_partial_messages"`
	ReplayUserMessages                 *bool           `json:"replay_user_messages"`
}

// refusedUnsafe are open fields naming flags the daemon never passes.
var refusedUnsafe = []string{"dangerously_skip_permissions", "allow_dangerously_skip_permissions", "bare", "continue", "from_pr"}

// unsafeField is the refused field a key names, however it is spelled
// (dangerously_skip_permissions, dangerouslySkipPermissions,
// --dangerously-skip-permissions…), or "".
func unsafeField(key string) string {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			if r >= 'A' && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return -1
		}, s)
	}
	k := norm(key)
	for _, f := range refusedUnsafe {
		if norm(f) == k {
			return f
		}
	}
	return ""
}

// refusedOwned are open fields the daemon owns.
var refusedOwned = []string{"input_format", "output_format"}

var permissionModes = []string{"default", "acceptEdits", "bypassPermissions", "plan"}

// ParseOpen decodes a blemeesd.open frame. It refuses fields naming unsafe
// flags (unsafe_flag), daemon-owned fields and ill-typed ones
// (invalid_message). Values are checked by the session manager, which
// refuses unsafe flags passed as values.
func ParseOpen(line []byte) (*OpenRequest, *Error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return nil, Errorf(CodeInvalidMessage, "open: "+err.Error())
	}
	for k := range fields {
		if f := unsafeField(k); f != "" {
			return nil, Errorf(CodeUnsafeFlag, fmt.Sprintf("open: %q is refused", f))
		}
	}
	for _, f := range refusedOwned {
		if _, ok := fields[f]; ok {
			return nil, Errorf(CodeInvalidMessage, fmt.Sprintf("open: %q is fixed to stream-json by the daemon", f))
		}
	}
	var o OpenRequest
	if err := json.Unmarshal(line, &o); err != nil {
		return nil, Errorf(CodeInvalidMessage, "open: "+err.Error())
	}
	switch {
	case o.SessionID == "":
		return nil, Errorf(CodeInvalidMessage, "open: session_id is required")
	case strings.HasPrefix(o.SessionID, "-"):
		return nil, Errorf(CodeInvalidMessage, "open: session_id may not start with \"-\"")
	case o.LastSeenSeq != nil && *o.LastSeenSeq < 0:
		return nil, Errorf(CodeInvalidMessage, "open: last_seen_seq must be ≥ 0")
	case o.PermissionMode != nil && !slices.Contains(permissionModes, *o.PermissionMode):
		return nil, Errorf(CodeInvalidMessage, fmt.Sprintf("open: permission_mode %q is not one of %v", *o.PermissionMode, permissionModes))
	case o.MaxBudgetUSD != nil && *o.MaxBudgetUSD < 0:
		return nil, Errorf(CodeInvalidMessage, "open: max_budget_usd must be ≥ 0")
	}
	var err error
	if o.Agents, err = objectOrString(o.Agents); err != nil {
		return nil, Errorf(CodeInvalidMessage, "open: agents: "+err.Error())
	}
	if o.JSONSchema, err = objectOrString(o.JSONSchema); err != nil {
		return nil, Errorf(CodeInvalidMessage, "open: json_schema: "+err.Error())
	}
	return &o, nil
}

// objectOrString checks an object-or-string field; null is unset (nil).
func objectOrString(v json.RawMessage) (json.RawMessage, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	if v[0] != '{' && v[0] != '"' {
		return nil, fmt.Errorf("must be an object or a string")
	}
	return v, nil
}

// cliValue is an object-or-string field's argument: the string, or the
// object as compact JSON.
func cliValue(v json.RawMessage) string {
	if v[0] == '"' {
		var s string
		json.Unmarshal(v, &s)
		return s
	}
	var b bytes.Buffer
	json.Compact(&b, v)
	return b.String()
}

// Args maps the request's fields to claude's flags (§5.4), in the table's
// order; cwd is the working directory (Dir), not a flag, and the flags the
// daemon owns (-p, --verbose, formats, --session-id/--resume) are not
// included. Empty lists produce no flag.
//
// Every value is glued to its flag (`--model=opus`; a list as the flag
// repeated, `--add-dir=/a --add-dir=/b`, which claude's parser gathers as
// it does `--add-dir /a /b`), so that no value, whatever it starts with,
// can be read as a flag of its own: a list value "--resume" after
// `--add-dir /a` would be. For the same reason session_name is --name
// (the long form of the table's -n).
func (o *OpenRequest) Args() []string {
	var a []string
	str := func(flag string, v *string) {
		if v != nil {
			a = append(a, flag+"="+*v)
		}
	}
	list := func(flag string, v []string) {
		for _, x := range v {
			a = append(a, flag+"="+x)
		}
	}
	flag := func(name string, v *bool) {
		if v != nil && *v {
			a = append(a, name)
		}
	}
	str("--model", o.Model)
	str("--system-prompt", o.SystemPrompt)
	str("--append-system-prompt", o.AppendSystemPrompt)
	str("--tools", o.Tools)
	list("--disallowedTools", o.DisallowedTools)
	str("--permission-mode", o.PermissionMode)
	list("--add-dir", o.AddDir)
	str("--effort", o.Effort)
	str("--agent", o.Agent)
	if o.Agents != nil {
		a = append(a, "--agents="+cliValue(o.Agents))
	}
	list("--mcp-config", o.MCPConfig)
	flag("--strict-mcp-config", o.StrictMCPConfig)
	str("--settings", o.Settings)
	str("--setting-sources", o.SettingSources)
	list("--plugin-dir", o.PluginDir)
	list("--betas", o.Betas)
	flag("--exclude-dynamic-system-prompt-sections", o.ExcludeDynamicSystemPromptSections)
	if o.MaxBudgetUSD != nil {
		a = append(a, "--max-budget-usd="+strconv.FormatFloat(*o.MaxBudgetUSD, 'f', -1, 64))
	}
	if o.JSONSchema != nil {
		a = append(a, "--json-schema="+cliValue(o.JSONSchema))
	}
	str("--fallback-model", o.FallbackModel)
	str("--name", o.SessionName)
	if o.SessionPersistence != nil && !*o.SessionPersistence {
		a = append(a, "--no-session-persistence")
	}
	flag("--include-partial-messages", o.IncludePartialMessages)
	flag("--replay-user-messages", o.ReplayUserMessages)
	return a
}

// Dir is the session's working directory ("": the daemon's).
func (o *OpenRequest) Dir() string {
	if o.Cwd == nil {
		return ""
	}
	return *o.Cwd
}

// LastSeen is the replay anchor: -1 when last_seen_seq is absent (replay
// the whole ring).
func (o *OpenRequest) LastSeen() int64 {
	if o.LastSeenSeq == nil {
		return -1
	}
	return *o.LastSeenSeq
}
