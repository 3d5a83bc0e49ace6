package classify

import "time"

// Profiles are the built-in agent rule tables, by classifier name.
var Profiles = map[string]Profile{
	"claude": Claude,
	"codex":  Codex,
	"aider":  Aider,
}

// Pieces of Claude Code's status line, shared by several rules.
const (
	// claudeSpinner is the status line's leading glyph: the animated ✻ ✽ ✶ ✳
	// ✢ ·, * where those glyphs are missing, ● with reduced motion.
	claudeSpinner = `^[✻✽✶✳✢·*●]\s*`
	// claudeWorking is a status line while working: spinner, a verb (or
	// the current todo), "…", then "(" with elapsed time, tokens or the
	// interrupt hint — or nothing, as when the line is truncated.
	claudeWorking = claudeSpinner + `[^()…]{1,80}…\s*(?:\(|$)`
)

// Claude is Claude Code. Its screen, bottom up: footer hints ("? for
// shortcuts", "bypass permissions on"), the prompt box (a ❯ or > row between
// rules or inside a ╭╮ box), and above it the status line while working,
// possibly followed by a todo list. Above that, transcript blocks headed by
// ⏺ (● on some platforms): assistant text, or a tool call "⏺ Bash(…)".
// The footer and prompt box are always there and say nothing by themselves.
var Claude = Profile{
	Name:   "claude",
	Prompt: `^[>❯](?:\s|$)`,
	Block:  `^[⏺●]\s`,
	Rules: []Rule{
		// A question replaces the prompt box; it wins even while the title
		// still spins (the title lags the screen).
		{Name: "proceed", In: Bottom(14), Sub: "Do you want to proceed?", Then: RawNeedsInput},
		{Name: "make-edit", In: Bottom(14), Re: `Do you want to (?:make this edit|create|overwrite|allow)`, Then: RawNeedsInput},
		{Name: "trust-folder", In: Bottom(20), Sub: "Do you trust the files in this folder?", Then: RawNeedsInput},
		{Name: "numbered-yes", In: Bottom(14), Re: `^[❯>]\s*1\.\s*Yes\b`, Then: RawNeedsInput},
		{Name: "tell-claude", In: Bottom(14), Sub: "No, and tell Claude what to do differently", Then: RawNeedsInput},
		{Name: "esc-to-cancel", In: Bottom(4), Re: `^Esc to cancel\b`, Then: RawNeedsInput},

		// Refinements of a busy screen, most specific first.
		{Name: "thinking", In: AbovePrompt(8), Re: claudeWorking + `.*(?i:\bthinking\b)|` + claudeSpinner + `(?i:thinking)…`, IfBusy: true, Then: RawThinking},
		{Name: "tool-call", In: LastBlock(), Re: `^[⏺●]\s*[A-Z][\w-]*(?: \(MCP\))?\(|^[⏺●]\s*\S+ - \S+ \(MCP\)`, IfBusy: true, Then: RawToolUse},
		{Name: "background-shells", In: Bottom(10), Re: `\b\d+ (?:background )?shells? (?:still )?running\b`, Then: RawToolUse},
		{Name: "background-agents", In: Bottom(10), Re: `Waiting for \d+ background agents? to finish`, Then: RawToolUse},

		// Busy signs: the status line (also fixes the row above which
		// streaming text is looked for) and the title spinner.
		{Name: "status-line", In: AbovePrompt(8), Re: claudeWorking, Then: RawBusy},
		{Name: "title-spinner", In: Title(), Re: `^[\x{2800}-\x{28FF}◐◑◒◓]`, Then: RawBusy},

		// Explicit idle signs, for the record: no rule would also be Idle.
		{Name: "done-line", In: AbovePrompt(8), Re: claudeSpinner + `\w+ for (?:\d+h )?(?:\d+m )?\d+s$`, Then: RawIdle},
		{Name: "title-done", In: Title(), Re: `^✳`, Then: RawIdle},
	},
	// Working with nothing growing on screen: the model is producing
	// tokens we cannot see yet, which is thinking as far as a user can tell.
	BusyDefault: RawThinking,
	// Claude Code redraws the spinner several times a second, so a stop in
	// the text is seen within a frame of StreamHold; text arrives in chunks
	// well under a second apart while streaming.
	StreamHold: time.Second,
}

