package supervisor

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// BenchmarkRunThroughput is the figure for the whole product path: a child
// cats a 64 MiB log inside `heimdall run` (the built binary, its
// emulator and claude classifier on, in a process of its own), and this
// process reads it as a socket subscriber (wire/frame's client, as attach
// and the dashboard read) until EXIT. Each iteration is a pair, side by
// side: the same cat read from a plain pty by this process (rawPtyRead, the
// baseline), then through run. Run it with
//
//	go test -run '^$' -bench RunThroughput -benchtime 5x ./backend/supervisor/
//
// It builds cmd/heimdall first; HEIMDALL_BENCH_BIN=PATH runs that build
// instead, to compare builds side by side (alternate the two).
//
// Metrics: run/raw, the median over the pairs of raw time / run time (goal
// ≥ 0.9); fwd/raw, the same for forwardRead (the ceiling: a bare
// read-and-forward loop in this process, read in each iteration between the
// two); raw_MB/s and run_MB/s (medians); sup_ms/MB, the run process's own
// CPU (user+system, children excluded) per MB, read from /proc when EXIT
// arrives (10 ms ticks); raw_ms/MB, the raw reader's (this process's CPU
// while it reads), and sub_ms/MB, the subscriber's (this process's CPU
// while it reads through run). Every byte must arrive.
func BenchmarkRunThroughput(b *testing.B) {
	file, want := benchLog(b, 64<<20)
	runThroughput(b, file, want)
}

// BenchmarkRunThroughputRedraw is BenchmarkRunThroughput for a program
// that floods full-screen redraws (cursor home, then a screen of box
// drawing and symbols, as an agent's TUI draws): output the emulator
// cannot skip as it skips lines scrolled away unseen, so it costs ~20×
// more to emulate than a log (vt's BenchmarkBoxUI), and when it comes
// faster than the emulator applies it the feeder paces the pty reader
// (screenPace). 16 MiB. Run it with
//
//	go test -run '^$' -bench RunThroughputRedraw -benchtime 5x ./backend/supervisor/
func BenchmarkRunThroughputRedraw(b *testing.B) {
	file, want := benchRedraw(b, 16<<20)
	runThroughput(b, file, want)
}

// benchRedraw writes a file of 78×23 screens, each drawn from the cursor
// home, and returns its path and the bytes a pty delivers for it (see
// benchLog).
func benchRedraw(b *testing.B, size int) (string, int) {
	b.Helper()
	const cols, rows = 78, 23
	spin := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
	var buf bytes.Buffer
	for f := 0; buf.Len() < size; f++ {
		buf.WriteString("\x1b[H╭" + strings.Repeat("─", cols-2) + "╮\n")
		for y := 1; y < rows-1; y++ {
			fmt.Fprintf(&buf, "│ %c ⏺ Read(src/file%02d.go) → ✻ thinking… %s│\n",
				spin[(y+f)%len(spin)], y, strings.Repeat("·", cols-42))
		}
		buf.WriteString("╰" + strings.Repeat("─", cols-2) + "╯")
	}
	p := filepath.Join(b.TempDir(), "redraw")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	return p, buf.Len() + bytes.Count(buf.Bytes(), []byte("\n"))
}

