package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// The rtt scenario times a keystroke's round trip as a user typing through
// `heimdall-tui attach` feels it, beside tmux, in one run: a byte written
// to a pty, echoed by a raw-mode `cat` at the far end, timed until it
// comes back out of the same pty. The targets, measured in interleaved
// rounds (every target once per round, in turn) so that other load on the
// machine hits them alike:
//
//	pty            cat in the harness's own pty: the kernel's and cat's share, the floor
//	BIN/socket     a frame client (this harness, raw blocking syscalls) on the session's
//	               socket: INPUT → supervisor → pty → cat → supervisor → OUTPUT
//	BIN/attach     `heimdall-tui attach` in the harness's pty, on the same kind of session
//	tmux           `tmux attach` in the harness's pty, cat in a tmux session
//
// for each heimdall-tui binary given (-bin, and -rtt-vs NAME=PATH,... for
// others, e.g. the main branch's build). The hops follow by difference:
// supervisor = socket − pty (the session process and one socket pair), attach
// = attach − socket; tmux's client and server together = tmux − pty. A
// supervisor that takes the terminal from attach (the TERMINAL extension)
// reads the keys from the harness's pty and writes the echo to it itself,
// so there the attach hop is a second pty crossing (the user's terminal,
// as with tmux) in place of the socket's, with attach off the path (its
// CPU and wake-ups still count: it waits on its socket); a BIN without the
// extension has attach between the pty and the socket.
//
// The harness reads and writes with plain syscalls on a locked thread (poll
// with a timeout, then read), the same for every target, so its own cost is
// a constant of the floor.
//
// By default each key is typed as soon as the last one came back, which
// keeps every process on the path warm. A person types a few keys a second:
// with -rtt-gap each key is typed that long after the last one came back,
// so every key finds the processes idle (the Go runtime's monitor asleep,
// threads parked), as in use. Besides CPU time per key, the processes'
// wake-ups per key are reported (context switches of all their threads),
// which is what an idle→busy transition costs in battery.

// rttProg is the program at the far end: raw mode without echo, so each
// byte comes back exactly once, from cat.
const rttProg = "stty raw -echo; printf READY; exec cat"

// rttKey is the byte typed: not a digit, ';' or a letter that ends an
// escape sequence tmux or the emulator commonly writes, so its appearance
// in the output is its echo.
const rttKey = 'x'

// rttTarget is one way of reaching a cat. open returns a connection ready
// for keys; each round opens and closes it.
type rttTarget struct {
	name string
	open func() (*rttConn, error)
}

// rttConn is an open target: fd is polled and read; send types one key;
// echoed reports whether what was read so far contains the key's echo;
// close ends it. pids are the processes between the harness and cat whose
// CPU time the keys are charged with (the supervisor, attach, tmux's
// client and server).
type rttConn struct {
	fd     int
	send   func() error
	echoed func(buf []byte) bool
	close  func()
	pids   []int
}

type rttOptions struct {
	rounds, keys int
	gap          time.Duration // pause between a key's echo and the next key
	vs           [][2]string   // NAME, PATH
}

type rttResult struct {
	p50, p99 []time.Duration // per round
	all      []time.Duration
	cpu      time.Duration // of the target's processes, over the timed keys
	wakeups  int64         // of the target's processes' threads, over the timed keys
}

