package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// BenchmarkRunThroughput is the figure for the whole product path:
// a child cats a 64 MiB log inside `heimdall-tui run` (the built binary, its
// emulator and classifier on), and this process reads it as a socket
// subscriber (wire/frame's client, as attach and the dashboard read) until
// EXIT. Each iteration is a pair, run side by side: the
// same cat read from a plain pty by this process (the baseline), then
// through run. Run it with
//
//	go test -run '^$' -bench RunThroughput -benchtime 5x ./cmd/heimdall-tui/
//
// HEIMDALL_BENCH_BIN=PATH runs another build of heimdall-tui instead of
// this one, to compare builds side by side (alternate the two).
//
// Metrics: run/raw, the median over the pairs of raw time / run time (goal
// ≥ 0.9); raw_MB/s and run_MB/s (medians); sup_ms/MB, the run process's own
// CPU (user+system, children excluded) per MB, read from /proc when EXIT
// arrives (10 ms ticks). Every byte must arrive.
func BenchmarkRunThroughput(b *testing.B) {
	const size = 64 << 20
	bin := binPath
	if p := os.Getenv("HEIMDALL_BENCH_BIN"); p != "" {
		bin = p
	}
	file, want := benchLogFile(b, size)
	var ratios, rawRates, runRates, cpuPerMB []float64
	for i := 0; i < b.N; i++ {
		rawN, rawD := rawPtyCat(b, file)
		if rawN != want {
			b.Fatalf("raw pty: %d bytes, want %d", rawN, want)
		}
		runN, runD, cpu := runCat(b, bin, file, i)
		if runN != want {
			b.Fatalf("run subscriber: %d bytes, want %d (dropped?)", runN, want)
		}
		mb := float64(want) / 1e6
		ratios = append(ratios, rawD.Seconds()/runD.Seconds())
		rawRates = append(rawRates, mb/rawD.Seconds())
		runRates = append(runRates, mb/runD.Seconds())
		cpuPerMB = append(cpuPerMB, float64(cpu.Milliseconds())/mb)
	}
	b.ReportMetric(median(ratios), "run/raw")
	b.ReportMetric(median(rawRates), "raw_MB/s")
	b.ReportMetric(median(runRates), "run_MB/s")
	b.ReportMetric(median(cpuPerMB), "sup_ms/MB")
	b.ReportMetric(0, "ns/op")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// benchLogFile writes size bytes of printable 79-character lines and
// returns the path and the bytes a pty delivers for it (ONLCR: "\n" →
// "\r\n").
func benchLogFile(b *testing.B, size int) (string, int) {
	b.Helper()
	line := bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuvwxyz"), 3)[:79]
	var buf bytes.Buffer
	for buf.Len() < size {
		buf.Write(line)
		buf.WriteByte('\n')
	}
	p := filepath.Join(b.TempDir(), "log")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	return p, buf.Len() + bytes.Count(buf.Bytes(), []byte("\n"))
}

// catGate is a FIFO the child's script blocks on before it cats: the clock
// starts when the benchmark opens it, after the reader is set up.
type catGate string

func newCatGate(b *testing.B) catGate {
	b.Helper()
	d, err := os.MkdirTemp("", "hmg")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(d) })
	p := filepath.Join(d, "g")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		b.Fatal(err)
	}
	return catGate(p)
}

func (g catGate) script(file string) string {
	return "read _ < " + string(g) + "; exec cat " + file
}

// open releases the script (opening a FIFO for writing waits for its
// reader, which is already there or about to be).
func (g catGate) open(b *testing.B) {
	b.Helper()
	f, err := os.OpenFile(string(g), os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	f.Write([]byte("go\n"))
	f.Close()
}

// rawPtyCat reads the gated cat from a plain pty with a 32 KiB read loop.
func rawPtyCat(b *testing.B, file string) (int, time.Duration) {
	g := newCatGate(b)
	cmd := exec.Command("sh", "-c", g.script(file))
	ptmx, err := pty.StartWithAttrs(cmd, &pty.Winsize{Cols: 80, Rows: 24},
		&syscall.SysProcAttr{Setsid: true, Setctty: true})
	if err != nil {
		b.Fatal(err)
	}
	defer ptmx.Close()
	begin := time.Now()
	g.open(b)
	buf := make([]byte, 32<<10)
	n := 0
	for {
		k, err := ptmx.Read(buf)
		n += k
		if err != nil { // EIO once the child has exited and the pty drained
			break
		}
	}
	took := time.Since(begin)
	cmd.Wait()
	return n, took
}

// runCat runs the gated cat under `heimdall-tui run --detach` and reads it
// as a subscriber until EXIT. It returns the bytes read, the time from
// opening the gate to EXIT, and the run process's own CPU time at EXIT.
func runCat(b *testing.B, bin, file string, i int) (int, time.Duration, time.Duration) {
	dir, err := os.MkdirTemp("", "hmb")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	g := newCatGate(b)
	id := "t" + strconv.Itoa(i)
	cmd := exec.Command(bin, "run", "--detach", "--id", id, "--socket-dir", dir,
		"--classifier", "claude", "--", "sh", "-c", g.script(file))
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
		case <-time.After(waitTimeout):
			cmd.Process.Kill()
			<-exited
		}
	}()
	sock := filepath.Join(dir, id+".sock")
	var c *frame.Client
	if !poll(waitTimeout, func() bool { c, err = frame.Dial(sock, time.Second); return err == nil }) {
		b.Fatalf("run did not serve %s: %v\n%s", sock, err, cmd.Stderr)
	}
	defer c.Close()
	if err := c.Subscribe(); err != nil {
		b.Fatal(err)
	}
	begin := time.Now()
	g.open(b)
	n := 0
	for {
		f, err := c.NextShared()
		if err != nil {
			b.Fatalf("socket read: %v", err)
		}
		if f.Type == frame.Output {
			n += len(f.Payload)
		}
		if f.Type == frame.Exit {
			break
		}
	}
	return n, time.Since(begin), procCPU(b, cmd.Process.Pid)
}

// procCPU is a process's own user+system time (children excluded), from
// /proc/PID/stat.
func procCPU(b *testing.B, pid int) time.Duration {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after "(comm) ": state is field 3; utime and stime are 14 and 15.
	f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+2:]))
	ut, _ := strconv.Atoi(f[11])
	stm, _ := strconv.Atoi(f[12])
	return time.Duration(ut+stm) * (time.Second / 100) // USER_HZ is 100 on Linux
}
