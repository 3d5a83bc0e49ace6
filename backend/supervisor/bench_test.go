package supervisor

import (
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// The benchmarks below carry the supervisor's speed and memory targets
// (issue 2). Run them with
//
//	go test -run '^$' -bench . -benchtime 5x ./backend/supervisor/
//
// and read the custom metrics: they compare side by side within one run, so
// the machine's noise affects both sides alike.

// benchLog writes a file of printable 79-character lines (like a busy log)
// and returns its path and the number of bytes a pty delivers for it (ONLCR
// turns each "\n" into "\r\n").
func benchLog(b *testing.B, size int) (string, int) {
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

// gatedCat is a script that waits for the gate file, then cats file: the
// clock starts when the test opens the gate, after any subscriber is set up.
func gatedCat(g gate, file string) []string {
	return []string{"sh", "-c", g.Wait() + "; exec cat " + file}
}

// rawPtyRead runs argv in a pty (as Start does) and reads it to the end
// with a plain 32 KiB read loop: the baseline a supervisor cannot beat.
// With a sink, each read is written to it at once (see forwardRead).
func rawPtyRead(b *testing.B, argv []string, g gate, sink io.Writer) (int, time.Duration) {
	cmd := exec.Command(argv[0], argv[1:]...)
	ptmx, err := pty.StartWithAttrs(cmd, &pty.Winsize{Cols: 80, Rows: 24},
		&syscall.SysProcAttr{Setsid: true, Setctty: true})
	if err != nil {
		b.Fatal(err)
	}
	defer ptmx.Close()
	begin := time.Now()
	g.Open(b)
	buf := make([]byte, 32<<10)
	n := 0
	for {
		k, err := ptmx.Read(buf)
		n += k
		if k > 0 && sink != nil {
			sink.Write(buf[:k])
		}
		if err != nil { // EIO once the child has exited and the pty drained
			break
		}
	}
	took := time.Since(begin)
	cmd.Wait()
	return n, took
}

// forwardRead is the least a socket subscriber can cost: rawPtyRead's loop
// writing each read straight into a Unix socket pair whose other end a
// goroutine reads to the end. No framing, ring, queue or classifier.
func forwardRead(b *testing.B, argv []string, g gate) (int, time.Duration) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		b.Fatal(err)
	}
	w, r := os.NewFile(uintptr(fds[0]), "w"), os.NewFile(uintptr(fds[1]), "r")
	defer r.Close()
	got := make(chan int)
	go func() {
		n, _ := io.Copy(io.Discard, r)
		got <- int(n)
	}()
	_, took := rawPtyRead(b, argv, g, w)
	end := time.Now()
	w.Close()
	n := <-got // the reader's tail, after the pty is drained
	return n, took + time.Since(end)
}

// socketRead runs argv as a served session and reads its output as a
// socket subscriber until EXIT.
func socketRead(b *testing.B, argv []string, g gate) (int, time.Duration) {
	s := startServed(b, Config{Argv: argv})
	c := dial(b, s.sock)
	subscribeSync(b, c)
	begin := time.Now()
	g.Open(b)
	n, err := outputUntilExit(c)
	if err != nil {
		b.Fatalf("socket read: %v", err)
	}
	return n, time.Since(begin)
}

// outputUntilExit reads a subscribed client's frames until EXIT and
// returns the OUTPUT bytes it got.
func outputUntilExit(c *frame.Client) (int, error) {
	n := 0
	for {
		f, err := c.NextShared()
		if err != nil {
			return n, err
		}
		switch f.Type {
		case frame.Output:
			n += len(f.Payload)
		case frame.Exit:
			return n, nil
		}
	}
}

