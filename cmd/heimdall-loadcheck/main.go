// Command heimdall-loadcheck measures the dashboard under load, as a user
// would run it: the real heimdall-tui binary in a 120×35 pty whose other end
// is a terminal emulator (backend/vt, answering the program's queries), keys
// typed into the pty, the screen read back from the emulator.
//
// Scenarios (each on a fresh dashboard and socket dir):
//
//	idle   side by side in one run: a tmux server holding N idle windows
//	       (`sleep`) with a client attached in a pty, and the dashboard with N
//	       idle sessions (and, with -base, a second heimdall-tui binary, e.g. a
//	       build of main, likewise), their sessions started -stagger apart so
//	       that their durations' minutes turn at different seconds; all run
//	       at once, and each of -rounds
//	       rounds measures each of them for -idle-for in turn (the order
//	       rotating), so drift in the machine's load spreads over all of them.
//	       Wake-ups/s and CPU, median, [min–max] and mean over the rounds (goal for
//	       the dashboard: ≤ 1 wake-up/s, ≤ 0.05% of a core)
//	busy   N sessions writing as fast as they can, grid mode: frames/s written,
//	       dashboard CPU, keypress → frame-showing-its-effect delay (goal p50 ≤ 5 ms,
//	       p99 ≤ 20 ms) with where each key's time went (busy.go: the dashboard's
//	       frame trace, CPU waits, collections), and, while they go on, keystroke
//	       round trips into a quiet `run --detach` session through its socket and
//	       through `attach`; with -base, both binaries in -busy-rounds interleaved
//	       rounds
//	mem    memory per idle session, side by side with tmux (mem.go): N idle
//	       sessions under this binary's supervisors, under -base's and as N
//	       panes of one tmux server, empty and with history, in interleaved
//	       rounds
//	rtt    keystroke round trip through `heimdall-tui attach` beside tmux, with its
//	       hops, for this binary and others given with -rtt-vs (see rtt.go)
//	back   N live sessions left running by a dashboard that quit: the time from
//	       starting a new dashboard to its first frame listing all of them with
//	       the selected one's screen (median of several starts)
//
// CPU is the dashboard process's run time from /proc/PID/task/*/schedstat
// (its sessions' programs and their supervisors are separate processes and
// not counted; the dashboard's viewer emulators and the UI are). A "frame" is a burst of output separated from
// the next by at least 4 ms of quiet (Bubble Tea writes one burst per frame).
// A wake-up is a context switch of one of the process's threads
// (voluntary_ctxt_switches + nonvoluntary_ctxt_switches in
// /proc/PID/task/*/status): each time a sleeping thread runs again counts
// one. The idle scenario counts tmux's server and client together, and the
// dashboard's session supervisors (a separate process each, which tmux has
// no counterpart of) on a line of their own.
//
// Usage: go run ./cmd/heimdall-loadcheck [-bin PATH] [-only idle|busy|mem|back|rtt] [-idle 20]
// [-idle-for 5s] [-rounds 6] [-settle 65s] [-stagger 3s] [-base PATH] [-busy 16] [-busy-for 10s]
// [-keys 100] [-busy-rounds 1] [-busy-env K=V,...] [-writer-nice N] [-mem 20] [-mem-rounds 3] [-mem-history 2000] [-back 20] [-back-runs 5]
// [-rtt-rounds 10] [-rtt-keys 200] [-rtt-gap 0] [-rtt-vs NAME=BIN,...]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

const cols, rows = 120, 35