func rttScenario(bins [][2]string, tmp string, o rttOptions) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var targets []rttTarget
	targets = append(targets, rttTarget{"pty", func() (*rttConn, error) {
		return ptyTarget(exec.Command("sh", "-c", rttProg), "READY", nil, nil)
	}})
	for i, b := range bins {
		name, bin := b[0], b[1]
		dir := filepath.Join(tmp, fmt.Sprintf("rtt%d", i))
		cfg := filepath.Join(tmp, "rtt.toml")
		if err := os.WriteFile(cfg, nil, 0o600); err != nil {
			return err
		}
		stop, runPid, err := startRunSession(bin, cfg, dir)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer stop()
		sock := filepath.Join(dir, "rtt.sock")
		targets = append(targets,
			rttTarget{name + "/socket", func() (*rttConn, error) { return socketTarget(sock, runPid) }},
			rttTarget{name + "/attach", func() (*rttConn, error) {
				cmd := exec.Command(bin, "--config", cfg, "--socket-dir", dir, "attach", "rtt")
				return ptyTarget(cmd, altScreen, []int{runPid}, func(c *rttConn) {
					unix.Write(c.fd, []byte{0x1c}) // Ctrl-\ detaches
				})
			}})
	}
	if tm, err := exec.LookPath("tmux"); err == nil {
		sock := filepath.Join(tmp, "tmux.sock")
		start := exec.Command(tm, "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "rtt", "-x", "120", "-y", "35", rttProg)
		if out, err := start.CombinedOutput(); err != nil {
			return fmt.Errorf("tmux new-session: %v: %s", err, out)
		}
		defer exec.Command(tm, "-S", sock, "kill-server").Run()
		exec.Command(tm, "-S", sock, "set", "-g", "status", "off").Run()
		targets = append(targets, rttTarget{"tmux", func() (*rttConn, error) {
			out, err := exec.Command(tm, "-S", sock, "display", "-p", "#{pid}").Output()
			if err != nil {
				return nil, fmt.Errorf("tmux server pid: %w", err)
			}
			server, _ := strconv.Atoi(strings.TrimSpace(string(out)))
			return ptyTarget(exec.Command(tm, "-S", sock, "attach"), altScreen, []int{server}, func(c *rttConn) {
				exec.Command(tm, "-S", sock, "detach-client", "-s", "rtt").Run()
			})
		}})
	} else {
		fmt.Println("rtt: tmux not found; measuring without it")
	}

	res := make([]rttResult, len(targets))
	for r := 0; r < o.rounds; r++ {
		for i, t := range targets {
			lat, cpu, wake, err := rttRound(t, o.keys, o.gap)
			if err != nil {
				return fmt.Errorf("%s, round %d: %w", t.name, r+1, err)
			}
			res[i].all = append(res[i].all, lat...)
			res[i].cpu += cpu
			res[i].wakeups += wake
			slices.Sort(lat)
			res[i].p50 = append(res[i].p50, pct(lat, 0.50))
			res[i].p99 = append(res[i].p99, pct(lat, 0.99))
		}
	}
	// The headline figures pool every key of every round: rounds are
	// interleaved, so load from elsewhere on the machine falls on every
	// target alike, and the pooled p99 has enough keys behind it. The
	// spread is the interquartile range of the rounds' own p50 and p99.
	pace := "each key typed when the last came back"
	if o.gap > 0 {
		pace = fmt.Sprintf("each key typed %v after the last came back", o.gap)
	}
	fmt.Printf("rtt: keystroke round trip, %d rounds × %d keys per target, interleaved, %s; p50 and p99 over all keys [interquartile range of the rounds' p50 / p99]\n", o.rounds, o.keys, pace)
	us := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Nanoseconds())/1e3) }
	p50 := map[string]time.Duration{}
	p99 := map[string]time.Duration{}
	for i, t := range targets {
		slices.Sort(res[i].all)
		p50[t.name], p99[t.name] = pct(res[i].all, 0.50), pct(res[i].all, 0.99)
	}
	for i, t := range targets {
		line := fmt.Sprintf("rtt: %-16s p50 %6s µs [%s–%s]  p99 %7s µs [%s–%s]", t.name,
			us(p50[t.name]), us(quartile(res[i].p50, 1)), us(quartile(res[i].p50, 3)),
			us(p99[t.name]), us(quartile(res[i].p99, 1)), us(quartile(res[i].p99, 3)))
		if tp50, ok := p50["tmux"]; ok {
			line += fmt.Sprintf("  = %.2f× / %.2f× tmux", float64(p50[t.name])/float64(tp50), float64(p99[t.name])/float64(p99["tmux"]))
		}
		if t.name != "pty" {
			n := len(res[i].all)
			line += fmt.Sprintf("  CPU %s µs/key, %.1f wake-ups/key", us(res[i].cpu/time.Duration(n)), float64(res[i].wakeups)/float64(n))
		}
		fmt.Println(line)
	}
	fmt.Printf("rtt: hops (p50 differences): kernel+cat (pty) %s µs", us(p50["pty"]))
	for _, b := range bins {
		n := b[0]
		fmt.Printf("; %s: supervisor %s µs, attach %s µs", n, us(p50[n+"/socket"]-p50["pty"]), us(p50[n+"/attach"]-p50[n+"/socket"]))
	}
	if tp50, ok := p50["tmux"]; ok {
		fmt.Printf("; tmux client+server %s µs", us(tp50-p50["pty"]))
	}
	fmt.Println()
	return nil
}