// Codex is OpenAI's Codex CLI. Assumptions (from its TUI, not verified on
// every version): while working a status row reads "Working (12s • esc to
// interrupt)", led by a spinner or "•"; the model's reasoning shows as
// "Thinking" in that row; running a command shows a "Running …" / "⚡ Running"
// block; approvals ask "Allow command?" or "Would you like to run the
// following command?" with choices led by ▌ or › ("▌ Yes", "› 1. Yes,
// proceed"); the prompt row starts with ▌ or ›.
var Codex = Profile{
	Name:   "codex",
	Prompt: `^[▌›>](?:\s|$)`,
	Block:  `^(?:[•⏺⚡]|>_)\s`,
	Rules: []Rule{
		{Name: "allow-command", In: Bottom(14), Re: `Allow command\?|Would you like to (?:run the following command|make the following edits)\?`, Then: RawNeedsInput},
		{Name: "approve-choice", In: Bottom(10), Re: `^[▌›>]\s*(?:\d+\.\s*)?(?:Yes|Approve)\b`, Then: RawNeedsInput},
		{Name: "confirm-keys", In: Bottom(4), Re: `(?i)press enter to confirm or esc to cancel`, Then: RawNeedsInput},

		{Name: "thinking", In: Bottom(8), Re: `(?i)^(?:[\x{2800}-\x{28FF}•◦]\s*)?thinking\b.*(?:esc to interrupt|\(\d+s)`, IfBusy: true, Then: RawThinking},
		{Name: "running", In: LastBlock(), Re: `^(?:[•⏺⚡]|>_)\s*Running\b`, IfBusy: true, Then: RawToolUse},

		{Name: "status-line", In: Bottom(8), Re: `(?i)^(?:[\x{2800}-\x{28FF}•◦]\s*)?\w+.*\((?:\d+[hms].*)?esc to interrupt\)`, Then: RawBusy},
		{Name: "esc-interrupt", In: Bottom(8), Sub: "esc to interrupt", Then: RawBusy},
	},
	BusyDefault: RawThinking,
	StreamHold:  time.Second,
}

// Aider is aider. Assumptions: it renders inline without a status bar. Idle
// is its input prompt as the last row: "> ", or a mode prefix such as
// "ask> ", "architect> ", "multi> ". While waiting for the model it shows a
// spinner row "⠋ Waiting for <model>" (or "░█ Waiting for LLM"); while the
// reply streams, text grows at the bottom with no prompt row; "/run" shows
// "Running <cmd>". Questions end in "(Y)es/(N)o …:" with a default in
// brackets.
var Aider = Profile{
	Name: "aider",
	// No Prompt: the echoed "> request" rows in the transcript look like the
	// prompt, and streaming text must count as "above" wherever it is.
	Rules: []Rule{
		{Name: "yes-no", In: Bottom(2), Re: `\(Y\)es/\(N\)o\b.*(?:\]|:)\s*$`, Then: RawNeedsInput},

		{Name: "running", In: Bottom(6), Re: `^Running\s\S`, IfBusy: true, Then: RawToolUse},

		{Name: "waiting-for", In: Bottom(2), Re: `^(?:[\x{2800}-\x{28FF}░▒▓█]+\s*)?Waiting for\b`, Then: RawBusy},
		// No prompt on the last row: aider is printing. This also calls the
		// startup banner busy, for the second it takes.
		// A prompt row with typed text is still the prompt.
		{Name: "no-prompt", In: Bottom(1), Re: `^(?:[\w-]+)?>(?:\s|$)`, Not: true, Then: RawBusy},
	},
	BusyDefault: RawThinking,
	StreamHold:  time.Second,
}
