package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/remote/sshdtest"
)

// hostsConfig is a config with a host "box" that is this machine with a
// socket dir of its own (rdir), reached through a fake ssh that runs the
// command here, and a host that cannot be reached.
func hostsConfig(t testing.TB, rdir string, extra string) (cfg, ssh string) {
	t.Helper()
	d := t.TempDir()
	ssh = filepath.Join(d, "ssh")
	script := "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done\nshift\n" +
		"[ \"$1\" = nowhere ] && { echo 'ssh: Could not resolve hostname nowhere: Name or service not known' >&2; exit 255; }\n" +
		"shift\nexec sh -c \"$*\"\n" // as ssh: the words joined, for the far end's shell
	if err := os.WriteFile(ssh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg = filepath.Join(d, "config.toml")
	// The far end keeps its sessions' records where its supervisors do:
	// sshd gives the command a fresh environment, so the state dir is
	// named (as a user who sets XDG_STATE_HOME in a profile ssh commands
	// do not read must).
	conf := fmt.Sprintf("kill_grace = \"1s\"\n%s\n[[hosts]]\nname = \"box\"\nssh = \"box\"\ncommand = [\"env\", %q, %q, \"--socket-dir\", %q, \"--config\", %q, \"mux\"]\n",
		extra, "XDG_STATE_HOME="+os.Getenv("XDG_STATE_HOME"), smallPath, rdir, cfg)
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg, ssh
}

// `hosts` lists each host with its state and sessions, saying what ssh
// said of one it could not reach (exit 1).
func TestHostsCmd(t *testing.T) {
	dir, rdir := newSockDir(t), newSockDir(t)
	cfg, ssh := hostsConfig(t, rdir, "")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, append(b, []byte("[[hosts]]\nname = \"far\"\nssh = \"nowhere\"\n")...), 0o600)
	waitLive(t, startRun(t, rdir, "r1", []string{"--config", cfg}, nil, "sleep", "60"))
	t.Setenv("HEIMDALL_SSH", ssh)
	r := hm(t, "--config", cfg, "--socket-dir", dir, "hosts")
	if r.code != 1 || !regexp.MustCompile(`box +box +up +1`).MatchString(r.stdout) ||
		!regexp.MustCompile(`far +nowhere +down +0 +ssh nowhere: ssh: Could not resolve hostname nowhere`).MatchString(r.stdout) {
		t.Fatalf("hosts: %+v", r)
	}

	// The CLI verbs take HOST:ID, ls --host NAME, over one ssh each.
	on := func(args ...string) result {
		t.Helper()
		return hm(t, append([]string{"--config", cfg, "--socket-dir", dir}, args...)...)
	}
	if r := on("status", "box:r1"); r.code != 0 || !strings.Contains(r.stdout, "alive:    true") {
		t.Fatalf("status box:r1: %+v", r)
	}
	if r := on("ls", "--host", "box"); r.code != 0 || !regexp.MustCompile(`(?m)^box:r1 +pid=\d+ +state=\S+ +idle=\S+ +alive=yes$`).MatchString(r.stdout) {
		t.Fatalf("ls --host box: %+v", r)
	}
	if r := on("ls", "--host", "nope"); r.code == 0 || !strings.Contains(r.stderr, `no host "nope"`) {
		t.Fatalf("ls --host nope: %+v", r)
	}
	if r := on("status", "box:nope"); r.code != 1 || !strings.Contains(r.stderr, "No session found: box:nope") {
		t.Fatalf("status box:nope: %+v", r)
	}
	if r := on("kill", "box:r1"); r.code != 0 {
		t.Fatalf("kill box:r1: %+v", r)
	}
	if !poll(waitTimeout, func() bool { return on("status", "box:r1").code == 1 }) {
		t.Fatal("box:r1 still answers after kill")
	}
}

