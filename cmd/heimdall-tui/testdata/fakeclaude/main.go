// Command fakeclaude is a Claude Code stand-in for tests of agent hooks:
// an interactive program in a pty that draws screens like Claude Code's
// (the claude classifier's rules read them) and, when started with
// --settings FILE, runs the command hooks that file names with realistic
// payloads (agent-signals §1) at each step of a scripted turn. It never
// writes the user's ~/.claude/settings.json.
//
// Type a prompt and Enter (the tty is raw; Esc interrupts a turn):
//
//	tool       a Bash tool call (PreToolUse, PostToolUse), an answer, Stop
//	perm       a Bash call that asks permission (PermissionRequest and
//	           Notification permission_prompt, fired together) with
//	           Claude's three options: 1 allows it, 2 allows it from now
//	           on, 3 (or Esc) refuses it; then the answer, Stop
//	ask        an AskUserQuestion (its PreToolUse hook) with three
//	           options and "4. Type something.": a digit picks one, 4
//	           then a line answers in words; then the answer, Stop
//	slow       a turn that works until Esc (no hook fires on Esc)
//	ratelimit  a turn that fails: StopFailure rate_limit
//	/clear     a new conversation: SessionStart source=clear, a new id
//	quit       SessionEnd, exit 0
//	anything   an echo answer, Stop
//
// FAKE_CLAUDE_TIMES, if set, is a file each hook's firing ("hook EVENT
// UNIXNANO", just before its command runs) and each permission dialog's
// drawing ("dialog UNIXNANO", once written) are appended to, for
// benchmarks of how soon a supervisor shows them.
//
// FAKE_CLAUDE_KEYS, if set, is a file each key read in a dialog is
// appended to ("perm key 1", "ask key 4", "ask text WORDS"), so tests see
// what an answer typed.
//
// FAKE_CLAUDE_OLD=1 with --resume ID plays an old, long conversation:
// Claude 2.1's question first ("This session is 9h 44m old and 540k
// tokens.": 1 from a summary, 2 in full, 3 don't ask again), its key
// logged as "resume key N".
//
// FAKE_CLAUDE_CONV names the first conversation (default conv-1; a
// /clear starts conv-N); --resume ID goes on with conversation ID.
// FAKE_CLAUDE_STARTS, if set, is a file each start appends "UNIXNANO CWD
// ARGS…" to.
//
// FAKE_CLAUDE_TRANSCRIPT, if set, is the transcript the hooks name
// (transcript_path): each answered turn appends its assistant message
// there, with usage (1200 in, 340 out, 5000 cache written, 70000 read),
// on two lines as Claude writes one per content block.
//
// FAKE_CLAUDE_STEP (milliseconds, default 300) paces the steps. A hook
// that prints anything or exits non-zero is shown as Claude shows it
// ("hook error"), so tests see it on the screen.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"
)

type fake struct {
	hooks   map[string][]string // event → commands
	convo   int
	convoID string // the conversation's id while it is not conv-N
	turns   int    // answered turns (their messages' ids)
	cwd     string
	step    time.Duration
	title   string
	history []string // transcript lines above the input box
	status  string   // a spinner line, "" when idle
	dialog  []string // a permission dialog, drawn instead of the input box
	errs    []string
	keys    chan byte
}

