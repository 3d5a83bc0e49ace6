package fleet_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/remote"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/session/sessiontest"
)

// hostSSH is an ssh that runs the command here (a "host" that is this
// machine with a socket dir of its own); each run appends its pid to
// pids, so a test counts the connections and can drop one.
func hostSSH(t *testing.T) (ssh, pids string) {
	t.Helper()
	d := t.TempDir()
	ssh, pids = filepath.Join(d, "ssh"), filepath.Join(d, "pids")
	script := "#!/bin/sh\necho $$ >> " + pids + "\nwhile [ \"$1\" != -- ]; do shift; done\nshift 2\nexec \"$@\"\n"
	if err := os.WriteFile(ssh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return ssh, pids
}

// hostConfig is the host's config file (its own: the test binaries' dir
// is no config dir).
func hostConfig(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, ".config.toml")
	if err := os.WriteFile(p, []byte("kill_grace = \"1s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// remoteRun starts a detached session in the host's socket dir.
func remoteRun(t *testing.T, dir, id string, argv ...string) {
	t.Helper()
	tui := filepath.Join(filepath.Dir(fleet.HeimdallBin()), "heimdall-tui")
	args := append([]string{"--socket-dir", dir, "--config", hostConfig(t, dir), "run", "--detach", "--id", id, "--"}, argv...)
	if out, err := exec.Command(tui, args...).CombinedOutput(); err != nil {
		t.Fatalf("run %s: %v\n%s", id, err, out)
	}
	t.Cleanup(func() { exec.Command(tui, "--socket-dir", dir, "--config", hostConfig(t, dir), "kill", id).Run() })
}

func waitHost(t *testing.T, f *fleet.Fleet, what string, ok func(fleet.HostInfo) bool) fleet.HostInfo {
	t.Helper()
	var in fleet.HostInfo
	proctest.WaitFor(t, what, 20*time.Second, func() bool {
		hs := f.Hosts()
		if len(hs) == 1 {
			in = hs[0]
		}
		return len(hs) == 1 && ok(in)
	})
	return in
}

// Another host's sessions in the fleet over one ssh: listed as HOST:ID
// with their host, their screens followed, input and kill reaching them;
// thirty of them on one connection; the connection dropped, the host is
// down and its sessions leave, then it comes back by itself with them.
func TestHost(t *testing.T) {
	rdir := proctest.ShortDir(t)
	remoteRun(t, rdir, "r1", "cat")
	ssh, pids := hostSSH(t)
	f := openFleet(t)
	rec := sessiontest.Record(t, f)
	f.FollowHost(fleet.HostOptions{Name: "box", Redial: time.Millisecond,
		Remote: remote.Options{Dest: "box", SSH: ssh, Command: []string{fleet.HeimdallBin(), "--socket-dir", rdir, "--config", hostConfig(t, rdir), "mux"}}})
	rec.Wait(t, session.Added, "box:r1", 0)
	if in := infoOf(t, f, "box:r1"); in.Host != "box" || !in.Alive || in.Kind != session.KindPty {
		t.Fatalf("info %+v", in)
	}
	if err := f.Send("box:r1", session.Input{Data: []byte("over the link\r")}); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, "the echo on the screen", 10*time.Second, func() bool {
		s := f.Screen("box:r1")
		return s != nil && strings.Count(s.Text(), "over the link") == 2
	})
	if h := waitHost(t, f, "up", func(h fleet.HostInfo) bool { return h.Up && h.Sessions == 1 }); h.Err != "" || h.Dest != "box" {
		t.Fatalf("host %+v", h)
	}

	for i := range 30 {
		remoteRun(t, rdir, fmt.Sprintf("m%02d", i), "sleep", "600")
	}
	waitHost(t, f, "31 sessions", func(h fleet.HostInfo) bool { return h.Sessions == 31 })
	if b, _ := os.ReadFile(pids); strings.Count(string(b), "\n") != 1 {
		t.Fatalf("ssh ran %d times for 31 sessions", strings.Count(string(b), "\n"))
	}

	// The connection drops: down, its sessions gone; back by itself.
	b, _ := os.ReadFile(pids)
	var pid int
	fmt.Sscan(string(b), &pid)
	syscall.Kill(pid, syscall.SIGKILL)
	rec.Wait(t, session.Removed, "box:r1", 0)
	waitHost(t, f, "back up", func(h fleet.HostInfo) bool { return h.Up && h.Sessions == 31 })
	rec.Wait(t, session.Added, "box:r1", 0)
	proctest.WaitFor(t, "r1's screen again", 10*time.Second, func() bool {
		s := f.Screen("box:r1")
		return s != nil && strings.Contains(s.Text(), "over the link")
	})

	// Spawned on the host, with the host's preset: it runs there (its
	// socket is in the host's dir) and is listed as the host's.
	id, err := f.Spawn(fleet.Spec{ID: "box:sh1", Agent: "shell", Argv: []string{"/no/such/local/shell"}, Dir: "/no/such/local/dir"})
	if err != nil || id != "box:sh1" {
		t.Fatalf("spawn on the host: %q %v", id, err)
	}
	if _, err := os.Stat(filepath.Join(rdir, "sh1.sock")); err != nil {
		t.Fatalf("the spawned session's socket on the host: %v", err)
	}
	if in := infoOf(t, f, "box:sh1"); in.Host != "box" || !in.Alive {
		t.Fatalf("spawned: %+v", in)
	}
	if _, err := f.Spawn(fleet.Spec{ID: "box:sh2", Agent: "no-such-preset", Argv: []string{"x"}}); err == nil || !strings.Contains(err.Error(), `no preset "no-such-preset"`) {
		t.Fatalf("spawn of a preset the host lacks: %v", err)
	}
	// Restarted there, from its record there: a new program, same ID.
	again := func(id string, old int) {
		t.Helper()
		proctest.WaitFor(t, id+" started again", 10*time.Second, func() bool {
			for _, in := range f.Sessions() {
				if in.ID == id {
					return in.Alive && in.PID != 0 && in.PID != old && in.Host == "box"
				}
			}
			return false
		})
	}
	pid0 := infoOf(t, f, "box:sh1").PID
	if err := f.Restart("box:sh1"); err != nil {
		t.Fatal(err)
	}
	again("box:sh1", pid0)
	f.Kill("box:sh1", false)

	if err := f.Kill("box:r1", false); err != nil {
		t.Fatal(err)
	}
	rec.Wait(t, session.Exited, "box:r1", 0)
	pid0 = infoOf(t, f, "box:r1").PID
	if err := f.Restart("box:r1"); err != nil { // ended: started again at once
		t.Fatal(err)
	}
	again("box:r1", pid0)
	if err := f.Send("box:r1", session.Input{Data: []byte("cat again\r")}); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, "r1's program again (cat)", 10*time.Second, func() bool {
		s := f.Screen("box:r1")
		return s != nil && strings.Count(s.Text(), "cat again") == 2 && !strings.Contains(s.Text(), "over the link")
	})
	if err := f.Kill("box:r1", false); err != nil {
		t.Fatal(err)
	}
	// A forced kill of another host's session is its supervisor's to do
	// (no pid of it is this machine's to signal).
	if err := f.Kill("box:m00", true); err != nil {
		t.Fatal(err)
	}
	rec.Wait(t, session.Exited, "box:m00", 0)
}
