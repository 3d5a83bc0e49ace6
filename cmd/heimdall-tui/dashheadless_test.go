package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// The dashboard's blemeesd is a daemon of its own: the first dashboard
// starts it, detached, and follows it; a second follows the same one
// (no second daemon); a session opened through the first is listed in both
// (owned by the opener); and once both dashboards have gone, the daemon
// and the session go on, and the next dashboard lists it again, owned: it
// takes over the session a dashboard opened and left.
func TestDashDaemon(t *testing.T) {
	dir, env := daemonEnv(t)
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == "HOME" || k == "XDG_CONFIG_HOME" || k == "BLEMEESD_CLAUDE" {
			t.Setenv(k, v)
		}
	}
	t.Chdir(dir) // a dashboard follows the sessions of its working directory
	sock := filepath.Join(dir, "b.sock")
	t.Cleanup(func() { stopDaemonsOn(t, sock) })
	dashboard := func(name string) (*fleet.Fleet, *dashDaemon) {
		f, err := fleet.New(fleet.Options{Dir: filepath.Join(dir, name), Config: config.Default()})
		if err != nil {
			t.Fatal(err)
		}
		dd, err := startDashDaemon(binPath, sock, f, nil, slog.New(slog.DiscardHandler))
		if err != nil {
			f.Close()
			t.Fatal(err)
		}
		return f, dd
	}
	f, dd := dashboard("s")
	id, err := headlessOpener(dd, nil).Open(fleet.HeadlessSpec{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	f2, dd2 := dashboard("s2")
	if n := len(daemonsOn(sock)); n != 1 {
		t.Fatalf("%d daemons on the socket, want the first dashboard's only", n)
	}
	listed := func(f *fleet.Fleet, owned bool) func() bool {
		return func() bool {
			for _, in := range f.Sessions() {
				if in.ID == id && in.Kind == session.KindHeadless && in.Alive && in.Owned == owned {
					return true
				}
			}
			return false
		}
	}
	for _, c := range []struct {
		f     *fleet.Fleet
		owned bool
	}{{f, true}, {f2, false}} {
		if !poll(waitTimeout, listed(c.f, c.owned)) {
			t.Fatalf("%s not listed (owned %v): %+v", id, c.owned, c.f.Sessions())
		}
	}
	// Both dashboards go; the daemon and the session stay.
	f.Close()
	dd.Shutdown()
	f2.Close()
	dd2.Shutdown()
	f3, dd3 := dashboard("s3")
	defer f3.Close()
	defer dd3.Shutdown()
	if !poll(waitTimeout, listed(f3, true)) {
		t.Fatalf("%s not listed again, owned: %+v", id, f3.Sessions())
	}
}

// daemonsOn lists the pids of the blemeesd processes serving sock.
func daemonsOn(sock string) []int {
	var pids []int
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, c := range cmdlines {
		b, err := os.ReadFile(c)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 1 && args[1] == "blemeesd" && slices.Contains(args, sock) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(c)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// stopDaemonsOn SIGTERMs the daemons serving sock and waits for them.
func stopDaemonsOn(t *testing.T, sock string) {
	for _, pid := range daemonsOn(sock) {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	if !poll(waitTimeout, func() bool { return len(daemonsOn(sock)) == 0 }) {
		t.Errorf("daemons on %s still running: %v", sock, daemonsOn(sock))
	}
}

// A headless turn's usage is a ledger entry, by the provider; without a
// planning root nothing is created.
func TestLedgerTurns(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".planning")
	store := planning.Open(root)
	u := headless.Usage{LastTurn: map[string]int64{"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100}}
	ledgerTurns(store, slog.New(slog.DiscardHandler))("claude-1", u)
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("the planning root was created: %v", err)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	ledgerTurns(store, slog.New(slog.DiscardHandler))("claude-1", u)
	r, err := store.Ledger().Report(5)
	if err != nil {
		t.Fatal(err)
	}
	if r.Total != 115 || len(r.Latest) != 1 || r.Latest[0].Role != "claude-1" || r.Latest[0].Kind != "turn" ||
		r.Latest[0].Usage == nil || r.Latest[0].Usage.CacheRead != 100 {
		t.Fatalf("report %+v", r)
	}
}

// A headless Claude session outlives its dashboard, as a user would see
// it: started from the dashboard (`:spawn claude-headless`), it streams a
// slow turn; the dashboard is SIGKILLed mid-turn; the turn completes in
// the daemon; a new dashboard shows the session, under its name, with its
// whole transcript (the user's turn, as claude echoed it, and the
// answer), and drives it.
func TestDashboardHeadlessOutlivesIt(t *testing.T) {
	dir, env := daemonEnv(t)
	var keep []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k == "HOME" || k == "XDG_CONFIG_HOME" || k == "BLEMEESD_CLAUDE" {
			keep = append(keep, kv)
		}
	}
	sock := filepath.Join(dir, "b.sock")
	t.Cleanup(func() { stopDaemonsOn(t, sock) })
	d := newDash(t, keep...)
	if err := os.WriteFile(d.cfg, []byte(dashConfig+fmt.Sprintf("[blemeesd]\nenabled = true\nsocket = %q\n", sock)), 0o600); err != nil {
		t.Fatal(err)
	}
	d.open()
	d.waitFor("no sessions")
	d.command("spawn claude-headless h1")
	d.waitFor("started h1")
	d.sendTo("h1", "slow:3000")
	d.waitScreen("the turn streaming", func(s string) bool { return strings.Contains(s, "Streaming") })
	pid := dashboardPID(t, d)
	syscall.Kill(pid, syscall.SIGKILL)
	if !poll(waitTimeout, func() bool { return syscall.Kill(pid, 0) != nil }) {
		t.Fatal("the dashboard survived SIGKILL")
	}
	// The killed dashboard left the terminal in its alternate screen.
	d.run("send-keys", "-t", "main", "clear; tput rmcup", "Enter")
	d.waitDisplay("#{alternate_on}", "0")
	d.waitPrompt("hm$")
	reopened := time.Now()
	d.open()
	// Under the name the first dashboard gave it, with the user's turn
	// and the answer (once the turn, 3 s long, ends); and driven again
	// from here.
	d.waitScreen("the session and its turn", func(s string) bool {
		return strings.Contains(s, "h1") && strings.Contains(s, "slow:3000")
	})
	t.Logf("the new dashboard showed the session and its turn %v after it was started", time.Since(reopened).Round(time.Millisecond))
	d.waitFor("slow done")
	d.sendTo("h1", "hello again")
	d.waitFor("echo: hello again")
}
