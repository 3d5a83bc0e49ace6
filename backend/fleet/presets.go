package fleet

import (
	"os"
	"os/exec"
	"slices"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
)

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
	}
}

// presets merges the built-ins with the config's [[agent]] tables: an agent
// with a built-in's name replaces it in place (its empty fields keep the
// built-in's values), others follow in file order. Found is not set: only
// Presets, for the spawn dialog, looks the programs up on PATH.
func presets(cfg config.Config) []Preset {
	out := builtinPresets()
	for _, a := range cfg.Agents {
		p := Preset{Name: a.Name, Argv: slices.Clone(a.Command), Classifier: a.Classifier}
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

func found(prog string) bool {
	_, err := exec.LookPath(prog)
	return err == nil
}

// preset returns the named preset, if any.
func (f *Fleet) preset(name string) (Preset, bool) {
	if name == "" {
		return Preset{}, false
	}
	for _, p := range presets(f.cfg) {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}
