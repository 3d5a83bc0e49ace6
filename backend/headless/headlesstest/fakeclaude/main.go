// Command fakeclaude stands in for `claude -p --input-format stream-json
// --output-format stream-json --verbose` in tests. It never talks to a
// model: it prints a system init event at start, then answers each user
// message read on stdin with scripted stream-json events chosen by the
// message's text:
//
//	crash        a text delta, a line on stderr, then exit 3 mid-turn
//	closeout     a text delta, then stdout closed mid-turn; it runs on
//	             (until a signal ends it)
//	garbage      lines that are not claude events on stdout (not JSON, a
//	             JSON array, an object without a type), then a normal turn
//	slow:MS      a delta, a pause of MS milliseconds, the rest of the turn
//	flood:N      N text deltas, then the result
//	stream:N:R   N text deltas at R a second, then the result
//	stderr:N     N lines on stderr, then a normal turn
//	oauth        "OAuth token expired" on stderr, exit 1
//	tool         a tool_use block (Bash, with input), its result, then text
//	big:N        one delta of N bytes
//	anything else: "echo: <text>" in two deltas
//
// Every turn ends with a result event carrying a usage block; with
// --replay-user-messages each user message is echoed (isReplay) first. Environment:
// FAKE_CLAUDE_LOG, a file each run appends JSON lines to (argv, cwd, the
// probe variable FAKE_CLAUDE_PROBE at start; "sigterm" when it gets one);
// FAKE_CLAUDE_IGNORE_TERM=1 ignores SIGTERM (the daemon must SIGKILL);
// FAKE_CLAUDE_START=exit|oauth exits at start (after an oauth message on
// stderr for "oauth"). Without --no-session-persistence each user message
// is appended to $HOME/.claude/projects/<cwd, "/" → "-">/<session>.jsonl as
// Claude Code does. `--version` prints a version and exits.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	outMu sync.Mutex
	out   = bufio.NewWriterSize(os.Stdout, 64<<10)
)

func emit(v map[string]any) {
	b, _ := json.Marshal(v)
	outMu.Lock()
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
	outMu.Unlock()
}

func logEvent(v map[string]any) {
	path := os.Getenv("FAKE_CLAUDE_LOG")
	if path == "" {
		return
	}
	v["pid"] = os.Getpid()
	b, _ := json.Marshal(v)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	f.Write(append(b, '\n'))
	f.Close()
}

func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

func has(args []string, name string) bool {
	for _, a := range args {
		if a == name {
			return true
		}
	}
	return false
}

func main() {
	args := os.Args[1:]
	if has(args, "--version") {
		fmt.Println("2.1.118 (Claude Code)")
		return
	}
	cwd, _ := os.Getwd()
	logEvent(map[string]any{"event": "start", "argv": args, "cwd": cwd, "probe": os.Getenv("FAKE_CLAUDE_PROBE")})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	go func() {
		for range sigs {
			logEvent(map[string]any{"event": "sigterm"})
			if os.Getenv("FAKE_CLAUDE_IGNORE_TERM") != "1" {
				os.Exit(143)
			}
		}
	}()
	sid := flagValue(args, "--session-id")
	if sid == "" {
		sid = flagValue(args, "--resume")
	}
	model := flagValue(args, "--model")
	if model == "" {
		model = "claude-sonnet-4-6"
	}
	switch os.Getenv("FAKE_CLAUDE_START") {
	case "exit":
		fmt.Fprintln(os.Stderr, "fake claude: exiting at start")
		os.Exit(1)
	case "oauth":
		fmt.Fprintln(os.Stderr, "API Error: 401 OAuth token expired. Please run claude auth")
		os.Exit(1)
	}
	emit(map[string]any{"type": "system", "subtype": "init", "session_id": sid, "model": model, "cwd": cwd,
		"tools": []string{"Bash", "Read", "Edit"}, "permissionMode": flagValue(args, "--permission-mode")})
	var transcript string
	if !has(args, "--no-session-persistence") {
		if home, err := os.UserHomeDir(); err == nil && sid != "" {
			dir := filepath.Join(home, ".claude", "projects", strings.ReplaceAll(cwd, "/", "-"))
			if os.MkdirAll(dir, 0o700) == nil {
				transcript = filepath.Join(dir, sid+".jsonl")
			}
		}
	}
	replay := has(args, "--replay-user-messages")
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	turns := 0
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var m struct {
				Type    string `json:"type"`
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(line, &m) != nil || m.Type != "user" {
				fmt.Fprintf(os.Stderr, "fake claude: bad input line %q\n", line)
				continue
			}
			if transcript != "" {
				if f, err := os.OpenFile(transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
					f.Write(line)
					f.Close()
				}
			}
			if replay {
				emit(map[string]any{"type": "user", "session_id": sid, "isReplay": true,
					"message": map[string]any{"role": "user", "content": m.Message.Content}})
			}
			turns++
			turn(sid, text(m.Message.Content), turns)
		}
		if err != nil {
			return
		}
	}
}

