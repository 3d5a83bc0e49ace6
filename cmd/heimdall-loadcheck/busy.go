package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// busyOptions configure the busy scenario.
type busyOptions struct {
	n      int           // flooding sessions
	window time.Duration // frames/s and CPU measured over this
	keys   int           // keypresses timed
	rounds int           // each measures bin, then base (the order rotating)
	base   string        // a second binary measured beside bin; "" for none
	// env is added to the dashboards' environment (e.g. GOGC=400, to
	// try a setting without a build).
	env []string
}

// keyTiming is one keypress of the busy scenario: written to the pty at
// wrote, its frame seen by the emulator at seen (wall clock, ns), and the
// time the dashboard's and this process's threads spent runnable but not
// running meanwhile (schedstat's run_delay, summed over threads).
type keyTiming struct {
	wrote, seen         int64
	dashWait, selfWaits time.Duration
	dashCPU             time.Duration
}

func (k keyTiming) latency() time.Duration { return time.Duration(k.seen - k.wrote) }

// busyResult is what one round measured of one binary.
type busyResult struct {
	keys   []keyTiming
	stages []keyStages // from the dashboard's frame trace; nil without one
}

func busyScenario(bin, cfg, tmp string, o busyOptions) error {
	bins := [][2]string{{"this", bin}}
	if o.base != "" {
		bins = append(bins, [2]string{"base", o.base})
	}
	results := map[string][]busyResult{}
	for r := range max(1, o.rounds) {
		for k := range bins {
			b := bins[(k+r)%len(bins)]
			res, err := busyRound(b[1], cfg, tmp, fmt.Sprintf("busy%d-%s", r, b[0]), b[0], o)
			if err != nil {
				return fmt.Errorf("%s: %w", b[0], err)
			}
			results[b[0]] = append(results[b[0]], res)
		}
	}
	if len(bins) == 1 && o.rounds <= 1 {
		return nil
	}
	fmt.Printf("busy: keypress → frame, %d rounds of %d keys per binary; per-round p50 and p99 as median [min–max], then all keys pooled:\n", max(1, o.rounds), o.keys)
	for _, b := range bins {
		var p50s, p99s []float64
		var all []time.Duration
		for _, res := range results[b[0]] {
			lat := latencies(res.keys)
			p50s = append(p50s, ms(pct(lat, 0.5)))
			p99s = append(p99s, ms(pct(lat, 0.99)))
			all = append(all, lat...)
		}
		slices.Sort(all)
		fmt.Printf("  %-5s p50 %s ms, p99 %s ms; pooled p50 %.1f p90 %.1f p99 %.1f max %.1f ms\n", b[0],
			spread(p50s, "%.1f"), spread(p99s, "%.1f"),
			ms(pct(all, 0.5)), ms(pct(all, 0.9)), ms(pct(all, 0.99)), ms(all[len(all)-1]))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// latencies are ks' latencies, sorted.
func latencies(ks []keyTiming) []time.Duration {
	lat := make([]time.Duration, len(ks))
	for i, k := range ks {
		lat[i] = k.latency()
	}
	slices.Sort(lat)
	return lat
}

// busyRound starts a dashboard of bin with o.n flooding sessions in the
// grid and measures it: frames/s and CPU over o.window, then o.keys
// keypresses, each timed until the emulated screen shows its effect, with
// where the time went (keyBreakdown), then keys into a quiet session.
func busyRound(bin, cfg, tmp, name, label string, o busyOptions) (busyResult, error) {
	trace := filepath.Join(tmp, name+".frames")
	d, err := startDashboardEnv(bin, cfg, tmp, name, append(o.env, "HEIMDALL_FRAMETRACE="+trace)...)
	if err != nil {
		return busyResult{}, err
	}
	stopped := false
	defer func() {
		if !stopped {
			d.stop()
		}
	}()
	if err := d.spawn("busy", o.n); err != nil {
		return busyResult{}, err
	}
	d.type_("g") // grid: every session on screen
	time.Sleep(2 * time.Second)
	cpu0, t0, frames0 := d.cpu(), time.Now(), d.frames()
	time.Sleep(o.window)
	el := time.Since(t0).Seconds()
	fmt.Printf("busy %s: %d sessions writing, grid, %v: %.1f frames/s, dashboard CPU %.0f%% of a core, RSS %.1f MiB\n",
		label, o.n, o.window, float64(d.frames()-frames0)/el, 100*(d.cpu()-cpu0).Seconds()/el, float64(d.rss())/(1<<20))

	// Keypress → frame: '?' opens the help screen, '?' closes it; each
	// is timed until the emulated screen shows the change.
	res := busyResult{}
	dash, self := []int{d.cmd.Process.Pid}, []int{os.Getpid()}
	for i := 0; i < o.keys; i++ {
		want := i%2 == 0 // help shown after this key
		dw0, sw0, dc0 := runDelay(dash), runDelay(self), d.cpu()
		k := keyTiming{wrote: time.Now().UnixNano()}
		d.type_("?")
		if !d.waitFor(5*time.Second, func(s string) bool { return strings.Contains(s, helpMarker) == want }) {
			return res, fmt.Errorf("key %d: help did not %s", i, map[bool]string{true: "open", false: "close"}[want])
		}
		k.seen = time.Now().UnixNano()
		k.dashWait, k.selfWaits, k.dashCPU = runDelay(dash)-dw0, runDelay(self)-sw0, d.cpu()-dc0
		res.keys = append(res.keys, k)
	}
	lat := latencies(res.keys)
	fmt.Printf("busy %s: keypress → frame over %d keys: p50 %v, p90 %v, p99 %v, max %v\n", label,
		len(lat), pct(lat, 0.5).Round(100*time.Microsecond), pct(lat, 0.9).Round(100*time.Microsecond),
		pct(lat, 0.99).Round(100*time.Microsecond), lat[len(lat)-1].Round(100*time.Microsecond))
	if err := attachedUnderFlood(bin, cfg, filepath.Join(tmp, name+"-rtt"), o.keys, label); err != nil {
		return res, err
	}
	d.stop()
	stopped = true
	res.stages = keyBreakdown(trace, res.keys)
	printBreakdown(label, res)
	return res, nil
}

// runDelay is the time pids' threads have spent runnable, waiting for a
// CPU, so far (the second field of /proc/PID/task/*/schedstat).
func runDelay(pids []int) time.Duration { return schedstatSum(pids, 1) }

// keyStages is where one keypress's time went, from the dashboard's frame
// trace (tui/frametrace): written to the pty → Update is called with the
// key (arrive: the tty read, input parsing, and whatever message the loop
// was handling) → Update → View → the renderer's write of the frame that
// shows it starts (queue; negative when a write already under way took
// the key's view) → frame written (draw) → the emulator shows it (seen:
// the pty, this process's reader and emulator).
type keyStages struct {
	arrive, update, view, queue, draw, seen time.Duration
	gc                                      bool // a collection ended between the key's arrival and its frame's write
	found                                   bool
}

// traceLine is a line of the dashboard's frame trace.
type traceLine struct {
	draw       bool
	key        bool
	kind       string   // a message's
	t          [3]int64 // msg: received, updated, viewed; draw: start, written
	gcs        uint64
	inputFrame bool
}

// keyBreakdown matches each key to the trace's first key message received
// after it was written and the first frame started after that message's
// View. A binary without the trace gives nil.
func keyBreakdown(path string, keys []keyTiming) []keyStages {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []traceLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		var l traceLine
		var n []string
		switch {
		case len(fs) == 6 && fs[0] == "msg":
			l.key, l.kind, n = fs[1] == "key", fs[1], fs[2:5]
		case len(fs) == 5 && fs[0] == "draw":
			l.draw, n = true, fs[1:3]
			l.inputFrame = fs[3] == "1"
		default:
			continue
		}
		for i, s := range n {
			l.t[i], _ = strconv.ParseInt(s, 10, 64)
		}
		l.gcs, _ = strconv.ParseUint(fs[len(fs)-1], 10, 64)
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return nil
	}
	first, last := lines[0], lines[len(lines)-1]
	if span := time.Duration(last.t[0] - first.t[0]); span > 0 {
		var handle, draw []time.Duration
		for _, l := range lines {
			switch {
			case l.draw && !l.inputFrame:
				draw = append(draw, time.Duration(l.t[1]-l.t[0]))
			case !l.draw && l.kind == "app.eventsMsg":
				handle = append(handle, time.Duration(l.t[2]-l.t[0]))
			}
		}
		slices.Sort(handle)
		slices.Sort(draw)
		fmt.Printf("busy: the dashboard collected garbage %.1f times a second (%d in %v); a batch of screen updates took %.2f ms to apply and view, its frame %.2f ms to draw (medians of %d, %d)\n",
			float64(last.gcs-first.gcs)/span.Seconds(), last.gcs-first.gcs, span.Round(time.Second),
			ms(pct(handle, 0.5)), ms(pct(draw, 0.5)), len(handle), len(draw))
	}
	out := make([]keyStages, len(keys))
	for i, k := range keys {
		m := slices.IndexFunc(lines, func(l traceLine) bool { return l.key && l.t[0] >= k.wrote })
		if m < 0 {
			continue
		}
		msg := lines[m]
		dr := slices.IndexFunc(lines[m:], func(l traceLine) bool { return l.draw && l.t[1] >= msg.t[2] })
		if dr < 0 {
			continue
		}
		draw := lines[m+dr]
		out[i] = keyStages{
			arrive: time.Duration(msg.t[0] - k.wrote), update: time.Duration(msg.t[1] - msg.t[0]),
			view: time.Duration(msg.t[2] - msg.t[1]), queue: time.Duration(draw.t[0] - msg.t[2]),
			draw: time.Duration(draw.t[1] - draw.t[0]), seen: time.Duration(k.seen - draw.t[1]),
			gc: draw.gcs != msg.gcs, found: true,
		}
	}
	return out
}

// printBreakdown prints the medians of where the time went, for all keys
// and for the slowest tenth: the trace's stages (when the binary writes
// one) and the time the dashboard's and this process's threads waited
// for a CPU.
func printBreakdown(label string, res busyResult) {
	idx := make([]int, len(res.keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(res.keys[a].latency() - res.keys[b].latency()) })
	slow := idx[len(idx)-max(1, len(idx)/10):]
	for _, set := range []struct {
		name string
		idx  []int
	}{{"all keys", idx}, {"slowest 10%", slow}} {
		med := func(f func(i int) time.Duration) string {
			v := make([]time.Duration, 0, len(set.idx))
			for _, i := range set.idx {
				v = append(v, f(i))
			}
			slices.Sort(v)
			return fmt.Sprintf("%.2f", ms(v[len(v)/2]))
		}
		line := fmt.Sprintf("busy %s: %s, medians in ms: latency %s; runnable waiting for a CPU: dashboard %s, loadcheck %s; dashboard CPU %s",
			label, set.name, med(func(i int) time.Duration { return res.keys[i].latency() }),
			med(func(i int) time.Duration { return res.keys[i].dashWait }),
			med(func(i int) time.Duration { return res.keys[i].selfWaits }),
			med(func(i int) time.Duration { return res.keys[i].dashCPU }))
		if res.stages != nil {
			st := func(f func(s keyStages) time.Duration) string {
				return med(func(i int) time.Duration { return f(res.stages[i]) })
			}
			gcs := 0
			for _, i := range set.idx {
				if res.stages[i].gc {
					gcs++
				}
			}
			line += fmt.Sprintf("; stages: arrive %s, update %s, view %s, queue %s, draw %s, seen %s; with a GC %d/%d",
				st(func(s keyStages) time.Duration { return s.arrive }), st(func(s keyStages) time.Duration { return s.update }),
				st(func(s keyStages) time.Duration { return s.view }), st(func(s keyStages) time.Duration { return s.queue }),
				st(func(s keyStages) time.Duration { return s.draw }), st(func(s keyStages) time.Duration { return s.seen }),
				gcs, len(set.idx))
		}
		fmt.Println(line)
	}
	if res.stages == nil {
		return
	}
	fmt.Printf("busy %s: the 5 slowest keys, ms: latency = arrive + update + view + queue + draw + seen [GC]; dashboard waiting for a CPU, running\n", label)
	for _, i := range idx[max(0, len(idx)-5):] {
		k, s := res.keys[i], res.stages[i]
		gc := ""
		if s.gc {
			gc = " GC"
		}
		fmt.Printf("  %.1f = %.1f + %.1f + %.1f + %.1f + %.1f + %.1f%s; %.1f, %.1f\n", ms(k.latency()),
			ms(s.arrive), ms(s.update), ms(s.view), ms(s.queue), ms(s.draw), ms(s.seen), gc, ms(k.dashWait), ms(k.dashCPU))
	}
}

// attachedUnderFlood times keystrokes typed into a session that does not
// flood while the busy sessions go on flooding: a session started with
// `run --detach` (as a user's own, beside the dashboard's), reached through
// its socket and through `heimdall-tui attach` (the rtt scenario's
// targets). Whatever gives the dashboard the CPU first under a flood must
// not make typing into a session slow.
func attachedUnderFlood(bin, cfg, dir string, keys int, label string) error {
	stop, pid, err := startRunSession(bin, cfg, dir)
	if err != nil {
		return err
	}
	defer stop()
	sock := filepath.Join(dir, "rtt.sock")
	// The socket's file exists from bind, a moment before it listens.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := frame.Dial(sock, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("keys into a session: %w", err)
		}
	}
	targets := []rttTarget{
		{"socket", func() (*rttConn, error) { return socketTarget(sock, pid) }},
		{"attach", func() (*rttConn, error) {
			cmd := exec.Command(bin, "--config", cfg, "--socket-dir", dir, "attach", "rtt")
			return ptyTarget(cmd, altScreen, []int{pid}, func(c *rttConn) {
				unix.Write(c.fd, []byte{0x1c}) // Ctrl-\ detaches
			})
		}},
	}
	for _, t := range targets {
		lat, _, _, err := rttRound(t, keys, 0)
		if err != nil {
			return fmt.Errorf("keys into a session, %s: %w", t.name, err)
		}
		slices.Sort(lat)
		fmt.Printf("busy %s: keystroke round trip into a quiet session through %s over %d keys: p50 %v, p99 %v\n",
			label, t.name, len(lat), pct(lat, 0.5).Round(10*time.Microsecond), pct(lat, 0.99).Round(10*time.Microsecond))
	}
	return nil
}
