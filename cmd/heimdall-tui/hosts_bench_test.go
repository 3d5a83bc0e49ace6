package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/remote/sshdtest"
)

// BenchmarkHostKeystrokeRTT times a keystroke's round trip to a session
// on another host (Debian's sshd on a loopback port; this machine with a
// socket dir of its own), typed into a 120×35 pty and echoed by a
// raw-mode cat at the far end, through three clients side by side in
// interleaved rounds:
//
//	ssh       `ssh -t box heimdall-tui attach r1`: the user's plain way
//	attach    `heimdall-tui attach box:r1`: its link to box learns box's heimdall, then `ssh -t box heimdall attach r1`
//	dashboard the dashboard attached full screen (enter) to box:r1: the same ssh -t, beside its link to box
//
// and reports each one's p50 and p99 over every key (µs) and ours over
// ssh's (x_ssh). Each key is typed when the last came back.
//
//	go test -run '^$' -bench HostKeystrokeRTT -benchtime 1x ./cmd/heimdall-tui/
//
// $HEIMDALL_BENCH_ROUNDS (10) rounds of $HEIMDALL_BENCH_KEYS (100) keys
// per client.
func BenchmarkHostKeystrokeRTT(b *testing.B) {
	rounds, keys := envCount(b, "HEIMDALL_BENCH_ROUNDS", 10), envCount(b, "HEIMDALL_BENCH_KEYS", 100)
	srv := sshdtest.Start(b)
	rdir, ldir := newSockDir(b), newSockDir(b)
	cfg, _ := hostsConfig(b, rdir, "")
	const prog = "stty raw -echo; printf READY; exec cat"
	run := exec.Command(smallPath, "--config", cfg, "--socket-dir", rdir, "run", "--detach", "--id", "r1", "--", "sh", "-c", prog)
	if out, err := run.CombinedOutput(); err != nil {
		b.Fatalf("run: %v\n%s", err, out)
	}
	env := append(os.Environ(), "HEIMDALL_SSH="+srv.SSH, "TERM=xterm-256color")
	clients := []rttClient{
		{"ssh", func() []string {
			return []string{srv.SSH, "-t", "box", binPath, "--config", cfg, "--socket-dir", rdir, "attach", "r1"}
		}, nil},
		{"attach", func() []string {
			return []string{binPath, "--config", cfg, "--socket-dir", ldir, "attach", "box:r1"}
		}, nil},
		{"dashboard", func() []string {
			return []string{binPath, "--config", cfg, "--socket-dir", ldir}
		}, func(fd int) error {
			if err := drainPty(fd, "box:r1"); err != nil {
				return err
			}
			unix.Write(fd, []byte("\r")) // attach the selected session, the only one
			return drainPty(fd, "READY")
		}},
	}
	lat := make([][]time.Duration, len(clients))
	b.ResetTimer()
	for range rounds {
		for i, c := range clients {
			l, err := c.round(env, keys)
			if err != nil {
				b.Fatalf("%s: %v", c.name, err)
			}
			lat[i] = append(lat[i], l...)
		}
	}
	b.StopTimer()
	p := func(i int, q float64) time.Duration {
		s := slices.Clone(lat[i])
		slices.Sort(s)
		return s[min(len(s)-1, int(q*float64(len(s))))]
	}
	for i, c := range clients {
		b.ReportMetric(float64(p(i, 0.5).Microseconds()), c.name+"_p50_µs")
		b.ReportMetric(float64(p(i, 0.99).Microseconds()), c.name+"_p99_µs")
		if i > 0 {
			b.ReportMetric(float64(p(i, 0.5))/float64(p(0, 0.5)), c.name+"_p50_x_ssh")
			b.ReportMetric(float64(p(i, 0.99))/float64(p(0, 0.99)), c.name+"_p99_x_ssh")
		}
	}
	b.ReportMetric(0, "ns/op")
}

// rttClient is one way of reaching the session: argv run in a pty;
// ready, if set, brings it to the attached session (else it is once the
// session's screen, READY, came).
type rttClient struct {
	name  string
	argv  func() []string
	ready func(fd int) error
}

// round starts the client, times keys (after 10 untimed) and ends it.
func (c rttClient) round(env []string, keys int) ([]time.Duration, error) {
	argv := c.argv()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 35})
	if err != nil {
		return nil, err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGHUP)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		ptmx.Close()
	}()
	fd := int(ptmx.Fd())
	ready := c.ready
	if ready == nil {
		ready = func(fd int) error { return drainPty(fd, "READY") }
	}
	if err := ready(fd); err != nil {
		return nil, err
	}
	const warm = 10
	buf := make([]byte, 64<<10)
	lat := make([]time.Duration, 0, keys)
	for i := range warm + keys {
		begin := time.Now()
		if _, err := unix.Write(fd, []byte{'x'}); err != nil {
			return nil, err
		}
		for echoed := false; !echoed; {
			n, err := ptyRead(fd, buf, 5*time.Second)
			if err != nil {
				return nil, fmt.Errorf("key %d: %w", i, err)
			}
			echoed = slices.Contains(buf[:n], 'x')
		}
		if i >= warm {
			lat = append(lat, time.Since(begin))
		}
	}
	return lat, nil
}

// drainPty reads fd until want has come and then nothing for 200 ms (the
// rest of the screen drawn).
func drainPty(fd int, want string) error {
	buf := make([]byte, 64<<10)
	var seen []byte
	for !strings.Contains(string(seen), want) {
		n, err := ptyRead(fd, buf, 10*time.Second)
		if err != nil {
			return fmt.Errorf("waiting for %q: %w (got %q)", want, err, seen[max(0, len(seen)-300):])
		}
		seen = append(seen, buf[:n]...)
	}
	for {
		if _, err := ptyRead(fd, buf, 200*time.Millisecond); err != nil {
			return nil
		}
	}
}

// ptyRead waits up to d for fd to be readable and reads once.
func ptyRead(fd int, buf []byte, d time.Duration) (int, error) {
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(pfd, int(d.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, errors.New("timed out")
		}
		k, err := unix.Read(fd, buf)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return 0, err
		}
		if k == 0 {
			return 0, errors.New("end of output")
		}
		return k, nil
	}
}

// envCount is the positive count $name gives, or def.
func envCount(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive count", name, s)
	}
	return n
}
