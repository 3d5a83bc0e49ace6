package blemeesd

import (
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/wire/blemees/blemeestest"
)

// A claude stream_event as the daemon reads it.
var sampleEvent = []byte(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello, world"}},"session_id":"0c6f4d0e-1b7e-4b8e-9d61-1f3c1c2a9e11","parent_tool_use_id":null,"uuid":"5a1f0f5e-8d0b-4c3e-b2b4-7b1f7f3d2a10"}`)

// The frame encoding of one forwarded event.
func BenchmarkClaudeFrame(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Frame(headless.Event{Kind: headless.EventClaude, Session: "s_abc", Seq: 12345, Type: "stream_event", Raw: sampleEvent})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Per-event forwarding: one turn of b.N events from the fake claude
// through the daemon to a reading client over the socket. cpu-µs/event is
// this process's CPU (daemon and the test client reading) per event: an
// upper bound of the daemon's own cost.
func BenchmarkForwardEvents(b *testing.B) {
	e := newEnvTB(b)
	c := blemeestest.Connect(b, e.sock)
	c.NoCheck = true
	c.Send(open("f"))
	c.Until("claude.system")
	n := max(b.N, 1000)
	b.ResetTimer()
	cpu0, t0 := cpuTime(), time.Now()
	c.Send(user("f", fmt.Sprintf("flood:%d", n)))
	c.Until("claude.result")
	wall, cpu := time.Since(t0), cpuTime()-cpu0
	b.StopTimer()
	b.ReportMetric(float64(wall.Nanoseconds())/float64(n)/1e3, "wall-µs/event")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n)/1e3, "cpu-µs/event")
}

// Warm claude.user → first forwarded event (the fake answers at once).
func BenchmarkWarmFirstEvent(b *testing.B) {
	e := newEnvTB(b)
	c := blemeestest.Connect(b, e.sock)
	c.NoCheck = true
	c.Send(open("w"))
	c.Until("claude.system")
	var total time.Duration
	for b.Loop() {
		t0 := time.Now()
		c.Send(user("w", "hi"))
		c.Until("claude.stream_event")
		total += time.Since(t0)
		c.Until("claude.result")
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/first-event")
}

// 64 sessions (two connections of 32, the per-connection default) each
// streaming 3,000 events at 1,000/s, read by the clients: no slow_consumer,
// every event delivered.
func BenchmarkSessions64x1000(b *testing.B) {
	const sessions, events, rate = 64, 3000, 1000
	for b.Loop() {
		e := newEnvTB(b, func(c *Config) { c.SlowConsumerS = 5 })
		conns := []*blemeestest.Conn{blemeestest.Connect(b, e.sock), blemeestest.Connect(b, e.sock)}
		for _, c := range conns {
			c.NoCheck = true
		}
		for i := range sessions {
			c := conns[i%2]
			if f := c.Request(open(fmt.Sprint("s", i)), "blemeesd.opened"); f.Type() != "blemeesd.opened" {
				b.Fatalf("open %d: %v", i, f)
			}
		}
		cpu0, t0 := cpuTime(), time.Now()
		for i := range sessions {
			conns[i%2].Send(user(fmt.Sprint("s", i), fmt.Sprintf("stream:%d:%d", events, rate)))
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		got, slow := 0, 0
		for _, c := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results, n := 0, 0
				for results < sessions/2 {
					f, err := c.Read()
					if err != nil {
						break
					}
					switch f.Type() {
					case "claude.stream_event":
						n++
					case "claude.result":
						results++
					case "blemeesd.error":
						mu.Lock()
						slow++
						mu.Unlock()
					}
				}
				mu.Lock()
				got += n
				mu.Unlock()
			}()
		}
		wg.Wait()
		wall, cpu := time.Since(t0), cpuTime()-cpu0
		if slow > 0 || got != sessions*(events+1) {
			b.Fatalf("%d error frames, %d of %d events", slow, got, sessions*(events+1))
		}
		b.ReportMetric(wall.Seconds(), "s/run")
		b.ReportMetric(float64(got)/wall.Seconds(), "events/s")
		b.ReportMetric(cpu.Seconds()/wall.Seconds()*100, "%cpu(daemon+clients)")
		e.stop()
	}
}
