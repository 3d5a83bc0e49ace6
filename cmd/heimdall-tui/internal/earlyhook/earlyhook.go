// Package earlyhook is `heimdall-tui hook`, run from this package's init,
// before the rest of the binary is initialised.
//
// The hook is the command in the hooks of a Claude session's settings file
// and codex's notify program: it runs before every tool call, on the
// agent's critical path. A Go program initialises every package it links
// before main, and this binary links about 150 with work to do there
// (net/http, the MCP SDK, Bubble Tea, ...): ~2 ms a run that the hook does
// not need. The Go spec (since Go 1.21) fixes the order: of the packages
// whose imports are all initialised, the first by import path is
// initialised next, and so on. A package that imports only syscall and
// unsafe is therefore initialised right after syscall, before time, os,
// net and everything built on them. This package's init recognises the
// hook's command line (read from /proc/self/cmdline: os.Args is set by
// os's init, which has not run), does the whole hook with raw system calls
// and exits.
//
// So this package must import nothing but syscall, unsafe and packages
// that import nothing (toollinks): any other import would move its init
// after that package's and after every package that sorts before it and is
// ready by then — the heavy ones among them (cmd/heimdall-tui's
// TestHookRunsBeforeInit fails if any is). For the same reason it cannot
// use wire/frame: it encodes its one frame itself, and a test compares the
// bytes with frame.AppendFrame's.
//
// The hook's contract is Claude Code's: it prints nothing (the stdout of
// SessionStart and UserPromptSubmit hooks becomes model context), exits 0
// whatever happens (any other code shows the user a hook error, 2 blocks
// the tool call), and returns within BudgetMillis even when the supervisor
// is gone, never accepts, or accepts and never reads.
package earlyhook

import (
	"syscall"

	"github.com/heimdall-tui/heimdall-tui/cmd/heimdall-tui/internal/toollinks"
)

// SocketEnv names the session's socket in the environment of the program
// `run` starts, so its hooks find their supervisor.
const SocketEnv = "HEIMDALL_HOOK_SOCKET"

// BudgetMillis bounds a hook's run: reading the payload, connecting and
// writing. It is seconds, under the timeout Claude is given for the hook
// (agenthooks.go): on a busy machine a hook that gave up after a fifth of
// a second lost events (a StopFailure in about one session in ten), and
// a lost Stop, StopFailure or PermissionRequest costs more than a slower
// hook — which takes milliseconds when the supervisor answers.
const BudgetMillis = 3000

// The frame the hook sends (wire/frame, PROTOCOL.md): a HOOK frame whose
// payload is a source byte and the event's JSON. A payload is at most
// maxPayload bytes, as the supervisor's reader accepts; a longer one would
// not be JSON once cut, so it is not sent.
const (
	frameHook    = 0x44 // frame.Hook
	sourceClaude = 0x01 // frame.HookClaude: Claude Code's payload, its stdin
	sourceCodex  = 0x02 // frame.HookCodex: the JSON codex passes as the last argument
	maxPayload   = 1 << 20
	headerSize   = 5
)

// init runs the hook when this process is one, and exits; otherwise it
// returns at once, having read the start of its command line into a
// buffer on the stack (every run of the binary passes here: it must not
// allocate, nor read the environment, which would build syscall's copy
// of it in this package's init).
func init() {
	if !mayBeHook() {
		return
	}
	// The environment as the process started with it (nothing has set a
	// variable yet), without building syscall's copy of it.
	env, ok := readProc("/proc/self/environ")
	sock := toollinks.LookupEnv(env, SocketEnv)
	if !ok || sock == "" {
		return // main calls Run, which returns
	}
	cmdline, ok := readProc("/proc/self/cmdline")
	if !ok {
		return
	}
	argv := toollinks.SplitCmdline(cmdline)
	if !Invoked(argv) {
		return
	}
	defer func() {
		recover() // nothing may reach the agent but exit 0
		syscall.Exit(0)
	}()
	run(argv[2:], 0, sock, deadlineIn(BudgetMillis))
}