// text is a message content's text: the string, or its text blocks joined.
func text(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var blocks []struct{ Type, Text string }
	json.Unmarshal(content, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

func delta(sid, s string) {
	emit(map[string]any{"type": "stream_event", "session_id": sid, "event": map[string]any{
		"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": s}}})
}

func turn(sid, msg string, n int) {
	cmd, arg, _ := strings.Cut(msg, ":")
	arg, _, _ = strings.Cut(arg, " ") // words after the argument are free text
	answer := "echo: " + msg
	emit(map[string]any{"type": "stream_event", "session_id": sid, "event": map[string]any{"type": "message_start"}})
	switch cmd {
	case "crash":
		delta(sid, "partial")
		fmt.Fprintln(os.Stderr, "fatal: simulated crash")
		os.Exit(3)
	case "oauth":
		fmt.Fprintln(os.Stderr, "API Error: 401 OAuth token expired. Please run claude auth")
		os.Exit(1)
	case "closeout":
		delta(sid, "partial")
		outMu.Lock()
		os.Stdout.Close()
		fmt.Fprintln(os.Stderr, "fake claude: stdout closed")
		time.Sleep(time.Hour) // the SIGTERM handler ends it
	case "garbage":
		outMu.Lock()
		out.WriteString("not json at all\n[1,2]\n{\"no_type\":1}\n")
		out.Flush()
		outMu.Unlock()
		delta(sid, "echo: ")
		delta(sid, msg)
	case "slow":
		ms, _ := strconv.Atoi(arg)
		delta(sid, "slow ")
		time.Sleep(time.Duration(ms) * time.Millisecond)
		delta(sid, "done")
		answer = "slow done"
	case "flood":
		k, _ := strconv.Atoi(arg)
		for i := range k {
			delta(sid, strconv.Itoa(i)+" ")
		}
		answer = "flooded"
	case "stream":
		ns, rs, _ := strings.Cut(arg, ":")
		k, _ := strconv.Atoi(ns)
		rate, _ := strconv.Atoi(rs)
		start := time.Now()
		for i := range k {
			if rate > 0 {
				if d := time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))); d > 0 {
					time.Sleep(d)
				}
			}
			delta(sid, "x")
		}
		answer = "streamed"
	case "stderr":
		k, _ := strconv.Atoi(arg)
		for i := range k {
			fmt.Fprintf(os.Stderr, "warning line %d\n", i)
		}
		delta(sid, answer)
	case "tool":
		emit(map[string]any{"type": "stream_event", "session_id": sid, "event": map[string]any{
			"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{}}}})
		emit(map[string]any{"type": "assistant", "session_id": sid, "message": map[string]any{"role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "ls"}}}}})
		emit(map[string]any{"type": "user", "session_id": sid, "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}}}})
		delta(sid, "listed")
		answer = "listed"
	case "big":
		k, _ := strconv.Atoi(arg)
		delta(sid, strings.Repeat("b", k))
		answer = "big"
	default:
		delta(sid, "echo: ")
		delta(sid, msg)
	}
	emit(map[string]any{"type": "assistant", "session_id": sid, "message": map[string]any{"role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": answer}}}})
	emit(map[string]any{"type": "result", "subtype": "success", "is_error": false, "duration_ms": 3, "num_turns": n,
		"result": answer, "session_id": sid, "total_cost_usd": 0.001,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100,
			"cache_creation_input_tokens": 7, "server_tool_use": map[string]any{"web_search_requests": 0}, "service_tier": "standard"}})
}
