package main

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/tui/action"
	"github.com/heimdall-tui/heimdall-tui/tui/dialog"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

// The spawn form's headless entry, carried out by the dashboard's opener,
// starts claude through the daemon's Manager with the form's model,
// permission mode, system prompt and directory, listed in the fleet under
// the form's name. Without a daemon nothing is offered.
func TestDashSpawnHeadless(t *testing.T) {
	if headlessOpener(nil, nil) != nil {
		t.Fatal("an opener without a daemon")
	}
	dir, env := daemonEnv(t)
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == "HOME" || k == "XDG_CONFIG_HOME" || k == "BLEMEESD_CLAUDE" {
			t.Setenv(k, v)
		}
	}
	logf := filepath.Join(dir, "claude.log")
	t.Setenv("FAKE_CLAUDE_LOG", logf)
	f, err := fleet.New(fleet.Options{Dir: filepath.Join(dir, "s"), Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sock := filepath.Join(dir, "b.sock")
	t.Cleanup(func() { stopDaemonsOn(t, sock) })
	dd, err := startDashDaemon(binPath, sock, f, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer dd.Shutdown()
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}

	d := dialog.NewSpawn(nil, dir, nil).OfferHeadless()
	var act action.Action
	for _, k := range []string{"up", "tab", "type:rev", "tab", "ctrl+u", "type:work", "tab", "type:sonnet", "tab", "right", "right", "right", "tab", "type:be terse", "enter"} {
		var msgs []string
		if text, ok := strings.CutPrefix(k, "type:"); ok {
			for _, r := range text {
				name := string(r)
				if r == ' ' {
					name = "space"
				}
				msgs = append(msgs, name)
			}
		} else {
			msgs = []string{k}
		}
		for _, m := range msgs {
			act, _ = d.Update(keys.Press(m))
		}
	}
	sh, ok := act.(action.SpawnHeadless)
	if !ok {
		t.Fatalf("form returned %#v", act)
	}
	id, err := headlessOpener(dd, nil).Open(sh.Spec)
	if err != nil || id != "rev" {
		t.Fatalf("Open: %q, %v", id, err)
	}
	var start struct {
		Argv []string `json:"argv"`
		Cwd  string   `json:"cwd"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for start.Argv == nil {
		if b, err := os.ReadFile(logf); err == nil {
			line, _, _ := strings.Cut(string(b), "\n")
			json.Unmarshal([]byte(line), &start)
		}
		if time.Now().After(deadline) {
			t.Fatal("claude did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	args := strings.Join(start.Argv, " ")
	for _, want := range []string{"--model=sonnet", "--permission-mode=plan", "--system-prompt=be terse"} {
		if !strings.Contains(args, want) {
			t.Errorf("argv %q lacks %q", args, want)
		}
	}
	if start.Cwd != work {
		t.Errorf("cwd %q, want %q", start.Cwd, work)
	}
	if !slices.ContainsFunc(f.Sessions(), func(in session.Info) bool { return in.ID == "rev" && in.Kind == session.KindHeadless }) {
		t.Errorf("rev not listed: %+v", f.Sessions())
	}
}

// Without a daemon (or with a dashDaemon that follows none) the dashboard
// offers no headless spawn: a nil opener, not a non-nil
// interface holding a nil pointer. Following one, see TestDashDaemon.
func TestHeadlessOpenerNil(t *testing.T) {
	if o := headlessOpener(&dashDaemon{}, nil); o != nil {
		t.Fatalf("opener %#v with neither", o)
	}
	if o := headlessOpener(nil, nil); o != nil {
		t.Fatalf("opener %#v without a daemon", o)
	}
}