// runThroughput is the RunThroughput benchmarks' pairs: file, whose want
// bytes the pty delivers, read raw and through run.
func runThroughput(b *testing.B, file string, want int) {
	bin := os.Getenv("HEIMDALL_BENCH_BIN")
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "heimdall")
		if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/heimdall").CombinedOutput(); err != nil {
			b.Fatalf("build heimdall: %v\n%s", err, out)
		}
	}
	var ratios, fwdRatios, rawRates, runRates, cpuPerMB, sysPerMB, rawPerMB, subPerMB []float64
	for i := 0; i < b.N; i++ {
		g := newGate(b)
		c0 := selfCPU()
		rawN, rawD := rawPtyRead(b, gatedCat(g, file), g, nil)
		rawCPU := selfCPU() - c0
		if rawN != want {
			b.Fatalf("raw pty: %d bytes, want %d", rawN, want)
		}
		g = newGate(b)
		fwdN, fwdD := forwardRead(b, gatedCat(g, file), g)
		if fwdN != want {
			b.Fatalf("forward: %d bytes, want %d", fwdN, want)
		}
		c0 = selfCPU()
		runN, runD, cpu, sys := runCat(b, bin, file, i)
		subCPU := selfCPU() - c0
		if runN != want {
			b.Fatalf("run subscriber: %d bytes, want %d (dropped?)", runN, want)
		}
		mb := float64(want) / 1e6
		ratios = append(ratios, rawD.Seconds()/runD.Seconds())
		fwdRatios = append(fwdRatios, rawD.Seconds()/fwdD.Seconds())
		rawRates = append(rawRates, mb/rawD.Seconds())
		runRates = append(runRates, mb/runD.Seconds())
		cpuPerMB = append(cpuPerMB, float64(cpu.Milliseconds())/mb)
		sysPerMB = append(sysPerMB, float64(sys.Milliseconds())/mb)
		rawPerMB = append(rawPerMB, float64(rawCPU.Microseconds())/1e3/mb)
		subPerMB = append(subPerMB, float64(subCPU.Microseconds())/1e3/mb)
		b.Logf("pair %d: run/raw %.3f fwd/raw %.3f sup_ms/MB %.2f raw_ms/MB %.2f sub_ms/MB %.2f",
			i, ratios[i], fwdRatios[i], cpuPerMB[i], rawPerMB[i], subPerMB[i])
	}
	b.Logf("run/raw %s; fwd/raw %s; sup_ms/MB %s", spread(ratios), spread(fwdRatios), spread(cpuPerMB))
	b.ReportMetric(median(ratios), "run/raw")
	b.ReportMetric(median(fwdRatios), "fwd/raw")
	b.ReportMetric(median(rawRates), "raw_MB/s")
	b.ReportMetric(median(runRates), "run_MB/s")
	b.ReportMetric(median(cpuPerMB), "sup_ms/MB")
	b.ReportMetric(median(sysPerMB), "sup_sys_ms/MB")
	b.ReportMetric(median(rawPerMB), "raw_ms/MB")
	b.ReportMetric(median(subPerMB), "sub_ms/MB")
	b.ReportMetric(0, "ns/op")
}

// spread formats xs as "median [min-max]".
func spread(xs []float64) string {
	return fmt.Sprintf("%.3f [%.3f-%.3f]", median(xs), slices.Min(xs), slices.Max(xs))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// runCat runs the gated cat under `heimdall run --foreground` and reads it
// as a subscriber until EXIT. It returns the bytes read, the time from
// opening the gate to EXIT, and the run process's own CPU time at EXIT
// (user+system, and system alone).
func runCat(b *testing.B, bin, file string, i int) (int, time.Duration, time.Duration, time.Duration) {
	dir := shortDir(b)
	g := newGate(b)
	id := "t" + strconv.Itoa(i)
	args := append([]string{"run", "--foreground", "--id", id, "--socket-dir", dir, "--classifier", "claude", "--"},
		gatedCat(g, file)...)
	cmd := exec.Command(bin, args...)
	// The runtime settings a dashboard's supervisor starts with
	// (host.RuntimeEnv, which this package cannot import).
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "GOGC=off", "GOMEMLIMIT=32MiB")
	cmd.Stderr = new(bytes.Buffer)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		// Not reaped before its CPU is read: until then /proc/PID stays.
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		select { // run exits by itself once EXIT is delivered
		case <-exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}()
	var c *frame.Client
	waitFor(b, "run to serve its socket", 20*time.Second, func() bool {
		var err error
		c, err = frame.Dial(SocketPath(dir, id), time.Second)
		return err == nil
	})
	defer c.Close()
	if err := c.Subscribe(); err != nil {
		b.Fatal(err)
	}
	begin := time.Now()
	g.Open(b)
	n, err := outputUntilExit(c)
	if err != nil {
		b.Fatalf("socket read: %v\n%s", err, cmd.Stderr)
	}
	d := time.Since(begin)
	cpu, sys := procCPU(b, cmd.Process.Pid)
	return n, d, cpu, sys
}

// procCPU is a process's own user+system time and its system time alone
// (children excluded), from /proc/PID/stat.
func procCPU(b *testing.B, pid int) (total, sys time.Duration) {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after "(comm) ": state is field 3; utime and stime are 14 and 15.
	f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+2:]))
	ut, _ := strconv.Atoi(f[11])
	stm, _ := strconv.Atoi(f[12])
	const tick = time.Second / 100 // USER_HZ is 100 on Linux
	return time.Duration(ut+stm) * tick, time.Duration(stm) * tick
}