func main() {
	f := &fake{hooks: map[string][]string{}, step: 300 * time.Millisecond, keys: make(chan byte, 64)}
	if ms, err := strconv.Atoi(os.Getenv("FAKE_CLAUDE_STEP")); err == nil {
		f.step = time.Duration(ms) * time.Millisecond
	}
	f.cwd, _ = os.Getwd()
	args := os.Args[1:]
	appendLine("FAKE_CLAUDE_STARTS", fmt.Sprintf("%d %s %s", time.Now().UnixNano(), f.cwd, strings.Join(args, " ")))
	f.convoID = os.Getenv("FAKE_CLAUDE_CONV")
	resume := false
	for i := 0; i < len(args); i++ {
		if args[i] == "--settings" && i+1 < len(args) {
			f.loadSettings(args[i+1])
			i++
		}
		if args[i] == "--resume" && i+1 < len(args) {
			resume, f.convoID = true, args[i+1]
		}
	}
	if old, err := term.MakeRaw(0); err == nil {
		defer term.Restore(0, old)
	}
	go func() {
		b := make([]byte, 256)
		for {
			n, err := os.Stdin.Read(b)
			for _, c := range b[:n] {
				f.keys <- c
			}
			if err != nil {
				close(f.keys)
				return
			}
		}
	}()
	f.convo = 1
	f.hook("SessionStart", map[string]any{"source": "startup", "model": "claude-opus-4-6"})
	f.title = "✳ Claude Code"
	f.history = []string{"✻ Welcome to Claude Code (fake)"}
	if resume && os.Getenv("FAKE_CLAUDE_OLD") == "1" {
		f.dialog = []string{" This session is 9h 44m old and 540k tokens.", "",
			" Resuming the full session will consume a substantial portion of your usage", " limits. We recommend resuming from a summary.", "",
			" ❯ 1. Resume from summary (recommended)", "   2. Resume full session as-is", "   3. Don't ask me again", "",
			" Enter to confirm · Esc to cancel"}
		f.draw()
		for c := range f.keys {
			if c >= '1' && c <= '3' || c == '\r' {
				logKey("resume key " + string(c))
				break
			}
		}
		f.dialog = nil
	}
	f.draw()
	for {
		line, ok := f.readLine()
		if !ok {
			return
		}
		if line == "" {
			continue
		}
		if !f.turn(line) {
			return
		}
	}
}

func (f *fake) loadSettings(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.errs = append(f.errs, "settings: "+err.Error())
		return
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		f.errs = append(f.errs, "settings: "+err.Error())
		return
	}
	for ev, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if h.Type == "command" {
					f.hooks[ev] = append(f.hooks[ev], h.Command)
				}
			}
		}
	}
}

// hook runs the event's hooks with the payload Claude Code gives them.
func (f *fake) hook(event string, extra map[string]any) {
	f.hooksAtOnce(hookCall{event, extra})
}

// hookCall is one hook event to fire, with its payload's own fields.
type hookCall struct {
	event string
	extra map[string]any
}

// hooksAtOnce fires the hooks of several events together (their commands
// run side by side, as Claude Code runs a permission prompt's
// PermissionRequest and Notification hooks) and waits for all of them.
func (f *fake) hooksAtOnce(calls ...hookCall) {
	type run struct {
		event string
		cmd   *exec.Cmd
		out   bytes.Buffer
	}
	var runs []*run
	for _, c := range calls {
		id := f.convoID
		if id == "" {
			id = fmt.Sprintf("conv-%d", f.convo)
		}
		transcript := os.Getenv("FAKE_CLAUDE_TRANSCRIPT")
		if transcript == "" {
			transcript = "/tmp/fake-transcript.jsonl"
		}
		payload := map[string]any{"session_id": id, "transcript_path": transcript,
			"cwd": f.cwd, "hook_event_name": c.event, "permission_mode": "default"}
		for k, v := range c.extra {
			payload[k] = v
		}
		body, _ := json.Marshal(payload)
		if len(f.hooks[c.event]) > 0 {
			mark("hook " + c.event)
		}
		for _, command := range f.hooks[c.event] {
			r := &run{event: c.event, cmd: exec.Command("sh", "-c", command)}
			r.cmd.Stdin = bytes.NewReader(body)
			r.cmd.Stdout = &r.out
			if err := r.cmd.Start(); err != nil {
				f.errs = append(f.errs, fmt.Sprintf("%s hook error: %v", c.event, err))
				continue
			}
			runs = append(runs, r)
		}
	}
	for _, r := range runs {
		if err := r.cmd.Wait(); err != nil || r.out.Len() > 0 {
			f.errs = append(f.errs, fmt.Sprintf("%s hook error: %v %q", r.event, err, r.out.String()))
		}
	}
}