func main() {
	var (
		bin      = flag.String("bin", "", "heimdall-tui binary, with heimdall beside it (default: go build ./cmd/...)")
		idleN    = flag.Int("idle", 20, "idle sessions")
		idleFor  = flag.Duration("idle-for", 5*time.Second, "idle: measurement window of each contestant in each round")
		rounds   = flag.Int("rounds", 6, "idle: interleaved rounds")
		stagger  = flag.Duration("stagger", 3*time.Second, "idle: time between one session's start and the next's")
		settle   = flag.Duration("settle", 65*time.Second, "idle: wait this long after the last spawn before measuring (past 1m the list's durations tick once a minute, not once a second)")
		base     = flag.String("base", "", "idle, mem, busy: a second heimdall-tui binary measured beside -bin (and tmux) (e.g. a build of main)")
		busyOpts busyOptions
		memN     = flag.Int("mem", 20, "idle sessions for the memory scenario")
		memOpts  memOptions
		backN    = flag.Int("back", 20, "live sessions a new dashboard comes back to")
		backRuns = flag.Int("back-runs", 5, "dashboard starts timed in the back scenario")
		only     = flag.String("only", "", "run one scenario: idle, busy, mem, back or rtt")
		rttR     = flag.Int("rtt-rounds", 10, "rtt: interleaved rounds")
		rttK     = flag.Int("rtt-keys", 200, "rtt: keys timed per target and round")
		rttVs    = flag.String("rtt-vs", "", "rtt: other heimdall-tui binaries to measure beside -bin, as NAME=PATH,...")
		rttGap   = flag.Duration("rtt-gap", 0, "rtt: pause between a key's echo and the next key (0: none; a person's pace is ~100ms)")
		nice     = flag.Int("writer-nice", 0, "run the busy writers under this nice value (separates the dashboard's own delay from CPU contention with them)")
	)
	flag.IntVar(&busyOpts.n, "busy", 16, "busy sessions")
	flag.DurationVar(&busyOpts.window, "busy-for", 10*time.Second, "busy measurement window")
	flag.IntVar(&busyOpts.keys, "keys", 100, "keypresses timed in the busy scenario")
	flag.IntVar(&busyOpts.rounds, "busy-rounds", 1, "busy: rounds, each measuring -bin and -base in turn (the order rotating)")
	busyEnv := flag.String("busy-env", "", "busy: KEY=VALUE,... added to the dashboards' environment")
	flag.IntVar(&memOpts.rounds, "mem-rounds", 3, "memory scenario: interleaved rounds")
	flag.IntVar(&memOpts.history, "mem-history", 2000, "memory scenario: lines each session prints before idling, in the second case")
	flag.Parse()
	memOpts.n, memOpts.base = *memN, *base
	busyOpts.base = *base
	if *busyEnv != "" {
		busyOpts.env = strings.Split(*busyEnv, ",")
	}
	var vs [][2]string
	for _, nb := range strings.Split(*rttVs, ",") {
		if nb == "" {
			continue
		}
		n, b, ok := strings.Cut(nb, "=")
		if !ok || n == "" || b == "" {
			fmt.Fprintf(os.Stderr, "heimdall-loadcheck: -rtt-vs %q: want NAME=PATH\n", nb)
			os.Exit(2)
		}
		vs = append(vs, [2]string{n, b})
	}
	rtt := rttOptions{rounds: *rttR, keys: *rttK, gap: *rttGap, vs: vs}
	if err := run(*bin, *base, *idleN, *rounds, *idleFor, *settle, *stagger, busyOpts, memOpts, *backN, *backRuns, *only, *nice, rtt); err != nil {
		fmt.Fprintln(os.Stderr, "heimdall-loadcheck:", err)
		os.Exit(1)
	}
}