// mayBeHook reports whether this process's second argument may be
// "hook", from the start of /proc/self/cmdline; Invoked decides.
func mayBeHook() bool {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	var buf [256]byte
	n, err := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return false
	}
	return hookPrefix(buf[:n], n == len(buf))
}

// hookPrefix reports whether the command line that starts with b (all of
// it unless cut) may have "hook" as its second argument.
func hookPrefix(b []byte, cut bool) bool {
	const arg = "hook\x00"
	for i, c := range b {
		if c == 0 {
			rest := b[i+1:]
			if len(rest) >= len(arg) {
				return string(rest[:len(arg)]) == arg
			}
			// Cut by the buffer's end, argv[1] may still be "hook".
			return cut && string(rest) == arg[:len(rest)]
		}
	}
	return cut // argv[0] alone fills the buffer: look at all of it
}

// Invoked reports whether argv (the command line, argv[0] first) is a hook
// run: `hook` is the first argument and the binary was not invoked through
// one of its tool links, which are those tools: `heimdall-resolve hook`
// resolves the id "hook".
//
// `hook --help` (or -h) is not a run: cobra prints the command's help.
func Invoked(argv []string) bool {
	args, tool := toollinks.Args(argv)
	if tool != "" || len(args) == 0 || args[0] != "hook" {
		return false
	}
	for _, a := range args[1:] {
		if a == "--help" || a == "-h" {
			return false
		}
	}
	return true
}

// Run is the hook with args, the arguments after `hook` (`--codex JSON`
// for codex, none for Claude, whose payload is on stdin), reporting to
// $HEIMDALL_HOOK_SOCKET. It returns within BudgetMillis, having sent the event
// or not; the caller exits 0. main calls it when init did not run the hook
// (no /proc, say).
func Run(args []string) {
	defer func() { recover() }()
	if sock, ok := syscall.Getenv(SocketEnv); ok {
		run(args, 0, sock, deadlineIn(BudgetMillis))
	}
}

// run sends one HOOK frame to the socket at sock: codex's JSON argument,
// or what is read from the file descriptor stdin until EOF; nothing if the
// payload is too long, cannot be read or the socket does not take the
// frame before deadline (CLOCK_MONOTONIC nanoseconds).
func run(args []string, stdin int, sock string, deadline int64) {
	if sock == "" {
		return
	}
	msg := newMsg()
	if len(args) >= 2 && args[0] == "--codex" {
		msg[headerSize] = sourceCodex
		msg = append(msg, args[len(args)-1]...)
	} else {
		msg[headerSize] = sourceClaude
		var ok bool
		if msg, ok = readAll(stdin, msg, headerSize+maxPayload, deadline); !ok {
			return
		}
	}
	if len(msg) > headerSize+maxPayload {
		return
	}
	putHeader(msg, frameHook, len(msg)-headerSize)
	fd, ok := dial(sock, deadline)
	if !ok {
		return
	}
	// The mode byte is not waited for: a supervisor that accepted and
	// hangs must not hold the hook.
	writeAll(fd, msg, deadline)
	syscall.Close(fd)
}

// newMsg is the buffer run builds its frame in, with room for a typical
// payload. On the heap: a constant-size make this large would be put in
// run's stack frame, which then needed more than the 4 KiB the goroutine
// has at that point, and every hook grew its stack (a copy, and a new
// stack allocated: ~15k instructions, more than this allocation).
//
//go:noinline
func newMsg() []byte {
	return make([]byte, headerSize+1, 4096)
}

// putHeader writes a frame header at the start of msg: type, then the
// payload's length as a big-endian u32.
func putHeader(msg []byte, typ byte, n int) {
	msg[0] = typ
	msg[1], msg[2], msg[3], msg[4] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
}

// readProc returns the contents of name, a file in /proc of this
// process (its cmdline, its environ).
func readProc(name string) ([]byte, bool) {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	// The kernel caps one argument or variable at 128 KiB and all of them
	// at a quarter of the stack limit; 16 MiB is a bound, not an estimate.
	return readAll(fd, make([]byte, 0, 4096), 16<<20, deadlineIn(BudgetMillis))
}
