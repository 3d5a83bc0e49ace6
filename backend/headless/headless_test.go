package headless

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/headless/headlesstest"
)

func TestMain(m *testing.M) { os.Exit(headlesstest.Main(m)) }

// sink collects what a session delivers.
type sink struct {
	ch    chan Event
	mu    sync.Mutex
	taken []int
}

func newSink() *sink { return &sink{ch: make(chan Event, 4096)} }

func (k *sink) Deliver(ev Event) { k.ch <- ev }
func (k *sink) Taken(_ string, by int) {
	k.mu.Lock()
	k.taken = append(k.taken, by)
	k.mu.Unlock()
}

// next waits for the next event.
func (k *sink) next(t *testing.T) Event {
	t.Helper()
	select {
	case ev := <-k.ch:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return Event{}
}

// until returns the events up to and including the first that cond accepts.
func (k *sink) until(t *testing.T, cond func(Event) bool) []Event {
	t.Helper()
	var evs []Event
	for {
		ev := k.next(t)
		evs = append(evs, ev)
		if cond(ev) {
			return evs
		}
	}
}

func isType(typ string) func(Event) bool {
	return func(ev Event) bool { return ev.Kind == EventClaude && ev.Type == typ }
}

func isKind(k EventKind) func(Event) bool { return func(ev Event) bool { return ev.Kind == k } }

func newManager(t *testing.T, cfg Config) (*Manager, string) {
	t.Helper()
	dir := t.TempDir()
	cfg.Claude = headlesstest.FakeClaude(t)
	cfg.Home = dir
	if cfg.InterruptGrace == 0 {
		cfg.InterruptGrace = 200 * time.Millisecond
	}
	m := NewManager(cfg)
	t.Cleanup(func() { m.Shutdown(0, 5*time.Second) })
	return m, dir
}

func userMsg(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"role": "user", "content": text})
	return b
}

func TestTurnsAndUsage(t *testing.T) {
	m, home := newManager(t, Config{})
	k := newSink()
	s, err := m.Open(Spec{ID: "s1", Dir: home, Args: []string{"--model", "opus"}}, Attach{Sink: k, LastSeen: -1})
	if err != nil {
		t.Fatal(err)
	}
	init := k.next(t)
	if init.Seq != 1 || init.Type != "system" {
		t.Fatalf("first event %+v", init)
	}
	for i := range 2 {
		if err := s.Send(k, userMsg("slow:100 hello")); err != nil {
			t.Fatal(err)
		}
		if err := s.Send(k, userMsg("again")); err != ErrBusy {
			t.Fatalf("second send during a turn: %v", err)
		}
		evs := k.until(t, isType("result"))
		if !strings.Contains(string(evs[len(evs)-1].Raw), "slow done") {
			t.Fatalf("turn %d: %s", i, evs[len(evs)-1].Raw)
		}
	}
	inf := s.Info()
	if inf.Model != "opus" || inf.Usage.Turns != 2 || inf.Usage.Total["input_tokens"] != 20 || inf.Usage.ContextTokens != 117 || inf.TurnActive {
		t.Fatalf("info %+v", inf)
	}
	if _, ok := inf.Usage.Total["service_tier"]; ok {
		t.Fatal("non-integer usage kept")
	}
}

