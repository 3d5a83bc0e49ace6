package classify

import "time"

// Profiles are the built-in agent rule tables, by classifier name.
var Profiles = map[string]Profile{
	"claude": Claude,
	"codex":  Codex,
	"aider":  Aider,
}

// Pieces of Claude Code's screen, shared by several rules. They are not
// anchored: a rule puts ^ before its whole pattern (see below).
const (
	// claudeGlyph is the status line's leading glyph: one frame of the
	// animated cycle · ✢ ✳ ✶ ✻ ✽, * where those glyphs are missing, ● with
	// reduced motion.
	claudeGlyph = `[✻✽✶✳✢·*●]\s+`
	// claudeWork is the status line's shape: spinner, a message that
	// starts with a letter — one gerund ("Metamorphosing", a user's own
	// spinnerVerbs word, any case) or the current todo ("Fixing the
	// warnings") — and "…", then "(" with elapsed time, tokens or the
	// interrupt hint, or nothing (newer versions; a row cut by wrapping).
	// No word list: Claude Code ships about a hundred verbs and users add
	// their own, so only the shape is stable. The "done" line ("✻ Worked
	// for 1m 12s") has no "…", nor has any idle row that starts with a
	// spinner glyph.
	claudeWork = claudeGlyph + `\pL[^()…]{0,80}…\s*(?:\(|$)`
	// claudeNum is a dialog's numbered option, selected (❯) or not.
	claudeNum = `(?:❯\s*)?\d+\.\s*`
)

// Every row rule below is anchored (^ before the whole pattern: ^(?:A|B),
// never ^A|^B, which Go tries at every column), starts with a literal, or
// has Has: a rule table is read over every row of a flooding screen.
// TestClaudeRulesCheap checks it.
//
// Blocking screens are recognised by a distinctive start of a row, not by
// whole rows: the dashboard sizes a session's terminal to its pane, and at
// 40–50 columns a dialog's question or footer wraps.