// BenchmarkThroughput: a child cats a 32 MiB log; each iteration reads it
// once through a plain pty and once as a socket subscriber of a session.
// Metrics: raw_MB/s, socket_MB/s and socket/raw (goal ≥ 0.9); raw_cpu and
// socket_cpu, this process's CPU use (cores) while reading; and, as the
// floor of any design that moves the bytes through a socket, forward_MB/s
// and forward/raw for a bare read-and-forward loop (forwardRead). Every byte
// must arrive: a subscriber that dropped chunks fails the benchmark.
func BenchmarkThroughput(b *testing.B) {
	file, want := benchLog(b, 32<<20)
	var raw, sock time.Duration
	var rawCPU, sockCPU, fwd time.Duration
	for i := 0; i < b.N; i++ {
		g := newGate(b)
		c0 := selfCPU()
		n, d := rawPtyRead(b, gatedCat(g, file), g, nil)
		rawCPU += selfCPU() - c0
		if n != want {
			b.Fatalf("raw pty: %d bytes, want %d", n, want)
		}
		raw += d
		g = newGate(b)
		c0 = selfCPU()
		n, d = socketRead(b, gatedCat(g, file), g)
		sockCPU += selfCPU() - c0
		if n != want {
			b.Fatalf("socket subscriber: %d bytes, want %d (dropped?)", n, want)
		}
		sock += d
		g = newGate(b)
		n, d = forwardRead(b, gatedCat(g, file), g)
		if n != want {
			b.Fatalf("forward: %d bytes, want %d", n, want)
		}
		fwd += d
	}
	mb := float64(want) * float64(b.N) / 1e6
	b.ReportMetric(mb/raw.Seconds(), "raw_MB/s")
	b.ReportMetric(mb/sock.Seconds(), "socket_MB/s")
	b.ReportMetric(raw.Seconds()/sock.Seconds(), "socket/raw")
	b.ReportMetric(mb/fwd.Seconds(), "forward_MB/s")
	b.ReportMetric(raw.Seconds()/fwd.Seconds(), "forward/raw")
	b.ReportMetric(rawCPU.Seconds()/raw.Seconds(), "raw_cpu")
	b.ReportMetric(sockCPU.Seconds()/sock.Seconds(), "socket_cpu")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkKeystrokeRTT: one byte sent as INPUT to a raw-mode child that
// echoes it (cat under stty raw -echo), timed until it returns as OUTPUT.
// Metrics: p50_µs and p99_µs over all keystrokes of the run.
func BenchmarkKeystrokeRTT(b *testing.B) {
	s := startServed(b, Config{Argv: []string{"sh", "-c", "stty raw -echo; printf READY; exec cat"}})
	c := dial(b, s.sock)
	if err := c.Subscribe(); err != nil {
		b.Fatal(err)
	}
	readUntil(b, c, "READY", 10*time.Second)
	c.Conn().SetReadDeadline(time.Now().Add(time.Minute))
	rtts := make([]time.Duration, 0, b.N)
	key := []byte{'k'}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		begin := time.Now()
		if err := c.Input(key); err != nil {
			b.Fatal(err)
		}
		for got := false; !got; {
			f, err := c.Next()
			if err != nil {
				b.Fatal(err)
			}
			got = f.Type == frame.Output && bytes.IndexByte(f.Payload, 'k') >= 0
		}
		rtts = append(rtts, time.Since(begin))
	}
	b.StopTimer()
	slices.Sort(rtts)
	pct := func(p float64) float64 {
		return float64(rtts[int(p*float64(len(rtts)-1))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(pct(0.50), "p50_µs")
	b.ReportMetric(pct(0.99), "p99_µs")
}

// BenchmarkIdleSession: the supervisor's own cost of N idle sessions, each
// served on its socket with one idle subscriber, measured as live Go heap plus
// goroutine stacks, after a GC. The children (sleep) are not counted: their
// memory belongs to the program being supervised. The subscribers are bare
// connections (no read buffer) so only the server side is measured.
func BenchmarkIdleSession(b *testing.B) {
	const n = 20
	for i := 0; i < b.N; i++ {
		before := liveHeap()
		g0 := runtime.NumGoroutine()
		var conns []net.Conn
		for j := 0; j < n; j++ {
			s := startServed(b, Config{Argv: []string{"sleep", "3600"}})
			c, err := net.Dial("unix", s.sock)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { c.Close() })
			if err := frame.Write(c, frame.Subscribe, nil); err != nil {
				b.Fatal(err)
			}
			conns = append(conns, c)
		}
		waitFor(b, "subscribers", 10*time.Second, func() bool { return runtime.NumGoroutine()-g0 >= 5*n })
		time.Sleep(50 * time.Millisecond) // let every goroutine park
		after := liveHeap()
		g1 := runtime.NumGoroutine()
		b.ReportMetric(float64(after-before)/n, "B/session")
		b.ReportMetric(float64(g1-g0)/n, "goroutines/session")
		runtime.KeepAlive(conns)
	}
	b.ReportMetric(0, "ns/op")
}

func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc + ms.StackInuse
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
