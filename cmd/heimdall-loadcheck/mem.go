package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/host"
)

// The memory scenario: what an idle session costs, counted over every
// process involved, side by side with tmux.
//
// For heimdall-tui a session is its supervisor process plus the
// dashboard's share (its viewer emulator of the session, the list's
// state): a dashboard is started, its PSS taken, N sessions are spawned
// through its command line and left to settle, and the PSS of the dashboard
// and every supervisor is summed; per session is (sum − the dashboard
// alone) / N. For tmux, one server holds every pane: its PSS with one
// session, then with N more; per session is the difference / N. The
// sessions' own programs (sleep, sh) are not counted on either side.
// PSS (/proc/PID/smaps_rollup) divides each page among the processes that
// map it, so N supervisors sharing the binary's text pay for it once
// between them; summing PSS over all the processes counts every page once.
//
// Beside them, the Go floor: N gofloor processes (testdata/gofloor), each
// what any Go supervisor of one session must have (a pty, a socket,
// signals) and nothing more, summed the same way.
//
// Each case is run empty (the program prints nothing) and with history
// (the program prints -mem-history lines first). Rounds interleave the
// builds and tmux so that a change of the machine's load hits all of them.

type memOptions struct {
	n, rounds, history int
	base               string
}

// memSample is one measurement: bytes per session over every process,
// and for heimdall-tui its parts: the median supervisor's own PSS and the
// anonymous (private) part of it, and the dashboard's growth per session
// in anonymous memory (its PSS also shrinks as supervisors share the
// binary's pages with it, which would hide its own growth).
type memSample struct{ perSession, supervisor, supervisorAnon, dashboard float64 }

type memVariant struct {
	name    string
	measure func(tag, agent string, lines int) (memSample, error)
	floor   bool // gofloor: no dashboard, each process a whole "session"
}

// memSettle is how long sessions are left after the last spawn before
// they are measured: their programs' output is in, and an idle supervisor
// has returned its free memory (5 s after its screen last changed,
// backend/host's idleRelease). tmux gets as long.
const memSettle = 8 * time.Second

func memScenario(bin, cfg, tmp string, o memOptions) error {
	variants := []memVariant{{name: "this build", measure: oursMem(bin, cfg, tmp, o.n)}}
	if o.base != "" {
		variants = append(variants, memVariant{name: "-base", measure: oursMem(o.base, cfg, tmp, o.n)})
	}
	if _, err := exec.LookPath("tmux"); err == nil {
		variants = append(variants, memVariant{name: "tmux", measure: tmuxMem(tmp, o.n)})
	} else {
		fmt.Println("mem: tmux not found, measuring heimdall-tui only")
	}
	floor := filepath.Join(tmp, "gofloor")
	build := exec.Command("go", "build", "-o", floor, "./cmd/heimdall-loadcheck/testdata/gofloor")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as the README installs heimdall
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build gofloor: %v\n%s", err, out)
	}
	variants = append(variants, memVariant{name: "Go floor", measure: floorMem(floor, tmp, o.n), floor: true})
	cases := []struct {
		name, agent string
		lines       int
	}{{"empty", "idle", 0}, {fmt.Sprintf("%d lines of history", o.history), "history", o.history}}
	got := make([][][]memSample, len(cases))
	for c := range cases {
		got[c] = make([][]memSample, len(variants))
	}
	for r := range o.rounds {
		for c, cs := range cases {
			for k := range variants {
				v := (k + r) % len(variants) // each round starts with the next variant
				s, err := variants[v].measure(fmt.Sprintf("mem%d-%d-%d", r, c, v), cs.agent, cs.lines)
				if err != nil {
					return fmt.Errorf("%s, %s: %w", variants[v].name, cs.name, err)
				}
				got[c][v] = append(got[c][v], s)
			}
		}
	}
	for c, cs := range cases {
		fmt.Printf("mem: %d idle sessions, %s: PSS per session over every process involved, median [min–max] mean of %d rounds\n",
			o.n, cs.name, o.rounds)
		for v, vr := range variants {
			samples := got[c][v]
			kib := func(part func(memSample) float64) string {
				x := make([]float64, 0, len(samples))
				for _, s := range samples {
					x = append(x, part(s)/1024)
				}
				return spread(x, "%.0f")
			}
			fmt.Printf("  %-10s %s KiB\n", vr.name, kib(func(s memSample) float64 { return s.perSession }))
			if vr.floor {
				fmt.Printf("  %-10s   a process alone %s KiB (anonymous %s)\n", "",
					kib(func(s memSample) float64 { return s.supervisor }), kib(func(s memSample) float64 { return s.supervisorAnon }))
			} else if samples[0].supervisor > 0 {
				fmt.Printf("  %-10s   a supervisor alone %s KiB (anonymous %s), the dashboard's anonymous growth per session %s KiB\n", "",
					kib(func(s memSample) float64 { return s.supervisor }), kib(func(s memSample) float64 { return s.supervisorAnon }),
					kib(func(s memSample) float64 { return s.dashboard }))
			}
		}
	}
	return nil
}