// Claude is Claude Code (2.0–2.1). Its screen, bottom up: footer hints
// ("? for shortcuts", "⏵⏵ accept edits on", in 2.1 "esc to interrupt" while
// working), the input box (a ❯ or > row inside a ╭╮ box in 2.0, between two
// rules in 2.1), and above it the status line while working, possibly
// followed by a tip or a todo list. Above that, transcript blocks headed by
// ⏺ (● on some platforms): assistant text, or a tool call "⏺ Bash(…)" with
// "⎿" result rows. A dialog — a permission, a question, a first-run screen,
// or a menu the user opened — replaces the input box, so the prompt line is
// the input box's row and never a dialog's "❯ 1." option.
//
// Order: what blocks the user first (it wins even while the title and a
// stale status line still show work: the title lags the screen), then what
// kind of work, then the busy signs the screen shows, then idle screens
// the title could contradict, then the title.
var Claude = Profile{
	Name: "claude",
	// The input box's row; a numbered option ("❯ 1. Yes") is not one.
	Prompt: `^[>❯](?:\s*$|\s+(?:\D|\d+(?:[^\d.]|\.\S|$)))`,
	Block:  `^[⏺●]\s`,
	Rules: []Rule{
		// Permission dialogs: a tool asks before it runs, writes or
		// fetches; plan mode asks before it starts coding. Anchored rows
		// below the input box, so a transcript quoting one (above the
		// input box) asks nothing.
		{Family: "permission", Name: "proceed", In: BelowPrompt(24), Re: `^(?:Do|Would) you (?:want|like) to proceed\?$`, Then: RawNeedsInput},
		{Family: "permission", Name: "make-edit", In: BelowPrompt(24), Re: `^Do you want to (?:make this edit to|create|overwrite|allow)\b`, Then: RawNeedsInput},
		{Family: "permission", Name: "yes-option", In: BelowPrompt(24), Re: `^` + claudeNum + `Yes$`, Then: RawNeedsInput},
		{Family: "permission", Name: "tell-claude", In: BelowPrompt(24), Sub: "No, and tell Claude what to do differently", Then: RawNeedsInput},

		// AskUserQuestion: the tab strip ("←  ☐ Topic  ✔ Submit  →"), the
		// footer, the free-text option, the review tab.
		{Family: "ask", Name: "ask-tabs", In: BelowPrompt(30), Re: `^←\s+(?:[☐☒✔]\s|.*\bSubmit\s+→$)`, Then: RawNeedsInput},
		{Family: "ask", Name: "ask-footer", In: BelowPrompt(3), Re: `^Enter to select · Tab/Arrow keys\b`, Then: RawNeedsInput},
		{Family: "ask", Name: "ask-type", In: BelowPrompt(24), Re: `^` + claudeNum + `(?:\[.\]\s*)?Type something\.?$`, Then: RawNeedsInput},
		{Family: "ask", Name: "ask-submit", In: BelowPrompt(24), Re: `^Ready to submit your answers\?$`, Then: RawNeedsInput},

		// The folder trust dialog at start-up (2.0 and 2.1 wordings).
		{Family: "trust", Name: "trust-folder", In: BelowPrompt(30), Re: `^(?:Do you trust the files in this\b|(?:Quick safety check: )?Is this a project\b|` + claudeNum + `Yes, I trust this folder$)`, Then: RawNeedsInput},
		// 2.0's option, for a terminal so narrow the question wraps early.
		{Family: "trust", Name: "trust-proceed", In: BelowPrompt(30), Re: `^` + claudeNum + `Yes, proceed$`, Then: RawNeedsInput},

		// Resuming an old, long conversation (2.1): "This session is 9h 44m
		// old and 540k tokens." — from a summary, in full, or don't ask.
		// It blocks the resumed session while looking idle; the reason
		// is its age and size, read off the screen (no hook reports it).
		{Family: "resume", Name: "resume-summary", In: BelowPrompt(30), Re: `^` + claudeNum + `Resume (?:from summary\b|full session as-is$)`, Then: RawNeedsInput,
			Why: `^(This session is .+ old and .+ tokens)\.?$`, WhyFmt: "%s: resume from a summary, or the full session?"},

		// First-run screens: each blocks a fresh session until answered.
		{Family: "first-run", Name: "theme", In: BelowPrompt(30), Re: `^(?:Choose the text style\b|Syntax (?:theme: \S|highlighting disabled\b))`, Then: RawNeedsInput},
		{Family: "first-run", Name: "login-method", In: BelowPrompt(30), Re: `^Select login method:$`, Then: RawNeedsInput},
		{Family: "first-run", Name: "browser-login", In: BelowPrompt(30), Re: `^(?:Browser didn't open\?|Paste code here if prompted)`, Then: RawNeedsInput},
		{Family: "first-run", Name: "press-enter", In: BelowPrompt(4), Re: `^(?:Login successful\b|Press Enter to continue\b)`, Then: RawNeedsInput},
		{Family: "first-run", Name: "security-notes", In: BelowPrompt(30), Re: `^Security notes:$`, Then: RawNeedsInput},
		{Family: "first-run", Name: "terminal-setup", In: BelowPrompt(30), Re: `^Use Claude Code's terminal setup\?$`, Then: RawNeedsInput},

		// What kind of work, on a screen whose rows show work. Thinking
		// when the status line says so; else tool use when the last block
		// is a tool call or 2.1's collapsed progress block ("⏺ Reading 3
		// files…"). Sub-agents and background shells run tools too.
		{Family: "thinking", Name: "thinking", In: AbovePrompt(16), Re: `^(?:` + claudeWork + `.*(?i:\bthinking\b)|` + claudeGlyph + `(?i:thinking)…|thinking…$)`, IfBusy: true, Then: RawThinking},
		{Family: "tool-use", Name: "tool-call", In: LastBlock(), Re: `^[⏺●]\s*(?:[A-Z][\w-]*(?: [A-Z][\w-]*)*(?: \(MCP\))?\(|\S+ - \S+ \(MCP\))`, IfBusy: true, Then: RawToolUse},
		{Family: "tool-use", Name: "tool-progress", In: LastBlock(), Re: `^[⏺●]\s*\p{Lu}\p{Ll}+ing\b[^…]*…`, IfBusy: true, Then: RawToolUse},
		{Family: "tool-use", Name: "background-shells", In: Bottom(10), Re: `\b\d+ (?:background )?shells? (?:still )?running\b`, Has: "shell", Then: RawToolUse},
		{Family: "tool-use", Name: "background-agents", In: Bottom(10), Re: `Waiting for \d+ background (?:agents?\b|$)`, Then: RawToolUse},

		// Busy signs the screen shows. The status line comes first: the
		// row it matches bounds the transcript (streaming is text growing
		// above it). A todo list or a tip can sit between it and the input
		// box. The interrupt hint is in the status line up to 2.0, in the
		// footer in 2.1, and alone on its own line under a lower-case
		// "thinking…" / "Reading file…" progress line on some screens.
		{Family: "status-line", Name: "status-line", In: AbovePrompt(16), Re: `^` + claudeWork, Then: RawBusy},
		{Family: "interrupt-hint", Name: "interrupt-hint", In: BelowPrompt(4), Re: `(?i)\b(?:esc|ctrl\+c) to interrupt\b`, Has: "interrupt", Then: RawBusy},

		// Idle screens a stale title could call busy (the title can stick
		// on a busy frame after a turn): a menu the user opened (/model,
		// /help, /hooks, /export, /tasks, the thinking toggle), completions
		// under the prompt, the turn's "done" line. The user is driving;
		// nothing waits on them. After the screen's busy signs, so typing
		// a command while the agent works still reads busy.
		{Family: "menu", Name: "menu-footer", In: BelowPrompt(2), Re: `(?:^|· )Esc to (?:exit|close)$`, Has: "Esc to ", Then: RawIdle},
		{Family: "menu", Name: "menu-title", In: BelowPrompt(30), Re: `^(?:(?:Select model|Toggle thinking mode|Hook Configuration|Export Conversation|Background tasks)$|Claude Code v\d[\d.]*\s+general\b)`, Then: RawIdle},
		{Family: "menu", Name: "completions", In: BelowPrompt(3), Re: `^(?:/[\w:-]+\s{2,}\S|\+ \S)`, Then: RawIdle},
		{Family: "done", Name: "done-line", In: AbovePrompt(16), Re: `^` + claudeGlyph + `\pL+ for (?:\d+h )?(?:\d+m )?\d+s$`, Then: RawIdle},

		// The title: a Braille (up to 2.1.227) or ◐◑ (from 2.1.228) frame
		// while working, ✳ when idle. A hint only, for screens whose rows
		// show nothing we know (a redraw in progress); ✳ needs no rule.
		{Family: "title", Name: "title-spinner", In: Title(), Re: `^[\x{2800}-\x{28FF}◐◑◒◓]`, Then: RawBusy},
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
		// The choices, or (the question wrapped in a narrow terminal) the
		// default answer that ends them.
		{Name: "yes-no", In: Bottom(2), Re: `\(Y\)es/\(N\)o\b.*(?:\]|:)\s*$|\[(?:Yes|No)\]:\s*$`, Then: RawNeedsInput},

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
