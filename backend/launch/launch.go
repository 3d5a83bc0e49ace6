// Package launch starts sessions: the spawn presets (the built-in agents
// and the config's [[agent]] tables), a spec's supervisor command line and
// environment, and the start of a supervisor that serves the session in a
// session of its own. The dashboard's fleet uses it, and so does `heimdall
// mux` for a session a dashboard on another machine starts there: presets
// and directories are always resolved on the machine the session runs on.
package launch

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/host"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/review"
)

// Spec describes a session to spawn.
type Spec struct {
	// ID names the session (DIR/ID.sock). "" = Agent (or argv[0]'s base name)
	// followed by the lowest free "-N".
	ID         string
	Agent      string   // preset name, for display ("" = custom)
	Argv       []string // required
	Dir        string   // working directory ("" = the dashboard's)
	Classifier string   // "" = the config's default
	Env        []string // extra NAME=value entries after the config's env
	Cols, Rows uint16   // initial size (0 = the supervisor's default)
	// Worktree, if set, is the checkout the session was given (the
	// worktree's top level, kept in its record so that removing the
	// session can offer to remove it).
	Worktree string
	// NewWorktree, if set, asks Spawn to make that worktree first and
	// start the session in it (at Dir's place within the repository).
	NewWorktree *review.Worktree
	// ACP: Argv is an Agent Client Protocol agent (run --acp), ACPFS the
	// file requests it is served (its preset's, else the record's);
	// ACPResume the agent's session to go on with.
	ACP       bool
	ACPFS     string
	ACPResume string
}

// Preset is a spawnable agent kind: a built-in (claude, codex, aider, gemini,
// shell) or a config [[agent]] table, which overrides a built-in of the same
// name.
type Preset struct {
	Name       string
	Argv       []string
	Classifier string
	Env        []string
	// Yolo is the command that restarts the agent with its permission
	// prompts off ("YOLO mode"), continuing its last conversation, and
	// YoloEnv what it adds to the environment; Resume restarts it in its
	// normal mode, continuing too. nil Yolo: the agent has no such mode.
	// Built-ins only: a config [[agent]] that gives a built-in another
	// command has none (they name the built-in's program).
	Yolo, YoloEnv, Resume []string
	// ACP: the agent speaks the Agent Client Protocol on its stdio (a
	// session of kind acp: a transcript, no terminal); ACPFS the file
	// requests it is served within its working directory ("read",
	// "write", "read,write"; "" none).
	ACP   bool
	ACPFS string
	// Found reports whether Argv[0] resolves on PATH (or is an existing
	// path); the spawn dialog offers only found presets.
	Found bool
}

// builtinPresets are the agents the dashboard knows without a config file,
// in the order the spawn dialog lists them. The YOLO commands are the web
// terminal protocol's (wire/wsterm).
func builtinPresets() []Preset {
	shell := os.Getenv("SHELL")
	if shell == "" {
		shell = "/bin/sh"
	}
	return []Preset{
		{Name: "claude", Argv: []string{"claude"}, Classifier: "claude",
			Yolo: []string{"claude", "--dangerously-skip-permissions", "--continue"}, Resume: []string{"claude", "--continue"}},
		{Name: "codex", Argv: []string{"codex"}, Classifier: "codex",
			Yolo: []string{"codex", "--yolo", "resume", "--last"}, Resume: []string{"codex", "resume", "--last"}},
		{Name: "aider", Argv: []string{"aider"}, Classifier: "aider",
			Yolo: []string{"aider", "--yes-always", "--restore-chat-history"}, Resume: []string{"aider", "--restore-chat-history"}},
		{Name: "gemini", Argv: []string{"gemini"}, Classifier: "simple",
			Yolo: []string{"gemini", "--resume", "--approval-mode=yolo"}, Resume: []string{"gemini", "--resume"}},
		{Name: "shell", Argv: []string{shell}, Classifier: "simple"},
		{Name: "goose", Argv: []string{"goose", "session"}, Classifier: "simple",
			Yolo: []string{"goose", "session", "-r"}, YoloEnv: []string{"GOOSE_MODE=auto"}, Resume: []string{"goose", "session", "-r"}},
		{Name: "opencode", Argv: []string{"opencode"}, Classifier: "simple"},
		{Name: "gemini-acp", Argv: []string{"gemini", "--acp"}, ACP: true, ACPFS: "read"},
	}
}