// A question on another host, answered from here: the session asks
// (send), wait sees it, the inbox lists it with its host, answer types
// the agent's own key there, and the turn ends.
func TestAnswerOnHost(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("FAKE_CLAUDE_STEP", "100")
	dir, rdir := newSockDir(t), newSockDir(t)
	cfg, ssh := hostsConfig(t, rdir, "")
	t.Setenv("HEIMDALL_SSH", ssh)
	keys := filepath.Join(t.TempDir(), "a1.keys")
	waitLive(t, startRun(t, rdir, "a1", []string{"--config", cfg}, []string{"--agent", "claude", "--classifier", "claude"},
		"env", "FAKE_CLAUDE_KEYS="+keys, fakeClaudePath))
	on := func(args ...string) result {
		t.Helper()
		return hm(t, append([]string{"--config", cfg, "--socket-dir", dir}, args...)...)
	}
	if r := on("send", "box:a1", "perm"); r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	if r := on("wait", "box:a1", "--for", "input", "--timeout", "30s"); r.code != 0 {
		t.Fatalf("wait for input: %+v", r)
	}
	if r := on("inbox"); !regexp.MustCompile(`box:a1 +input +Bash`).MatchString(r.stdout) {
		t.Fatalf("inbox:\n%+v", r)
	}
	if r := on("answer", "box:a1", "allow", "--question", "Do you want to proceed?"); r.code != 0 || r.stdout != "box:a1: 1. Yes (Do you want to proceed?)\n" {
		t.Fatalf("answer: %+v", r)
	}
	if r := on("wait", "box:a1", "--for", "done", "--timeout", "30s"); r.code != 0 {
		t.Fatalf("wait for done: %+v", r)
	}
	if b, _ := os.ReadFile(keys); string(b) != "perm key 1\n" {
		t.Fatalf("the session read %q", b)
	}
}

