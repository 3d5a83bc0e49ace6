package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// hostsConfig is a config with a host "box" that is this machine with a
// socket dir of its own (rdir), reached through a fake ssh that runs the
// command here, and a host that cannot be reached.
func hostsConfig(t *testing.T, rdir string, extra string) (cfg, ssh string) {
	t.Helper()
	d := t.TempDir()
	ssh = filepath.Join(d, "ssh")
	script := "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done\nshift\n" +
		"[ \"$1\" = nowhere ] && { echo 'ssh: Could not resolve hostname nowhere: Name or service not known' >&2; exit 255; }\n" +
		"shift\nexec \"$@\"\n"
	if err := os.WriteFile(ssh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg = filepath.Join(d, "config.toml")
	conf := fmt.Sprintf("kill_grace = \"1s\"\n%s\n[[hosts]]\nname = \"box\"\nssh = \"box\"\ncommand = [%q, \"--socket-dir\", %q, \"--config\", %q, \"mux\"]\n",
		extra, smallPath, rdir, cfg)
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

	// The CLI verbs take HOST:ID, over one ssh each.
	on := func(args ...string) result {
		t.Helper()
		return hm(t, append([]string{"--config", cfg, "--socket-dir", dir}, args...)...)
	}
	if r := on("status", "box:r1"); r.code != 0 || !strings.Contains(r.stdout, "alive:    true") {
		t.Fatalf("status box:r1: %+v", r)
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

// Another host's session in the dashboard, as a user would use it: listed
// with its host in the HOST column, a line sent with i, attached full
// screen over the link (Ctrl-\ back), killed with x.
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