func run(bin, base string, idleN, rounds int, idleFor, settle, stagger time.Duration, busy busyOptions, mem memOptions, backN, backRuns int, only string, nice int, rtt rttOptions) error {
	tmp, err := os.MkdirTemp("", "hlc")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		// Both executables, as installed: the dashboard starts its
		// supervisors as the heimdall beside it.
		bin = filepath.Join(tmp, "heimdall-tui")
		out, err := exec.Command("go", "build", "-o", tmp+"/", "./cmd/heimdall-tui", "./cmd/heimdall").CombinedOutput()
		if err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	cfg := filepath.Join(tmp, "config.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`kill_grace = "1s"
[[agent]]
name = "idle"
command = ["sleep", "3600"]
[[agent]]
name = "busy"
command = ["nice", "-n", "%d", "sh", "-c", "base64 -w 110 /dev/urandom"]
[[agent]]
name = "history"
command = ["sh", "-c", "seq %d; exec sleep 3600"]
[[agent]]
name = "hello"
command = ["sh", "-c", "echo ready-$HEIMDALL_SESSION_ID; exec sleep 3600"]
`, nice, mem.history)), 0o600); err != nil {
		return err
	}
	fmt.Printf("heimdall-loadcheck: %s, %d×%d pty, %d CPUs\n", bin, cols, rows, runtime.NumCPU())
	if only == "" || only == "idle" {
		if err := idleScenario(bin, base, cfg, tmp, idleN, rounds, idleFor, settle, stagger); err != nil {
			return fmt.Errorf("idle: %w", err)
		}
	}
	if only == "" || only == "busy" {
		if err := busyScenario(bin, cfg, tmp, busy); err != nil {
			return fmt.Errorf("busy: %w", err)
		}
	}
	if only == "" || only == "mem" {
		if err := memScenario(bin, cfg, tmp, mem); err != nil {
			return fmt.Errorf("mem: %w", err)
		}
	}
	if only == "" || only == "rtt" {
		bins := append([][2]string{{"this", bin}}, rtt.vs...)
		if err := rttScenario(bins, tmp, rtt); err != nil {
			return fmt.Errorf("rtt: %w", err)
		}
	}
	if only == "" || only == "back" {
		if err := backScenario(bin, cfg, tmp, backN, backRuns); err != nil {
			return fmt.Errorf("back: %w", err)
		}
	}
	return nil
}

// contestant is one program measured in the idle scenario: the processes
// counted (pids) and the pty its frames are read from.
type contestant struct {
	name string
	term *dashboard
	pids func() []int
	// wakes and cpu are per-round rates: wake-ups/s and CPU % of a core.
	wakes, cpu, frames []float64
}

func idleScenario(bin, base, cfg, tmp string, n, rounds int, window, settle, stagger time.Duration) error {
	if _, err := exec.LookPath("tmux"); err != nil {
		return fmt.Errorf("tmux is needed to measure beside it: %w", err)
	}
	tm, err := startTmux(tmp, n)
	if err != nil {
		return err
	}
	defer tm.stop()
	cs := []*contestant{{name: "tmux (server + client)", term: tm.client, pids: tm.pids}}
	bins := []struct{ label, bin string }{{"heimdall-tui", bin}}
	if base != "" {
		bins = append(bins, struct{ label, bin string }{"heimdall-tui -base", base})
	}
	var ds []*dashboard
	for i, b := range bins {
		d, err := startDashboard(b.bin, cfg, tmp, "idle"+strconv.Itoa(i))
		if err != nil {
			return fmt.Errorf("%s: %w", b.label, err)
		}
		defer d.stop()
		ds = append(ds, d)
		cs = append(cs,
			&contestant{name: b.label + " dashboard", term: d, pids: func() []int { return []int{d.cmd.Process.Pid} }},
			&contestant{name: fmt.Sprintf("  its %d supervisors", n), pids: d.supervisors})
	}
	// The dashboards' i-th sessions start together, stagger apart from
	// the (i-1)-th: the minutes of their durations turn at different
	// seconds, as those of sessions started through a day do.
	for i := 1; i <= n; i++ {
		t := time.Now()
		for k, d := range ds {
			if err := d.spawnOne("idle", i); err != nil {
				return fmt.Errorf("%s: %w", bins[k].label, err)
			}
		}
		if i < n {
			time.Sleep(stagger - time.Since(t))
		}
	}
	time.Sleep(settle) // classifiers settle to Idle, the durations shown reach minutes
	for r := range rounds {
		for k := range cs {
			c := cs[(k+r)%len(cs)]
			pids := c.pids()
			w0, cpu0, t0 := wakeups(pids), cpuTime(pids), time.Now()
			var f0 int
			if c.term != nil {
				f0 = c.term.frames()
			}
			time.Sleep(window)
			el := time.Since(t0).Seconds()
			c.wakes = append(c.wakes, float64(wakeups(pids)-w0)/el)
			c.cpu = append(c.cpu, 100*(cpuTime(pids)-cpu0).Seconds()/el)
			if c.term != nil {
				c.frames = append(c.frames, float64(c.term.frames()-f0)/el)
			}
		}
	}
	fmt.Printf("idle: %d idle sessions each, started %v apart; %d interleaved rounds of %v per contestant, from %v after the last start; median [min–max] mean:\n",
		n, stagger, rounds, window, settle)
	fmt.Printf("  %-30s %-30s %-36s %s\n", "", "wake-ups/s", "CPU % of a core", "frames/s")
	for _, c := range cs {
		fr := "-"
		if c.frames != nil {
			fr = spread(c.frames, "%.2f")
		}
		fmt.Printf("  %-30s %-30s %-36s %s\n", c.name, spread(c.wakes, "%.1f"), spread(c.cpu, "%.4f"), fr)
	}
	return nil
}

// spread formats v's median, range and mean as "median [min–max] mean"
// (the mean shows what a rare event, such as the Go runtime's forced GC
// every two minutes, costs on average, which the median hides).
func spread(v []float64, verb string) string {
	s := slices.Clone(v)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	return fmt.Sprintf(verb+" ["+verb+"–"+verb+"] "+verb, s[len(s)/2], s[0], s[len(s)-1], sum/float64(len(s)))
}

// tmuxRig is a tmux server on a socket of its own holding n idle windows,
// with a client attached in a pty.
type tmuxRig struct {
	sock   string
	env    []string
	client *dashboard
}

func startTmux(tmp string, n int) (*tmuxRig, error) {
	t := &tmuxRig{sock: filepath.Join(tmp, "tmux.sock")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			t.env = append(t.env, kv)
		}
	}
	t.env = append(t.env, "TERM=xterm-256color", "COLORTERM=truecolor")
	tmux := func(args ...string) error {
		c := exec.Command("tmux", append([]string{"-S", t.sock, "-f", "/dev/null"}, args...)...)
		c.Env = t.env
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := tmux("new-session", "-d", "-s", "idle", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "sleep 3600"); err != nil {
		return nil, err
	}
	for i := 1; i < n; i++ {
		if err := tmux("new-window", "-d", "-t", "idle", "sleep 3600"); err != nil {
			t.kill()
			return nil, err
		}
	}
	cmd := exec.Command("tmux", "-S", t.sock, "attach", "-t", "idle")
	cmd.Env = t.env
	c, err := startTerm(cmd, "[idle]")
	if err != nil {
		t.kill()
		return nil, fmt.Errorf("tmux attach: %w", err)
	}
	t.client = c
	return t, nil
}

// pids are the tmux server's and the client's.
func (t *tmuxRig) pids() []int {
	out, err := exec.Command("tmux", "-S", t.sock, "display-message", "-p", "#{pid}").Output()
	pids := []int{t.client.cmd.Process.Pid}
	if pid, perr := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && perr == nil {
		pids = append(pids, pid)
	}
	return pids
}

func (t *tmuxRig) kill() {
	c := exec.Command("tmux", "-S", t.sock, "kill-server")
	c.Env = t.env
	c.Run()
}

// stop ends the server (its client exits with it) and reaps the client.
func (t *tmuxRig) stop() {
	t.kill()
	reap(t.client.cmd, 5*time.Second)
	t.client.ptmx.Close()
	<-t.client.done
}

// wakeups is the number of context switches of pids' threads so far.
func wakeups(pids []int) int64 {
	return sumTasks(pids, "status", func(status string) (n int64) {
		for _, line := range strings.Split(status, "\n") {
			if f := strings.Fields(line); len(f) == 2 && (f[0] == "voluntary_ctxt_switches:" || f[0] == "nonvoluntary_ctxt_switches:") {
				v, _ := strconv.ParseInt(f[1], 10, 64)
				n += v
			}
		}
		return n
	})
}

// sumTasks sums parse over /proc/PID/task/*/file of pids' threads. Threads
// that have exited are not counted, which only makes a sum lower by what
// they did; the Go runtime keeps its threads.
func sumTasks(pids []int, file string, parse func(content string) int64) int64 {
	var total int64
	for _, pid := range pids {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/%s", pid, file))
		for _, t := range tasks {
			if b, err := os.ReadFile(t); err == nil {
				total += parse(string(b))
			}
		}
	}
	return total
}

// backScenario leaves n sessions running, then times new dashboards coming
// back to them: from starting the process to the first frame that lists
// all of them and shows the selected one's screen.
func backScenario(bin, cfg, tmp string, n, runs int) error {
	d, err := startDashboard(bin, cfg, tmp, "back")
	if err != nil {
		return err
	}
	if err := d.spawn("hello", n); err != nil {
		d.stop()
		return err
	}
	d.leave()
	var took []int64
	last := "hello-" + strconv.Itoa(n)
	for range runs {
		start := time.Now()
		d, err = startDashboard(bin, cfg, tmp, "back")
		if err != nil {
			return err
		}
		ok := d.waitFor(10*time.Second, func(s string) bool {
			return strings.Contains(s, last) && strings.Contains(s, "ready-hello-1")
		})
		el := time.Since(start)
		if !ok {
			d.stop()
			return fmt.Errorf("the sessions did not show; screen:\n%s", d.emu.Snapshot().Text())
		}
		took = append(took, int64(el))
		d.leave()
	}
	d, err = startDashboard(bin, cfg, tmp, "back")
	if err != nil {
		return err
	}
	d.stop()
	slices.Sort(took)
	fmt.Printf("back: %d live sessions, start → first frame listing them all with a screen: median %v, min %v, max %v over %d starts\n",
		n, time.Duration(median(took)).Round(time.Millisecond), time.Duration(took[0]).Round(time.Millisecond),
		time.Duration(took[len(took)-1]).Round(time.Millisecond), len(took))
	return nil
}

func median(v []int64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return float64(s[len(s)/2])
}

// supervisors are the pids of the supervisor processes of the dashboard's
// socket dir (from the pid files).
func (d *dashboard) supervisors() []int {
	pids, _ := filepath.Glob(filepath.Join(d.dir, "*.pid"))
	var out []int
	for _, p := range pids {
		b, err := os.ReadFile(p)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			out = append(out, pid)
		}
	}
	return out
}

// smapsRollup returns a process's proportional set size and its anonymous
// memory, in bytes.
func smapsRollup(pid int) (pss, anon int64) {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "Pss:":
			pss = kb << 10
		case "Pss_Anon:":
			anon = kb << 10
		}
	}
	return pss, anon
}

// helpMarker is text only the full help screen shows.
const helpMarker = "Key reference"

// dashboard is a heimdall-tui process in a pty with an emulated terminal
// (startTerm: or another program, such as a tmux client).
type dashboard struct {
	dir  string // its socket dir
	cmd  *exec.Cmd
	ptmx *os.File
	emu  *vt.Emulator

	mu       sync.Mutex
	bursts   int
	lastData time.Time
	done     chan struct{}
}

func startDashboard(bin, cfg, tmp, name string) (*dashboard, error) {
	return startDashboardEnv(bin, cfg, tmp, name)
}

// startDashboardEnv is startDashboard with env (KEY=VALUE) added to its
// environment.
func startDashboardEnv(bin, cfg, tmp, name string, env ...string) (*dashboard, error) {
	dir := filepath.Join(tmp, name)
	cmd := exec.Command(bin, "--config", cfg, "--socket-dir", dir, "--log", filepath.Join(tmp, name+".log"))
	cmd.Env = append(append(os.Environ(), "TERM=xterm-256color", "COLORTERM=truecolor"), env...)
	d, err := startTerm(cmd, "heimdall")
	if err != nil {
		return nil, err
	}
	d.dir = dir
	return d, nil
}

// startTerm starts cmd in a pty read by an emulated terminal and waits
// until the screen shows ready.
func startTerm(cmd *exec.Cmd, ready string) (*dashboard, error) {
	d := &dashboard{cmd: cmd, done: make(chan struct{})}
	var err error
	d.ptmx, err = pty.StartWithSize(d.cmd, &pty.Winsize{Cols: cols, Rows: rows})
	if err != nil {
		return nil, err
	}
	d.emu = vt.New(cols, rows, vt.Options{Reply: func(p []byte) { d.ptmx.Write(p) }})
	go d.read()
	if !d.waitFor(10*time.Second, func(s string) bool { return strings.Contains(s, ready) }) {
		d.stop()
		return nil, fmt.Errorf("%s did not draw", filepath.Base(cmd.Path))
	}
	return d, nil
}

func (d *dashboard) read() {
	defer close(d.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := d.ptmx.Read(buf)
		if n > 0 {
			now := time.Now()
			d.mu.Lock()
			if now.Sub(d.lastData) >= 4*time.Millisecond {
				d.bursts++
			}
			d.lastData = now
			d.mu.Unlock()
			d.emu.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (d *dashboard) frames() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.bursts
}

func (d *dashboard) type_(s string) { d.ptmx.Write([]byte(s)) }

// waitFor polls the emulated screen until cond holds.
func (d *dashboard) waitFor(timeout time.Duration, cond func(screen string) bool) bool {
	deadline := time.Now().Add(timeout)
	var seq uint64
	for time.Now().Before(deadline) {
		if s := d.emu.Seq(); s != seq {
			seq = s
			if cond(d.emu.Snapshot().Text()) {
				return true
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	return false
}

// spawn starts n sessions of agent with the command line, waiting for each
// one's confirmation in the status line.
func (d *dashboard) spawn(agent string, n int) error {
	for i := 1; i <= n; i++ {
		if err := d.spawnOne(agent, i); err != nil {
			return err
		}
	}
	return nil
}

// spawnOne starts the i-th session of agent (agent-i) with the command
// line and waits for its confirmation.
func (d *dashboard) spawnOne(agent string, i int) error {
	d.type_(":")
	time.Sleep(20 * time.Millisecond)
	d.type_("spawn " + agent + "\r")
	id := agent + "-" + strconv.Itoa(i)
	if !d.waitFor(10*time.Second, func(s string) bool { return strings.Contains(s, "started "+id) }) {
		return fmt.Errorf("spawn %s: not confirmed; screen:\n%s", id, d.emu.Snapshot().Text())
	}
	return nil
}

// cpu is the dashboard's CPU time so far (cpuTime).
func (d *dashboard) cpu() time.Duration { return cpuTime([]int{d.cmd.Process.Pid}) }

// cpuTime is pids' CPU time so far: the sum of their threads' run time
// from /proc/PID/task/*/schedstat, in nanoseconds (utime/stime are sampled
// at 100 Hz and miss a process that wakes briefly and often).
func cpuTime(pids []int) time.Duration { return schedstatSum(pids, 0) }

// schedstatSum sums field i (in nanoseconds) of pids' threads'
// /proc/PID/task/*/schedstat: 0 the time run, 1 the time runnable and
// waiting for a CPU.
func schedstatSum(pids []int, i int) time.Duration {
	return time.Duration(sumTasks(pids, "schedstat", func(schedstat string) int64 {
		var ns int64
		if f := strings.Fields(schedstat); len(f) > i {
			ns, _ = strconv.ParseInt(f[i], 10, 64)
		}
		return ns
	}))
}

// rss is the dashboard's resident set size in bytes.
func (d *dashboard) rss() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// stop quits the dashboard as a user would (q, then "Stop them" if it
// asks), which stops its sessions; it is killed if that takes too long.
func (d *dashboard) stop() { d.quit("s") }

// leave quits the dashboard leaving its sessions running (q, then "Leave
// them running").
func (d *dashboard) leave() { d.quit("l") }

func (d *dashboard) quit(choice string) {
	d.type_("q")
	time.Sleep(100 * time.Millisecond)
	d.type_(choice)
	reap(d.cmd, 15*time.Second)
	d.ptmx.Close()
	<-d.done
}

// reap waits for cmd to exit. Each time grace passes first it sends the
// next of sigs, and after the last SIGKILL; it returns once cmd is reaped.
func reap(cmd *exec.Cmd, grace time.Duration, sigs ...syscall.Signal) {
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	for _, sig := range append(sigs, syscall.SIGKILL) {
		select {
		case <-exited:
			return
		case <-time.After(grace):
			cmd.Process.Signal(sig)
		}
	}
	<-exited
}
