package blemeesd

import (
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// 200 connections each sending a line that never ends hold no more than
// the daemon's input budget together: the ones over it get
// oversize_message and are closed; a client that behaves is served all
// along.
func TestEndlessLinesBudget(t *testing.T) {
	const maxLine, budget, conns = 1 << 20, 4 << 20, 200
	e := newEnv(t, func(c *Config) {
		c.MaxLineBytes, c.InputBudgetBytes, c.MaxConnections = maxLine, budget, conns+10
	})
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	chunk := []byte(strings.Repeat("x", 64<<10))
	var wg sync.WaitGroup
	open := make([]net.Conn, conns)
	for i := range conns {
		nc, err := net.Dial("unix", e.sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		open[i] = nc
		// Each writes just under a line's maximum, never a newline, and
		// holds the connection open: what the daemon holds of it stays.
		wg.Go(func() {
			nc.SetWriteDeadline(time.Now().Add(20 * time.Second))
			nc.Write([]byte(`{"type":"blemeesd.ping","data":"`))
			for sent := 0; sent+len(chunk) < maxLine-64; sent += len(chunk) {
				if _, err := nc.Write(chunk); err != nil {
					return // refused and closed
				}
			}
		})
	}
	wg.Wait()
	c := e.connect()
	if f := c.Request(map[string]any{"type": "blemeesd.ping", "id": "p1"}, "blemeesd.pong"); f.Type() != "blemeesd.pong" {
		t.Fatalf("a client beside the flood: %v", f)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > 2*budget+(8<<20) {
		t.Fatalf("the daemon's heap grew by %d MiB with %d endless lines (budget %d MiB)", held>>20, conns, budget>>20)
	}
	// The refused ones were told why.
	refused := 0
	buf := make([]byte, 4096)
	for _, nc := range open {
		nc.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		n, _ := nc.Read(buf)
		if strings.Contains(string(buf[:n]), `"code":"oversize_message"`) {
			refused++
		}
	}
	if refused < conns-budget/maxLine*2 {
		t.Fatalf("%d of %d connections refused", refused, conns)
	}
}

// One connection more than max_connections gets an error frame saying so
// and is closed; the others are served.
func TestMaxConnections(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxConnections = 3 })
	first := e.connect()
	e.connect()
	e.connect()
	extra, err := net.Dial("unix", e.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	extra.SetReadDeadline(time.Now().Add(10 * time.Second))
	b := make([]byte, 4096)
	n, _ := extra.Read(b)
	if !strings.Contains(string(b[:n]), "too many connections") || !strings.Contains(string(b[:n]), `"type":"blemeesd.error"`) {
		t.Fatalf("the one too many got %q", b[:n])
	}
	if _, err := extra.Read(b); err == nil {
		t.Fatal("the one too many was not closed")
	}
	first.NC.Close()
	waitFor(t, "a place again once one went", func() bool { return e.d.Server.Connections() < 3 })
	c := e.connect()
	if f := c.Request(map[string]any{"type": "blemeesd.ping", "id": "p1"}, "blemeesd.pong"); f.Type() != "blemeesd.pong" {
		t.Fatalf("after one went: %v", f)
	}
}
