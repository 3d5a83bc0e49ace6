package remote

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
	"github.com/heimdall-tui/heimdall-tui/wire/mux"
)

var heimdallBin string // built once by TestMain; heimdall-tui is beside it

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "remotebin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	heimdallBin, err = proctest.BuildHeimdall(tmp)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// startSession runs a detached session in dir and stops it at the end.
func startSession(t *testing.T, dir, id string, argv ...string) {
	t.Helper()
	tui := filepath.Join(filepath.Dir(heimdallBin), "heimdall-tui")
	args := append([]string{"--socket-dir", dir, "run", "--detach", "--id", id, "--"}, argv...)
	if out, err := exec.Command(tui, args...).CombinedOutput(); err != nil {
		t.Fatalf("run %s: %v\n%s", id, err, out)
	}
	t.Cleanup(func() { exec.Command(tui, "--socket-dir", dir, "kill", id).Run() })
}

// fakeSSH is an ssh that runs the command here: it checks the options
// Connect gives, drops them and the destination, and runs the rest.
func fakeSSH(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ssh")
	script := "#!/bin/sh\n[ \"$1\" = -T ] || { echo 'no -T' >&2; exit 9; }\n" +
		"while [ \"$1\" != -- ]; do shift; done\nshift\n" +
		"[ \"$1\" = unreachable ] && { echo 'ssh: connect to host unreachable port 22: Connection refused' >&2; exit 255; }\n" +
		"shift\nexec \"$@\"\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Through ssh's stdio (a fake ssh here): the far end announces its
// sessions, a channel to one speaks the session's own frame protocol,
// a session that starts later is announced, a host that cannot be reached
// says why, and a destination that looks like an option is refused.
func TestConnect(t *testing.T) {
	dir := proctest.ShortDir(t)
	startSession(t, dir, "s1", "sh", "-c", "echo hello-remote; exec sleep 60")
	ann := make(chan mux.Sessions, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o := Options{Dest: "box", Command: []string{heimdallBin, "--socket-dir", dir, "mux"}, SSH: fakeSSH(t)}
	l, err := Connect(ctx, o, func(s mux.Sessions) { ann <- s })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if h := l.Hello(); h.Dir != dir {
		t.Fatalf("hello %+v", h)
	}
	if s := <-ann; len(s.Added) != 1 || s.Added[0] != "s1" {
		t.Fatalf("first announcement %+v", s)
	}
	conn, err := l.Dial("s1")
	if err != nil {
		t.Fatal(err)
	}
	c, err := frame.NewClient(conn, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Conn().SetDeadline(time.Now().Add(10 * time.Second))
	st, err := c.Status()
	if err != nil || !st.Alive {
		t.Fatalf("STATUS over the channel: %+v %v", st, err)
	}
	si, err := c.Screen(false)
	if err != nil || !strings.Contains(si.Screen, "hello-remote") {
		t.Fatalf("SCREEN over the channel: %q %v", si.Screen, err)
	}
	c.Close()
	startSession(t, dir, "s2", "sleep", "60")
	select {
	case s := <-ann:
		if len(s.Added) != 1 || s.Added[0] != "s2" {
			t.Fatalf("announcement %+v", s)
		}
	case <-ctx.Done():
		t.Fatal("s2 was not announced")
	}
	if _, err := l.Dial("nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("dial nope: %v", err)
	}
	if _, err := l.Dial("../x"); err == nil || !strings.Contains(err.Error(), "invalid session id") {
		t.Fatalf("dial ../x: %v", err)
	}

	o.Dest = "unreachable"
	if _, err := Connect(ctx, o, nil); err == nil || !strings.Contains(err.Error(), "Connection refused") {
		t.Fatalf("unreachable: %v", err)
	}
	o.Dest = "-oProxyCommand=evil"
	if _, err := Connect(ctx, o, nil); err == nil || !strings.Contains(err.Error(), "starts with '-'") {
		t.Fatalf("an option as destination: %v", err)
	}
}

// sshd serves a loopback port with a host key and a user key made here;
// it returns an ssh (a wrapper giving ssh a config of its own) whose
// host "box" is it. Its sessions get SHLVL=1, so that bash, the user's
// shell, does not read the user's ~/.bashrc as it does for a command run
// by sshd (Debian's bash): the test runs as whoever runs it, and a
// bashrc that waits (a pyenv init behind a stale lock did) would hang
// every command.
func sshd(t *testing.T) string {
	t.Helper()
	sshdPath, err := exec.LookPath("sshd")
	if err != nil {
		if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("no sshd (in CI, .ci/run installs openssh-server)")
			}
			t.Skip("no sshd: apt-get install openssh-server")
		}
		sshdPath = "/usr/sbin/sshd"
	}
	d := t.TempDir()
	for _, k := range []string{"host", "user"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(d, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub, _ := os.ReadFile(filepath.Join(d, "user.pub"))
	os.WriteFile(filepath.Join(d, "authorized_keys"), pub, 0o600)
	port := proctest.FreePort(t)
	conf := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s/host
AuthorizedKeysFile %s/authorized_keys
PidFile %s/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
AllowTcpForwarding no
AllowStreamLocalForwarding no
AllowAgentForwarding no
X11Forwarding no
PermitTunnel no
SetEnv SHLVL=1
LogLevel ERROR
`, port, d, d, d)
	os.WriteFile(filepath.Join(d, "sshd_config"), []byte(conf), 0o600)
	if os.Geteuid() == 0 {
		os.MkdirAll("/run/sshd", 0o755) // privilege separation's chroot
	}
	cmd := exec.Command(sshdPath, "-D", "-e", "-f", filepath.Join(d, "sshd_config"))
	var errs strings.Builder
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	client := fmt.Sprintf("Host box\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  IdentityFile %s/user\n  IdentitiesOnly yes\n  UserKnownHostsFile %s/known_hosts\n  StrictHostKeyChecking accept-new\n  LogLevel ERROR\n",
		port, os.Getenv("USER"), d, d)
	if u := os.Getenv("USER"); u == "" {
		client = strings.Replace(client, "  User \n", "", 1)
	}
	os.WriteFile(filepath.Join(d, "ssh_config"), []byte(client), 0o600)
	ssh := filepath.Join(d, "ssh")
	os.WriteFile(ssh, []byte("#!/bin/sh\nexec ssh -F "+filepath.Join(d, "ssh_config")+" \"$@\"\n"), 0o755)
	if !proctest.WaitPort(port, 10*time.Second) {
		t.Fatalf("sshd does not listen on %d: %s", port, errs.String())
	}
	return ssh
}

// Over a real OpenSSH server with forwarding disabled: one ssh process
// carries the channels; killing it ends the link with the reason, and
// the session goes on.
func TestOverOpenSSH(t *testing.T) {
	ssh := sshd(t)
	dir := proctest.ShortDir(t)
	startSession(t, dir, "r1", "sh", "-c", "echo over-ssh; exec sleep 60")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ann := make(chan mux.Sessions, 8)
	l, err := Connect(ctx, Options{Dest: "box", Command: []string{heimdallBin, "--socket-dir", dir, "mux"}, SSH: ssh}, func(s mux.Sessions) { ann <- s })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if s := <-ann; len(s.Added) != 1 || s.Added[0] != "r1" {
		t.Fatalf("announcement %+v", s)
	}
	for range 3 { // three channels, one connection
		conn, err := l.Dial("r1")
		if err != nil {
			t.Fatal(err)
		}
		c, err := frame.NewClient(conn, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.Conn().SetDeadline(time.Now().Add(10 * time.Second))
		if si, err := c.Screen(false); err != nil || !strings.Contains(si.Screen, "over-ssh") {
			t.Fatalf("SCREEN over ssh: %q %v", si.Screen, err)
		}
	}
	l.cmd.Process.Kill()
	select {
	case <-l.Done():
	case <-ctx.Done():
		t.Fatal("the link did not end with ssh")
	}
	tui := filepath.Join(filepath.Dir(heimdallBin), "heimdall-tui")
	if out, err := exec.Command(tui, "--socket-dir", dir, "status", "r1").CombinedOutput(); err != nil || !strings.Contains(string(out), "alive:    true") {
		t.Fatalf("the session after the link ended: %v\n%s", err, out)
	}
}
