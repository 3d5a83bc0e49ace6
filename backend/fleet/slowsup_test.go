package fleet

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// envSlowSupervisor makes the test binary a supervisor that serves its
// session's socket but does not answer its first connection (runSlowSupervisor).
const envSlowSupervisor = "FLEETTEST_SLOW_SUPERVISOR"

// runSlowSupervisor is the test binary as `run --dashboard --socket-dir
// DIR … --id ID …`, when envSlowSupervisor is set: it listens on
// DIR/ID.sock, says it started (its stderr closed), leaves its first
// connection unanswered, as a supervisor at a low priority on a busy
// machine does for a while, and answers the next as a current supervisor
// of an idle session does, until the fleet disconnects.
func runSlowSupervisor() {
	if os.Getenv(envSlowSupervisor) == "" {
		return
	}
	args := os.Args[1:]
	flag := func(name string) string {
		if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
			return args[i+1]
		}
		return ""
	}
	l, err := net.Listen("unix", supervisor.SocketPath(flag("--socket-dir"), flag("--id")))
	if err != nil {
		os.Stderr.WriteString(err.Error())
		os.Exit(1)
	}
	os.Stderr.Close() // served: the fleet reads EOF
	for n := 0; ; n++ {
		c, err := l.Accept()
		if err != nil {
			os.Exit(0)
		}
		if n == 0 {
			continue // kept open, never answered
		}
		serveFake(c, true, func(fr frame.Frame) {
			if answerHello(c, fr) {
				return
			}
			if fr.Type == frame.WatchScreen {
				frame.Write(c, frame.Paint, frame.AppendPaint(nil, frame.PaintHeader{Cols: 80, Rows: 24, Seq: 1}, []byte("\x1bcslow")))
			}
		})
		os.Exit(0) // the fleet has gone
	}
}

// A spawn whose supervisor serves but does not answer within a dial's
// timeout (busy, at its low priority) is followed once it answers, within
// launchWait, rather than failed and stopped.
func TestSpawnWaitsForASlowSupervisor(t *testing.T) {
	dir := shortDir(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(envSlowSupervisor, "1") // the fleet's spawns inherit it
	o := testOptions(t, dir, testConfig())
	o.Supervisor = []string{self, "--socket-dir", dir}
	f := openFleet(t, o)
	id, err := f.Spawn(Spec{ID: "slow", Argv: []string{"sleep", "60"}, Dir: filepath.Dir(dir)})
	if err != nil {
		t.Fatalf("spawn: %v", err)
	}
	if in := mustInfo(t, f, id); !in.Alive || in.State != session.Idle || in.Cols != 80 {
		t.Fatalf("info %+v", in)
	}
	if got := f.Screen(id); got == nil || got.Text() != "slow" {
		t.Fatalf("screen %v", got)
	}
}