// draw paints the screen: the transcript, a status line, the input box
// (or a dialog), the footer, and the title.
func (f *fake) draw() {
	var b strings.Builder
	fmt.Fprintf(&b, "\x1b]0;%s\x07\x1b[H\x1b[2J", f.title)
	lines := append([]string(nil), f.history...)
	if f.status != "" {
		lines = append(lines, "", f.status)
	}
	lines = append(lines, "")
	rule := strings.Repeat("─", 78)
	footer := "  ? for shortcuts"
	if f.status != "" {
		footer = "  esc to interrupt"
	}
	if f.dialog != nil {
		lines = append(lines, rule)
		lines = append(lines, f.dialog...)
	} else {
		lines = append(lines, rule, "❯ ", rule, footer)
	}
	lines = append(lines, f.errs...)
	b.WriteString(strings.Join(lines, "\r\n"))
	os.Stdout.WriteString(b.String())
}

// readLine reads a line of input, echoing it in the box.
func (f *fake) readLine() (string, bool) {
	var line []byte
	for c := range f.keys {
		switch c {
		case '\r', '\n':
			return string(line), true
		case 0x7f, 0x08:
			if len(line) > 0 {
				line = line[:len(line)-1]
			}
		case 0x1b:
		default:
			line = append(line, c)
		}
	}
	return "", false
}

// wait waits one step; an Esc ends it early (false).
func (f *fake) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			return true
		case c, ok := <-f.keys:
			if !ok || c == 0x1b {
				return false
			}
		}
	}
}

func (f *fake) busy(verb string) {
	f.title = "⠂ Working"
	f.status = "✻ " + verb + "… (1s · ↓ 12 tokens)"
	f.draw()
}

func (f *fake) idle(lines ...string) {
	f.history = append(f.history, lines...)
	f.status, f.dialog, f.title = "", nil, "✳ Claude Code"
	f.draw()
}

func (f *fake) interrupted() {
	f.idle("  ⎿  Interrupted · What should Claude do instead?")
}

// turn plays one prompt's turn; false ends the program.
func (f *fake) turn(prompt string) bool {
	if prompt == "quit" {
		f.hook("SessionEnd", map[string]any{"reason": "prompt_input_exit"})
		return false
	}
	if prompt == "/clear" {
		f.convo, f.convoID = f.convo+1, ""
		f.history = nil
		f.hook("SessionStart", map[string]any{"source": "clear", "model": "claude-opus-4-6"})
		f.idle("✻ Conversation cleared")
		return true
	}
	f.history = append(f.history, "> "+prompt)
	f.hook("UserPromptSubmit", map[string]any{"prompt": prompt})
	f.busy("Pondering")
	if !f.wait(f.step) {
		f.interrupted()
		return true
	}
	switch prompt {
	case "tool", "perm":
		cmd := "ls"
		if prompt == "perm" {
			cmd = "rm -rf build"
		}
		input := map[string]any{"command": cmd, "description": "run " + cmd}
		f.hook("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input})
		f.history = append(f.history, "", "⏺ Bash("+cmd+")")
		if prompt == "perm" {
			// Claude reports the prompt twice, the two hooks side by side.
			f.hooksAtOnce(hookCall{"PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": input}},
				hookCall{"Notification", map[string]any{"notification_type": "permission_prompt", "message": "Claude needs your permission to use Bash"}})
			f.title = "✳ Claude Code"
			f.status = ""
			f.dialog = []string{" Bash command", "", "   " + cmd, "   run " + cmd, "", " Do you want to proceed?",
				" ❯ 1. Yes", "   2. Yes, and don't ask again for rm commands in " + f.cwd,
				"   3. No, and tell Claude what to do differently (esc)", "", " Esc to cancel"}
			f.draw()
			mark("dialog")
			allowed := false
			for c := range f.keys {
				logKey("perm key " + string(c))
				if c == '1' || c == '2' || c == '\r' {
					allowed = true
					break
				}
				if c == '3' || c == 0x1b {
					break
				}
			}
			f.dialog = nil
			if !allowed {
				f.idle("  ⎿  User rejected the command")
				return true
			}
		}
		f.history = append(f.history, "  ⎿  Running…")
		f.busy("Pondering")
		if !f.wait(f.step) {
			f.interrupted()
			return true
		}
		f.history[len(f.history)-1] = "  ⎿  a.txt"
		f.hook("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_response": map[string]any{"stdout": "a.txt"}})
		f.busy("Pondering")
		if !f.wait(f.step) {
			f.interrupted()
			return true
		}
		f.answer("Done with " + cmd + ".")
	case "slow":
		for f.wait(f.step) {
			f.busy("Pondering")
		}
		f.interrupted()
	case "ask":
		f.ask()
	case "ratelimit":
		f.hook("StopFailure", map[string]any{"error": "rate_limit", "error_details": "5-hour limit reached ∙ resets 3pm"})
		f.idle("  ⎿  API Error: Rate limit reached · resets 3pm")
	default:
		f.answer("echo: " + prompt)
	}
	return true
}