// Another host's session in the dashboard, as a user would use it: listed
// with its host in the HOST column, a line sent with i, attached full
// screen (over ssh -t to the host's heimdall attach; Ctrl-\ back), killed
// with x.
func TestDashboardHost(t *testing.T) {
	t.Parallel()
	rdir := newSockDir(t)
	d := newDash(t)
	cfg, ssh := hostsConfig(t, rdir, "")
	d.cfg = cfg
	d.env = append(d.env, "HEIMDALL_SSH="+ssh)
	waitLive(t, startRun(t, rdir, "r1", []string{"--config", cfg}, nil, "bash", "--norc", "--noprofile", "-i"))
	d.open()
	d.waitScreen("the host's session listed with its host", func(s string) bool {
		return regexp.MustCompile(`HOST +NAME`).MatchString(s) && regexp.MustCompile(`box +box:r1`).MatchString(s)
	})
	d.sendTo("box:r1", "echo over-$((40+2))")
	d.waitFor("over-42")
	d.sendKeys("Enter")
	d.waitScreen("attached to box:r1", func(s string) bool { return !strings.Contains(s, "heimdall ·") })
	d.sendLine("echo attached-$((6*7))")
	d.waitFor("attached-42")
	d.sendKeys(`C-\`)
	d.waitFor("detached from box:r1")
	// Spawned on the host from the command line: NAME HOST:ID.
	d.command("spawn shell box:w1")
	d.waitScreen("w1 started on the host", func(s string) bool { return regexp.MustCompile(`box +box:w1`).MatchString(s) })
	if _, err := os.Stat(filepath.Join(rdir, "w1.sock")); err != nil {
		t.Fatalf("w1 is not the host's: %v", err)
	}
	d.run("send-keys", "-t", "main", "k") // back to r1
	d.waitFor("╭─ box:r1")
	d.sendKeys("x")
	d.waitFor("Kill box:r1")
	d.sendKeys("y")
	d.waitScreen("box:r1 killed", func(s string) bool { return regexp.MustCompile(`box:r1 +(exit|Dead)`).MatchString(s) })
	d.quitChoosing("l")
}

// The done-when of hosts, as a user would see it, against Debian's
// OpenSSH server on a loopback port (keys and configs made here,
// forwarding disabled): a local session and 31 on "box" (this machine
// with a socket dir of its own) listed together; send, attach (over an
// ssh -t of its own while attached), spawn,
// restart, resize and kill on box; one TCP connection to sshd with every session on it;
// the dashboard's ssh killed: box shows as down with its reason, then
// comes back by itself with its sessions and their screens.
func TestDashboardOverOpenSSH(t *testing.T) {
	t.Parallel()
	srv := sshdtest.Start(t)
	rdir := newSockDir(t)
	d := newDash(t)
	cfg, _ := hostsConfig(t, rdir, "")
	d.cfg = cfg
	d.env = append(d.env, "HEIMDALL_SSH="+srv.SSH)
	const remote = 31
	procs := []*proc{startRun(t, rdir, "r1", []string{"--config", cfg}, nil, "bash", "--norc", "--noprofile", "-i")}
	for i := 2; i <= remote; i++ {
		procs = append(procs, startRun(t, rdir, fmt.Sprintf("r%d", i), []string{"--config", cfg}, nil, "sh", "-c", fmt.Sprintf("echo remote-%d; exec sleep 600", i)))
	}
	procs = append(procs, startRun(t, d.dir, "l1", nil, nil, "sh", "-c", "echo local-one; exec sleep 600"))
	for _, p := range procs {
		waitLive(t, p)
	}
	running := func(n int) func(string) bool {
		return func(s string) bool { return strings.Contains(s, fmt.Sprintf("%d running", n)) }
	}
	d.open()
	d.waitScreen("local and remote sessions listed together", func(s string) bool {
		return running(remote+1)(s) && regexp.MustCompile(`box +box:r1 `).MatchString(s) && listRow("l1").MatchString(s)
	})
	if n, err := srv.Connections(); err != nil || n != 1 {
		t.Fatalf("%d connections to sshd with %d sessions listed (%v), want 1", n, remote, err)
	}
	if c := srv.Clients(); len(c) != 1 {
		t.Fatalf("ssh processes %v, want the dashboard's one", c)
	}

	// Send, attach full screen, spawn on box.
	d.selectID("box:r1")
	d.sendTo("box:r1", "echo over-$((40+2))")
	d.waitFor("over-42")
	d.sendKeys("Enter")
	d.waitScreen("attached to box:r1", func(s string) bool { return !strings.Contains(s, "heimdall ·") })
	d.sendLine("echo attached-$((6*7))")
	d.waitFor("attached-42")
	// Attached full screen, the terminal is ssh -t's, to box's heimdall
	// attach: a connection of its own while attached, as plain ssh's.
	if n, _ := srv.Connections(); n != 2 || len(srv.Clients()) != 2 {
		t.Fatalf("attached: %d connections to sshd, ssh processes %v; want the link's and the attach's", n, srv.Clients())
	}
	d.sendKeys(`C-\`)
	d.waitFor("detached from box:r1")
	if !poll(waitTimeout, func() bool { n, _ := srv.Connections(); return n == 1 && len(srv.Clients()) == 1 }) {
		n, _ := srv.Connections()
		t.Fatalf("detached: %d connections to sshd, ssh processes %v; want the link's alone", n, srv.Clients())
	}
	d.command("spawn shell box:w1")
	d.waitScreen("w1 started on box", func(s string) bool { return running(remote + 2)(s) })
	if _, err := os.Stat(filepath.Join(rdir, "w1.sock")); err != nil {
		t.Fatalf("w1 is not box's: %v", err)
	}
	if n, _ := srv.Connections(); n != 1 {
		t.Fatalf("%d connections to sshd after the spawn, want 1", n)
	}

	// The link cut: box is down, then back by itself.
	c := srv.Clients()
	if len(c) != 1 {
		t.Fatalf("ssh processes %v, want the dashboard's one", c)
	}
	syscall.Kill(c[0], syscall.SIGKILL)
	cut := time.Now()
	d.waitScreen("box down with its reason", func(s string) bool { return strings.Contains(s, "✗ box down:") && running(1)(s) })
	d.waitScreen("box back with its sessions", func(s string) bool {
		return running(remote+2)(s) && !strings.Contains(s, "box down")
	})
	t.Logf("box back %v after its ssh was killed", time.Since(cut).Round(time.Millisecond))
	d.selectID("box:r1")
	d.waitScreen("box:r1's screen back", func(s string) bool { return paneLine("attached-42").MatchString(s) })
	if n, _ := srv.Connections(); n != 1 {
		t.Fatalf("%d connections to sshd after the reconnect, want 1", n)
	}
	for _, p := range procs[:2] {
		if p.exited() {
			t.Fatal("a remote session ended with the dashboard's connection")
		}
	}

	// Restart on box, from its record there: a new bash, a fresh screen.
	d.sendKeys("R")
	d.waitFor("Restart box:r1?")
	d.sendKeys("y")
	d.waitScreen("box:r1 started again", func(s string) bool {
		return !paneLine("attached-42").MatchString(s) && regexp.MustCompile(`box +box:r1 `).MatchString(s) && running(remote+2)(s)
	})
	d.sendTo("box:r1", "echo again-$((40+2))")
	d.waitFor("again-42")
	d.command("resize box:r1 100x30")
	d.waitFor("resized to 100×30")
	d.sendTo("box:r1", "stty size")
	d.waitScreen("stty size 30 100 on box", func(s string) bool { return paneLine("30 100").MatchString(s) })

	// Kill on box.
	d.sendKeys("x")
	d.waitFor("Kill box:r1")
	d.sendKeys("y")
	d.waitScreen("box:r1 killed", func(s string) bool { return regexp.MustCompile(`box:r1 +(exit|Dead)`).MatchString(s) })
	d.quitChoosing("l")
}

// selectID moves the list's selection to session id: home, then down
// one row at a time, each time waiting for the pane beside the list to
// show another session, until it is id's.
func (d *dash) selectID(id string) {
	d.t.Helper()
	title := regexp.MustCompile(`╭─ ` + regexp.QuoteMeta(id) + `[ ─]`)
	pane := regexp.MustCompile(`╭─ (\S+)`)
	shown := func(s string) string {
		if m := pane.FindStringSubmatch(s); m != nil {
			return m[1]
		}
		return ""
	}
	d.sendKeys("Home")
	d.waitScreen("the first row selected", func(s string) bool {
		lines := strings.Split(s, "\n")
		for i, l := range lines[:len(lines)-1] {
			if strings.Contains(l, "NAME") && strings.Contains(l, "STATE") {
				return strings.HasPrefix(lines[i+1], ">") && shown(s) != ""
			}
		}
		return false
	})
	for range 64 {
		s := d.capture()
		if title.MatchString(s) {
			return
		}
		was := shown(s)
		d.sendKeys("Down")
		d.waitScreen("the next session selected", func(s string) bool { return shown(s) != was })
	}
	d.waitScreen(id+" selected", title.MatchString)
}

// choose moves the open spawn form's selection down until the screen
// shows marker (a preset's row, "▸ NAME "), one row at a time.
func (d *dash) choose(marker string) {
	d.t.Helper()
	sel := regexp.MustCompile(`▸ (\S+)`)
	for range 10 {
		s := d.capture()
		if strings.Contains(s, marker) {
			return
		}
		was := sel.FindString(s)
		d.sendKeys("Down")
		d.waitScreen("the selection moved", func(s string) bool { return sel.FindString(s) != was })
	}
	d.waitFor(marker)
}

// `web` serves another host's sessions too: listed with their host, and
// a page's terminal on one types into it and shows its output.
func TestWebOnHost(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir, rdir := newSockDir(t), newSockDir(t)
	cfg, ssh := hostsConfig(t, rdir, "")
	t.Setenv("HEIMDALL_SSH", ssh)
	waitLive(t, startRun(t, rdir, "r1", []string{"--config", cfg}, nil, "bash", "--norc", "--noprofile", "-i"))
	_, base, token := startWebCmd(t, dir, cfg, "--addr", "127.0.0.1:0")
	var list struct {
		Sessions []struct {
			ID   string `json:"id"`
			Host string `json:"host"`
		} `json:"sessions"`
	}
	if !poll(waitTimeout, func() bool {
		resp, err := webGet(base+"/api/sessions", token)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		json.NewDecoder(resp.Body).Decode(&list)
		return len(list.Sessions) == 1 && list.Sessions[0].ID == "box:r1" && list.Sessions[0].Host == "box"
	}) {
		t.Fatalf("session list %+v", list)
	}
	w := dialTerm(t, base, token, "/ws/box:r1")
	w.input("echo on-box-$((40+2))\r")
	w.untilOutput("on-box-42")
}