// Presets merges the built-ins with the config's [[agent]] tables: an agent
// with a built-in's name replaces it in place (its empty fields keep the
// built-in's values), others follow in file order. Found is not set: the
// spawn dialog's list looks the programs up on PATH.
func Presets(cfg config.Config) []Preset {
	out := builtinPresets()
	for _, a := range cfg.Agents {
		p := Preset{Name: a.Name, Argv: slices.Clone(a.Command), Classifier: a.Classifier, ACP: a.ACP, ACPFS: a.ACPFS}
		for _, e := range a.Env {
			p.Env = append(p.Env, e.Name+"="+e.Value)
		}
		if i := slices.IndexFunc(out, func(q Preset) bool { return q.Name == a.Name }); i >= 0 {
			if len(p.Argv) == 0 {
				p.Argv = out[i].Argv
				p.Yolo, p.YoloEnv, p.Resume = out[i].Yolo, out[i].YoloEnv, out[i].Resume
			}
			if p.Classifier == "" {
				p.Classifier = out[i].Classifier
			}
			out[i] = p
		} else {
			out = append(out, p)
		}
	}
	return out
}

// Find returns the named preset, if any.
func Find(cfg config.Config, name string) (Preset, bool) {
	if name == "" {
		return Preset{}, false
	}
	for _, p := range Presets(cfg) {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// Args are a supervisor's arguments for spec under id — supervisor's own
// first (global flags), then `run --dashboard` with the preset's
// classifier and the working directory made absolute — and its
// environment (host.SupervisorEnv: what the program's adds travels in
// it, not on the command line, which other users can read for as long as
// the supervisor lives).
func Args(cfg config.Config, supervisor []string, id string, spec Spec) (args, environ []string, err error) {
	cls := spec.Classifier
	var env []string
	if p, ok := Find(cfg, spec.Agent); ok {
		env = append(env, p.Env...)
		if cls == "" {
			cls = p.Classifier
		}
		if p.ACP && !spec.ACP {
			spec.ACP, spec.ACPFS = true, p.ACPFS
		}
	}
	env = append(env, spec.Env...)
	if cls == "" && !spec.ACP { // an ACP agent's state is its own report
		cls = cfg.Classifier
	}
	if spec.ACP {
		cls = ""
	}
	if cls != "" && !slices.Contains(classify.Names(), cls) {
		return nil, nil, fmt.Errorf("unknown classifier %q (one of %s)", cls, strings.Join(classify.Names(), ", "))
	}
	dir, err := filepath.Abs(spec.Dir) // "" is this process's directory
	if err != nil {
		return nil, nil, err
	}
	args = append(slices.Clone(supervisor), "run", "--dashboard", "--id", id, "--workdir", dir)
	if cls != "" {
		args = append(args, "--classifier", cls)
	}
	if spec.Agent != "" {
		args = append(args, "--agent", spec.Agent)
	}
	if spec.Worktree != "" {
		args = append(args, "--worktree", spec.Worktree)
	}
	if spec.ACP {
		args = append(args, "--acp", "--acp-fs", spec.ACPFS)
		if spec.ACPResume != "" {
			args = append(args, "--acp-resume", spec.ACPResume)
		}
	}
	if spec.Cols > 0 && spec.Rows > 0 {
		args = append(args, "--cols", strconv.Itoa(int(spec.Cols)), "--rows", strconv.Itoa(int(spec.Rows)))
	}
	environ, err = host.SupervisorEnv(os.Environ(), withoutRepeats(env))
	if err != nil {
		return nil, nil, err
	}
	return append(append(args, "--"), spec.Argv...), environ, nil
}

// withoutRepeats drops each entry of env that a later entry repeats
// exactly. The environment it gives is the same (the last NAME= wins), but
// the preset's env is not given twice when the spec holds it too (the
// dashboard's spawn passes it), nor once more on every restart (which
// passes the env the session's record lists).
func withoutRepeats(env []string) []string {
	var out []string
	for i, e := range env {
		if !slices.Contains(env[i+1:], e) {
			out = append(out, e)
		}
	}
	return out
}

// Start starts the supervisor exe with args and environ in a session of
// its own (proc.Start: the caller reaps it while it lives) and waits
// until it has served the session: run --dashboard points its stdio at
// /dev/null then, so EOF on its stderr means it started — unless it
// exited, and then what it said (returned) is why. deadline bounds the
// wait.
func Start(exe string, args, environ []string, deadline time.Time, log *slog.Logger) (p *proc.Process, said []byte, err error) {
	cmd := exec.Command(exe, args...)
	cmd.Args[0] = supervisorName(exe)
	cmd.Env = environ
	cmd.Dir = "/" // a supervisor lives for hours: it keeps no directory busy
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = wr
	p, err = proc.Start(cmd, proc.Options{Logger: log})
	wr.Close()
	if err != nil {
		rd.Close()
		return nil, nil, fmt.Errorf("start supervisor: %w", err)
	}
	rd.SetReadDeadline(deadline)
	said, _ = io.ReadAll(io.LimitReader(rd, 64<<10))
	rd.Close()
	return p, said, nil
}

// supervisorName is the name a supervisor started from exe goes by in ps:
// its executable's, heimdall-tui for /proc/self/exe.
func supervisorName(exe string) string {
	if name := filepath.Base(exe); name != "exe" {
		return name
	}
	return "heimdall-tui"
}

// How a session is started again under its ID (Restart, and mux's RUN
// with restart): its own command line, or with the agent's conversation
// resumed (claude --resume ID), or without the --resume a resume added.
const (
	Again  = "again"
	Resume = "resume"
	Fresh  = "fresh"
)

// RestartArgv is argv as a restart of how starts it; convo is the
// conversation id the session's agent reported ("" if none). A codex
// session (argv[0] named codex) resumes with its subcommand, `codex resume
// ID FLAGS…`; every other agent as Claude does, `--resume ID` at the end.
func RestartArgv(argv []string, how, convo string) ([]string, error) {
	codex := len(argv) > 0 && filepath.Base(argv[0]) == "codex"
	switch how {
	case Again:
		return slices.Clone(argv), nil
	case Resume:
		if convo == "" {
			return nil, errors.New("its agent has not reported a conversation id")
		}
		if codex {
			rest := dropCodexResume(argv)
			return append([]string{rest[0], "resume", convo}, rest[1:]...), nil
		}
		return append(dropResume(argv), "--resume", convo), nil
	case Fresh:
		if codex {
			return dropCodexResume(argv), nil
		}
		return dropResume(argv), nil
	}
	return nil, fmt.Errorf("unknown restart %q (again, resume or fresh)", how)
}

// dropCodexResume is a codex command line without the `resume ID` a
// resume put after the program.
func dropCodexResume(argv []string) []string {
	if len(argv) >= 3 && argv[1] == "resume" && !strings.HasPrefix(argv[2], "-") {
		return append([]string{argv[0]}, argv[3:]...)
	}
	return slices.Clone(argv)
}

// dropResume is argv without its `--resume ID`s.
func dropResume(argv []string) []string {
	var out []string
	for i := 0; i < len(argv); i++ {
		if argv[i] == "--resume" && i+1 < len(argv) {
			i++
			continue
		}
		out = append(out, argv[i])
	}
	return out
}