func TestCrashAndInterrupt(t *testing.T) {
	logf := filepath.Join(t.TempDir(), "fake.log")
	t.Setenv("FAKE_CLAUDE_LOG", logf)
	m, home := newManager(t, Config{})
	k := newSink()
	s, err := m.Open(Spec{ID: "s2", Dir: home}, Attach{Sink: k, LastSeen: -1})
	if err != nil {
		t.Fatal(err)
	}
	k.next(t)
	s.Send(k, userMsg("crash"))
	evs := k.until(t, isKind(EventCrashed))
	if c := evs[len(evs)-1]; !strings.Contains(c.Text, "simulated crash") {
		t.Fatalf("crash event %+v", c)
	}
	// The next turn respawns with --resume.
	if err := s.Send(k, userMsg("after")); err != nil {
		t.Fatal(err)
	}
	k.until(t, isType("result"))
	// Interrupt mid-turn.
	s.Send(k, userMsg("slow:5000"))
	k.until(t, func(ev Event) bool { return strings.Contains(string(ev.Raw), "slow ") })
	start := time.Now()
	if err := s.Interrupt(k); err != nil {
		t.Fatal(err)
	}
	ev := k.until(t, isKind(EventInterrupted))
	if last := ev[len(ev)-1]; last.WasIdle {
		t.Fatal("was_idle during a turn")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("interrupt took %v", d)
	}
	k.until(t, isType("system")) // the respawn's init
	if err := s.Interrupt(k); err != nil {
		t.Fatal(err)
	}
	if ev := k.next(t); ev.Kind != EventInterrupted || !ev.WasIdle {
		t.Fatalf("idle interrupt: %+v", ev)
	}
	b, _ := os.ReadFile(logf)
	log := string(b)
	if strings.Count(log, `"--resume","s2"`) != 2 || strings.Count(log, `"--session-id","s2"`) != 1 || !strings.Contains(log, "sigterm") {
		t.Fatalf("fake log:\n%s", log)
	}
}

func TestReplayAndGap(t *testing.T) {
	m, home := newManager(t, Config{RingSize: 8})
	k := newSink()
	s, err := m.Open(Spec{ID: "s3", Dir: home}, Attach{Sink: k, LastSeen: -1})
	if err != nil {
		t.Fatal(err)
	}
	k.next(t)
	s.Send(k, userMsg("flood:20"))
	evs := k.until(t, isType("result"))
	last := evs[len(evs)-1].Seq
	k2 := newSink()
	var acked uint64
	if _, err := m.Open(Spec{ID: "s3", Dir: home, Resume: true}, Attach{Sink: k2, LastSeen: 3, PeerPID: 42, Ack: func(_ int, l uint64) { acked = l }}); err != nil {
		t.Fatal(err)
	}
	if acked != last {
		t.Fatalf("ack last seq %d, want %d", acked, last)
	}
	gap := k2.next(t)
	if gap.Kind != EventReplayGap || gap.Since != 3 || gap.First != last-7 {
		t.Fatalf("gap %+v (last %d)", gap, last)
	}
	for want := last - 7; want <= last; want++ {
		if ev := k2.next(t); ev.Seq != want {
			t.Fatalf("replayed seq %d, want %d", ev.Seq, want)
		}
	}
	k.mu.Lock()
	taken := k.taken
	k.mu.Unlock()
	if len(taken) != 1 || taken[0] != 42 {
		t.Fatalf("taken %v", taken)
	}
	if err := s.Send(k, userMsg("x")); err == nil {
		t.Fatal("the old owner can still send")
	}
}

// TestOnOpenAndDone: the hook sees new sessions (not reattached ones) and
// Done closes with Close.
func TestOnOpenAndDone(t *testing.T) {
	m, home := newManager(t, Config{})
	var mu sync.Mutex
	var opened []string
	m.OnOpen(func(s *Session) {
		mu.Lock()
		opened = append(opened, s.ID())
		mu.Unlock()
	})
	k := newSink()
	s, err := m.Open(Spec{ID: "h1", Dir: home}, Attach{Sink: k, LastSeen: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Open(Spec{ID: "h1", Dir: home, Resume: true}, Attach{Sink: k, LastSeen: -1}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := append([]string(nil), opened...)
	mu.Unlock()
	if len(got) != 1 || got[0] != "h1" {
		t.Fatalf("OnOpen saw %q, want [h1]", got)
	}
	select {
	case <-s.Done():
		t.Fatal("Done closed before Close")
	default:
	}
	if err := s.Close(k, false); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed after Close")
	}
}
