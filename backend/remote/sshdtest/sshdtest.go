// Package sshdtest runs Debian's OpenSSH server on a loopback port for a
// test, with a host key, a user key and configs made in the test's temp
// dir, forwarding of every kind disabled (as on a locked-down server):
// the "remote" of heimdall's host tests is this machine reached through
// a real sshd.
package sshdtest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
)

// Server is a running sshd. SSH is an ssh (a wrapper giving the user's
// ssh a config of its own) whose host "box" is it; Config is that ssh
// config, a string unique to this server for finding its ssh processes.
type Server struct {
	SSH    string
	Config string
	Port   int
}

// Start starts sshd for the test and stops it at its end. Without sshd
// it skips (it fails in CI, where .ci/run installs openssh-server).
//
// Its sessions get SHLVL=1, so that bash, the user's shell, does not
// read the user's ~/.bashrc as it does for a command run by sshd
// (Debian's bash): the test runs as whoever runs it, and a bashrc that
// waits (a pyenv init behind a stale lock did) would hang every command.
func Start(t testing.TB) *Server {
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
	s := &Server{SSH: filepath.Join(d, "ssh"), Config: filepath.Join(d, "ssh_config"), Port: port}
	os.WriteFile(s.Config, []byte(client), 0o600)
	os.WriteFile(s.SSH, []byte("#!/bin/sh\nexec ssh -F "+s.Config+" \"$@\"\n"), 0o755)
	if !proctest.WaitPort(port, 10*time.Second) {
		t.Fatalf("sshd does not listen on %d: %s", port, errs.String())
	}
	return s
}

// Connections counts the TCP connections sshd has accepted that are
// established now (what `ss -t state established sport = :PORT` lists),
// read from /proc/net/tcp.
func (s *Server) Connections() (int, error) {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// sl local_address rem_address st ...: "0100007F:1F90 ... 01"
		fs := strings.Fields(sc.Text())
		if len(fs) < 4 || fs[3] != "01" {
			continue
		}
		_, p, ok := strings.Cut(fs[1], ":")
		if port, err := strconv.ParseUint(p, 16, 16); ok && err == nil && int(port) == s.Port {
			n++
		}
	}
	return n, sc.Err()
}

// Clients are the pids of the ssh processes that use this server's
// config (those started through SSH), read from /proc.
func (s *Server) Clients() []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 2 && filepath.Base(args[0]) == "ssh" && args[1] == "-F" && args[2] == s.Config {
			pids = append(pids, pid)
		}
	}
	return pids
}
