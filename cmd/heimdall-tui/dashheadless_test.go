package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

type nopSink struct{}

func (nopSink) Deliver(headless.Event) {}
func (nopSink) Taken(string, int)      {}

// The dashboard's blemeesd: its sessions (here one a socket client would
// open) are listed in the fleet; a second dashboard on the same socket
// starts no daemon but follows the first one's, and opens headless
// sessions through it (owned by the second, watched by the first).
func TestDashDaemon(t *testing.T) {
	dir, env := daemonEnv(t)
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == "HOME" || k == "XDG_CONFIG_HOME" || k == "BLEMEESD_CLAUDE" {
			t.Setenv(k, v)
		}
	}
	f, err := fleet.New(fleet.Options{Dir: filepath.Join(dir, "s"), Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sock := filepath.Join(dir, "b.sock")
	dd, err := startDashDaemon(sock, f, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer dd.Shutdown()
	// A second dashboard on the socket follows the first one's daemon.
	t.Chdir(dir) // it follows the sessions of its working directory
	f2, err := fleet.New(fleet.Options{Dir: filepath.Join(dir, "s2"), Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	dd2, err := startDashDaemon(sock, f2, nil, slog.New(slog.DiscardHandler))
	if err != nil || dd2.follow == nil || dd2.d != nil {
		t.Fatalf("a second dashboard on the socket: %v %+v", err, dd2)
	}
	defer dd2.Shutdown()
	if _, err := dd.d.Manager.Open(headless.Spec{ID: "abcdef0123", Dir: dir}, headless.Attach{Sink: nopSink{}, LastSeen: -1}); err != nil {
		t.Fatal(err)
	}
	id, err := dd.headless.Open(fleet.HeadlessSpec{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := headlessOpener(dd2, nil).Open(fleet.HeadlessSpec{ID: "second", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		kinds := map[string]session.Kind{}
		for _, in := range f.Sessions() {
			kinds[in.ID] = in.Kind
		}
		followed, owned := map[string]bool{}, map[string]bool{}
		for _, in := range f2.Sessions() {
			followed[in.ID] = in.Kind == session.KindHeadless
			owned[in.ID] = in.Owned
		}
		if kinds["claude-abcdef01"] == session.KindHeadless && kinds[id] == session.KindHeadless && followed[id] &&
			owned["second"] && !owned[id] && len(kinds) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions %v", kinds)
		}
		time.Sleep(20 * time.Millisecond)
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