func (f *fake) answer(text string) {
	f.history = append(f.history, "", "⏺ "+text)
	f.turns++
	for _, block := range []string{"thinking", "text"} {
		line, _ := json.Marshal(map[string]any{"type": "assistant", "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
			"requestId": fmt.Sprintf("req_%d", f.turns), "message": map[string]any{"id": fmt.Sprintf("msg_%d", f.turns),
				"model": "claude-opus-4-6", "content": []map[string]any{{"type": block}},
				"usage": map[string]any{"input_tokens": 1200, "output_tokens": 340, "cache_creation_input_tokens": 5000, "cache_read_input_tokens": 70000}}})
		appendLine("FAKE_CLAUDE_TRANSCRIPT", string(line))
	}
	f.hook("Stop", map[string]any{"stop_hook_active": false, "last_assistant_message": text})
	f.idle()
}

// ask plays an AskUserQuestion: its hook, its dialog (as Claude Code 2.1
// draws it), the user's pick, the answer.
func (f *fake) ask() {
	opts := []string{"PostgreSQL", "SQLite", "DynamoDB"}
	var in []map[string]any
	for _, o := range opts {
		in = append(in, map[string]any{"label": o, "description": "a database"})
	}
	input := map[string]any{"questions": []any{map[string]any{"question": "Which database should the service use?",
		"header": "Database", "options": in, "multiSelect": false}}}
	f.hook("PreToolUse", map[string]any{"tool_name": "AskUserQuestion", "tool_input": input})
	f.status, f.title = "", "✳ Claude Code"
	f.dialog = []string{"←  ☐ Database  ✔ Submit  →", "", "Which database should the service use?", "",
		"❯ 1. PostgreSQL", "     a database", "  2. SQLite", "     a database", "  3. DynamoDB", "     a database",
		"  4. Type something.", "", "Enter to select · Tab/Arrow keys to navigate · Esc to cancel"}
	f.draw()
	mark("dialog")
	chose := ""
	for c := range f.keys {
		logKey("ask key " + string(c))
		if c >= '1' && c <= '3' {
			chose = opts[c-'1']
			break
		}
		if c == '4' {
			f.dialog[10] = "❯ 4. "
			f.draw()
			chose, _ = f.readLine()
			logKey("ask text " + chose)
			break
		}
		if c == 0x1b {
			break
		}
	}
	f.dialog = nil
	if chose == "" {
		f.idle("  ⎿  User declined to answer")
		return
	}
	f.hook("PostToolUse", map[string]any{"tool_name": "AskUserQuestion", "tool_input": input, "tool_response": map[string]any{"answer": chose}})
	f.busy("Pondering")
	f.wait(f.step)
	f.answer("You chose " + chose + ".")
}

// logKey appends line to $FAKE_CLAUDE_KEYS, if set.
func logKey(line string) { appendLine("FAKE_CLAUDE_KEYS", line) }

// mark appends "what UNIXNANO" to $FAKE_CLAUDE_TIMES, if set.
func mark(what string) {
	appendLine("FAKE_CLAUDE_TIMES", fmt.Sprintf("%s %d", what, time.Now().UnixNano()))
}

// appendLine appends line to the file $env names, if it names one.
func appendLine(env, line string) {
	path := os.Getenv(env)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintln(f, line)
	f.Close()
}