// oursMem measures n sessions of agent under a dashboard of bin.
func oursMem(bin, cfg, tmp string, n int) func(tag, agent string, lines int) (memSample, error) {
	return func(tag, agent string, _ int) (memSample, error) {
		d, err := startDashboard(bin, cfg, tmp, tag)
		if err != nil {
			return memSample{}, err
		}
		defer d.stop()
		time.Sleep(time.Second)
		base, baseAnon := smapsRollup(d.cmd.Process.Pid)
		if err := d.spawn(agent, n); err != nil {
			return memSample{}, err
		}
		time.Sleep(memSettle)
		dash, dashAnon := smapsRollup(d.cmd.Process.Pid)
		total := dash
		var sup, supAnon []int64
		for _, pid := range d.supervisors() {
			p, a := smapsRollup(pid)
			total += p
			sup, supAnon = append(sup, p), append(supAnon, a)
		}
		if len(sup) != n {
			return memSample{}, fmt.Errorf("%d supervisor processes, want %d", len(sup), n)
		}
		return memSample{perSession: float64(total-base) / float64(n), supervisor: median(sup),
			supervisorAnon: median(supAnon), dashboard: float64(dashAnon-baseAnon) / float64(n)}, nil
	}
}

// tmuxMem measures n sessions in one tmux server (its own socket, no
// configuration: tmux's default history-limit is 2000 lines).
func tmuxMem(tmp string, n int) func(tag, agent string, lines int) (memSample, error) {
	return func(tag, _ string, lines int) (memSample, error) {
		sock := filepath.Join(tmp, tag+".tmux")
		tmux := func(args ...string) (string, error) {
			out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
			if err != nil {
				return "", fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
			}
			return strings.TrimSpace(string(out)), nil
		}
		session := func(name, cmd string) error {
			_, err := tmux("new-session", "-d", "-s", name, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), cmd)
			return err
		}
		if err := session("base", "sleep 3600"); err != nil {
			return memSample{}, err
		}
		defer tmux("kill-server")
		out, err := tmux("display-message", "-p", "#{pid}")
		if err != nil {
			return memSample{}, err
		}
		pid, err := strconv.Atoi(out)
		if err != nil {
			return memSample{}, errors.New("tmux server pid: " + out)
		}
		time.Sleep(time.Second)
		base, _ := smapsRollup(pid)
		cmd := "sleep 3600"
		if lines > 0 {
			cmd = fmt.Sprintf("seq %d; exec sleep 3600", lines)
		}
		for i := range n {
			if err := session("s"+strconv.Itoa(i), cmd); err != nil {
				return memSample{}, err
			}
		}
		time.Sleep(memSettle)
		total, _ := smapsRollup(pid)
		return memSample{perSession: float64(total-base) / float64(n)}, nil
	}
}

// floorMem measures n gofloor processes (testdata/gofloor: a pty, a
// socket and signals, what any Go supervisor of one session must have),
// started with the runtime settings the dashboard gives its supervisors:
// the floor under a supervisor's cost, with no dashboard's share.
func floorMem(floor, tmp string, n int) func(tag, agent string, lines int) (memSample, error) {
	return func(tag, _ string, lines int) (memSample, error) {
		script := "exec sleep 3600"
		if lines > 0 {
			script = fmt.Sprintf("seq %d; exec sleep 3600", lines)
		}
		env := append(os.Environ(), host.RuntimeEnv...)
		var cmds []*exec.Cmd
		defer func() {
			for _, c := range cmds {
				c.Process.Signal(syscall.SIGTERM)
				c.Wait()
			}
		}()
		for i := range n {
			c := exec.Command(floor, filepath.Join(tmp, fmt.Sprintf("%s-%d.sock", tag, i)), script)
			c.Env = env
			c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := c.Start(); err != nil {
				return memSample{}, err
			}
			cmds = append(cmds, c)
		}
		time.Sleep(memSettle)
		var total, anon []int64
		for _, c := range cmds {
			p, a := smapsRollup(c.Process.Pid)
			total, anon = append(total, p), append(anon, a)
		}
		var sum int64
		for _, p := range total {
			sum += p
		}
		return memSample{perSession: float64(sum) / float64(n), supervisor: median(total), supervisorAnon: median(anon)}, nil
	}
}