func pct(sorted []time.Duration, p float64) time.Duration {
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// quartile returns v's q-th quartile (1: 25th percentile, 3: 75th).
func quartile(v []time.Duration, q int) time.Duration {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[q*(len(s)-1)/4]
}

// rttRound opens t, waits for the far end to be ready, discards a few
// warm-up keys and times keys more, each typed gap after the last came
// back. It returns the latencies and the CPU time and wake-ups of t's
// processes over the timed keys (gaps included: what a process does after
// a key, it does for that key).
func rttRound(t rttTarget, keys int, gap time.Duration) ([]time.Duration, time.Duration, int64, error) {
	c, err := t.open()
	if err != nil {
		return nil, 0, 0, err
	}
	defer c.close()
	const warm = 10
	lat := make([]time.Duration, 0, keys)
	buf := make([]byte, 64<<10)
	var cpu0 time.Duration
	var wake0 int64
	for i := 0; i < warm+keys; i++ {
		if i == warm {
			cpu0, wake0 = cpuTime(c.pids), wakeups(c.pids)
		}
		if gap > 0 {
			time.Sleep(gap)
		}
		begin := time.Now()
		if err := c.send(); err != nil {
			return nil, 0, 0, err
		}
		var got []byte
		for !c.echoed(got) {
			n, err := readTimeout(c.fd, buf, 5*time.Second)
			if err != nil {
				return nil, 0, 0, fmt.Errorf("key %d: %w", i, err)
			}
			got = append(got, buf[:n]...)
		}
		if i >= warm {
			lat = append(lat, time.Since(begin))
		}
	}
	if gap > 0 {
		time.Sleep(gap) // the last key's aftermath, as every other key's
	}
	return lat, cpuTime(c.pids) - cpu0, wakeups(c.pids) - wake0, nil
}

// readTimeout waits up to d for fd to be readable and reads once.
func readTimeout(fd int, buf []byte, d time.Duration) (int, error) {
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

// drainUntil reads fd until want has appeared and then nothing came for
// quiet.
func drainUntil(fd int, want string, quiet, limit time.Duration) error {
	buf := make([]byte, 64<<10)
	var seen []byte
	deadline := time.Now().Add(limit)
	for !strings.Contains(string(seen), want) {
		if time.Now().After(deadline) {
			return fmt.Errorf("no %q in %q", want, tail(seen))
		}
		n, err := readTimeout(fd, buf, time.Until(deadline))
		if err != nil {
			return fmt.Errorf("waiting for %q: %w (got %q)", want, err, tail(seen))
		}
		seen = append(seen, buf[:n]...)
		if len(seen) > 1<<20 {
			seen = seen[len(seen)-len(want):]
		}
	}
	for {
		if _, err := readTimeout(fd, buf, quiet); err != nil {
			return nil
		}
	}
}

// altScreen is what a client writes once it has put the terminal in raw
// mode: from then on the keys go to the session, not the pty's own echo.
const altScreen = "\x1b[?1049h"

func tail(b []byte) []byte { return b[max(0, len(b)-200):] }

// ptyTarget runs cmd in a new 120×35 pty and waits for ready in its output
// and then a pause (the first screen drawn). bye, if set, asks it to end
// before it is sent SIGHUP; it is reaped either way.
func ptyTarget(cmd *exec.Cmd, ready string, pids []int, bye func(*rttConn)) (*rttConn, error) {
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: cols, Rows: rows})
	if err != nil {
		return nil, err
	}
	fd := int(ptmx.Fd()) // blocking from here on; reads wait in poll
	c := &rttConn{fd: fd}
	if len(pids) > 0 || bye != nil {
		c.pids = append(pids, cmd.Process.Pid) // not the floor's cat
	}
	c.send = func() error { _, err := unix.Write(fd, []byte{rttKey}); return err }
	c.echoed = func(b []byte) bool { return slices.Contains(b, rttKey) }
	c.close = func() {
		if bye != nil {
			bye(c)
		}
		reap(cmd, 2*time.Second, syscall.SIGHUP)
		ptmx.Close()
	}
	if err := drainUntil(fd, ready, 100*time.Millisecond, 10*time.Second); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// socketTarget subscribes to the session at sock with a blocking socket.
func socketTarget(sock string, pid int) (*rttConn, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: sock}); err != nil {
		unix.Close(fd)
		return nil, err
	}
	input := frame.AppendFrame(nil, frame.Input, []byte{rttKey})
	c := &rttConn{fd: fd, close: func() { unix.Close(fd) }, pids: []int{pid}}
	c.send = func() error { _, err := unix.Write(fd, input); return err }
	// The stream is the mode byte, then frames: the key is echoed when an
	// OUTPUT payload holds it.
	c.echoed = func(b []byte) bool {
		if len(b) > 0 && b[0] == frame.ModeBinary {
			b = b[1:]
		}
		for len(b) >= frame.HeaderSize {
			n := int(binary.BigEndian.Uint32(b[1:frame.HeaderSize]))
			if len(b) < frame.HeaderSize+n {
				return false
			}
			if frame.Type(b[0]) == frame.Output && slices.Contains(b[frame.HeaderSize:frame.HeaderSize+n], rttKey) {
				return true
			}
			b = b[frame.HeaderSize+n:]
		}
		return false
	}
	if _, err := unix.Write(fd, frame.AppendFrame(nil, frame.Subscribe, nil)); err != nil {
		c.close()
		return nil, err
	}
	// The mode byte, then the scrollback's replay, then a pause.
	if err := drainUntil(fd, string([]byte{frame.ModeBinary}), 100*time.Millisecond, 10*time.Second); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// startRunSession starts `BIN run --detach --id rtt` in dir with cat at
// the far end and waits for its socket; pid is its supervisor's (from its
// pid file: a run that returns once the session is served, and one that
// stays as its supervisor, alike); stop kills the session through its
// socket and reaps run.
func startRunSession(bin, cfg, dir string) (stop func(), pid int, err error) {
	cmd := exec.Command(bin, "--config", cfg, "--socket-dir", dir, "run", "--detach", "--id", "rtt", "--", "sh", "-c", rttProg)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	sock, pidFile := filepath.Join(dir, "rtt.sock"), filepath.Join(dir, "rtt.pid")
	stop = func() {
		if c, err := frame.Dial(sock, time.Second); err == nil {
			c.Kill()
			c.Close()
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(pidFile); err != nil {
				break
			}
		}
		reap(cmd, 5*time.Second)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			if b, err := os.ReadFile(pidFile); err == nil {
				if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
					return stop, n, nil
				}
			}
		}
		if time.Now().After(deadline) {
			stop()
			return nil, 0, fmt.Errorf("no socket %s", sock)
		}
	}
}
