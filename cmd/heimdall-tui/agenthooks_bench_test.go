package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/inbox"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// BenchmarkHookStateDelay: how soon a Claude session's supervisor reports
// "needs input" for a permission prompt, with the agent's hooks (from the
// PermissionRequest hook's firing) and from its screen alone (--no-hooks:
// from the prompt's drawing), side by side. The fake claude marks both
// instants (FAKE_CLAUDE_TIMES); the figure is the time from the mark to
// the STATE that says needs_input reaching a WATCH_STATE client
// (p50_ms, p99_ms), and to a dashboard's fleet following the session
// showing it in the session's Info (fleet_p50_ms, fleet_p99_ms: what the
// dashboard draws at its next frame: the list's badge), and to the inbox
// listing the item with its reason (inbox_p50_ms, inbox_p99_ms: the hook's
// command with hooks; any item from the screen alone):
//
//	go test -run '^$' -bench HookStateDelay -benchtime 1x ./cmd/heimdall-tui/
func BenchmarkHookStateDelay(b *testing.B) {
	if raceEnabled {
		b.Skip("a -race binary says nothing about delays")
	}
	rounds := 20
	for _, c := range []struct {
		name, mark, reason string
		flags              []string
	}{
		{"hooks", "hook PermissionRequest", "Bash: rm -rf build", nil},
		{"screen-only", "dialog", "", []string{"--no-hooks"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir, err := os.MkdirTemp("", "hmb")
			if err != nil {
				b.Fatal(err)
			}
			defer os.RemoveAll(dir)
			times := filepath.Join(dir, "times")
			b.Setenv("FAKE_CLAUDE_TIMES", times)
			b.Setenv("FAKE_CLAUDE_STEP", "50")
			b.Setenv("HOME", dir)
			args := append([]string{"--socket-dir", dir, "run", "--foreground", "--id", "c", "--agent", "claude", "--classifier", "claude"}, c.flags...)
			args = append(args, "--", fakeClaudePath)
			p := startProcB(b, binPath, args...)
			defer p.stop()
			sock := filepath.Join(dir, "c.sock")
			var w, in *frame.Client
			for i := 0; i < 200 && w == nil; i++ {
				if w, err = frame.Dial(sock, time.Second); err != nil {
					time.Sleep(25 * time.Millisecond)
				}
			}
			if w == nil {
				b.Fatalf("no session on %s", sock)
			}
			defer w.Close()
			w.Send(frame.WatchState, nil)
			if in, err = frame.Dial(sock, time.Second); err != nil {
				b.Fatal(err)
			}
			defer in.Close()
			f, err := fleet.New(fleet.Options{Dir: dir, Config: config.Default()})
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			fleetSaw, inboxSaw := make(chan time.Time, 1), make(chan time.Time, 1)
			go watchFleet(f, "c", c.reason, fleetSaw, inboxSaw)
			var delays, fleetDelays, inboxDelays []time.Duration
			for range max(b.N, rounds) {
				in.Input([]byte("perm\r"))
				got := awaitStateB(b, w, func(si frame.StateInfo) bool { return si.NeedsInput })
				mark := lastMark(b, times, c.mark)
				delays = append(delays, got.Sub(mark))
				select {
				case at := <-fleetSaw:
					fleetDelays = append(fleetDelays, at.Sub(mark))
				case <-time.After(10 * time.Second):
					b.Fatal("the fleet did not show needs input")
				}
				select {
				case at := <-inboxSaw:
					inboxDelays = append(inboxDelays, at.Sub(mark))
				case <-time.After(10 * time.Second):
					b.Fatal("the inbox did not list the item")
				}
				// Refuse, as a person would, not within the settle of the
				// hook (a refusal fires no hook: the screen moving on
				// clears the question only after it).
				time.Sleep(500 * time.Millisecond)
				in.Input([]byte("3"))
				awaitStateB(b, w, func(si frame.StateInfo) bool { return !si.NeedsInput && si.State == "Idle" })
			}
			b.ReportMetric(0, "ns/op")
			for _, m := range []struct {
				prefix string
				ds     []time.Duration
			}{{"", delays}, {"fleet_", fleetDelays}, {"inbox_", inboxDelays}} {
				slices.Sort(m.ds)
				b.ReportMetric(float64(m.ds[len(m.ds)/2])/1e6, m.prefix+"p50_ms")
				b.ReportMetric(float64(m.ds[len(m.ds)*99/100])/1e6, m.prefix+"p99_ms")
			}
		})
	}
}

// benchProc is a process a benchmark started; stop ends it (SIGTERM, as
// a user's, then SIGKILL) and waits.
type benchProc struct{ stop func() }

func startProcB(b *testing.B, path string, args ...string) benchProc {
	cmd := exec.Command(path, args...)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return benchProc{stop: func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}}
}

// awaitStateB reads STATEs until ok holds and returns when it arrived.
func awaitStateB(b *testing.B, c *frame.Client, ok func(frame.StateInfo) bool) time.Time {
	c.Conn().SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		f, err := c.Next()
		if err != nil {
			b.Fatal(err)
		}
		if f.Type != frame.StateEvent {
			continue
		}
		var si frame.StateInfo
		if si.UnmarshalBinary(f.Payload) == nil && ok(si) {
			return time.Now()
		}
	}
}

// lastMark is the time of the last "what UNIXNANO" line of the file.
func lastMark(b *testing.B, path, what string) time.Time {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var at time.Time
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), what+" "); ok {
			if ns, err := strconv.ParseInt(rest, 10, 64); err == nil {
				at = time.Unix(0, ns)
			}
		}
	}
	if at.IsZero() {
		b.Fatalf("no %q mark in %s", what, path)
	}
	return at
}

// watchFleet sends the time each time session id's Info turns to needs
// input in f (from its events, as the dashboard reads them) on saw, and
// each time the inbox comes to list its item (with reason, if not "") on
// inboxSaw.
func watchFleet(f *fleet.Fleet, id, reason string, saw, inboxSaw chan<- time.Time) {
	was, listed := false, false
	for {
		evs, err := f.Next(context.Background())
		if err != nil {
			return
		}
		now := time.Now()
		for _, ev := range evs {
			if ev.ID != id {
				continue
			}
			for _, in := range f.Sessions() {
				if in.ID == id {
					if in.NeedsInput && !was {
						select {
						case saw <- now:
						default:
						}
					}
					was = in.NeedsInput
				}
			}
			row := false
			for _, it := range inbox.Items(f.Sessions()) {
				row = row || it.Session == id && it.Kind == inbox.Input && (reason == "" || it.Reason == reason)
			}
			if row && !listed {
				select {
				case inboxSaw <- now:
				default:
				}
			}
			listed = row
		}
	}
}

// BenchmarkStopFailureUnderLoad: 50 Claude sessions (the fake) each
// firing UserPromptSubmit and, a second later, StopFailure, all at once,
// while every core is kept busy: how many read Error within 2 s of their
// StopFailure hook's firing (within_2s, of sessions), and the delays
// (p50_ms, max_ms). A hook that gives up too soon loses the event, and the
// session reads the screen's idle prompt instead:
//
//	go test -run '^$' -bench StopFailureUnderLoad -benchtime 1x ./cmd/heimdall-tui/
func BenchmarkStopFailureUnderLoad(b *testing.B) {
	if raceEnabled {
		b.Skip("a -race binary says nothing about delays")
	}
	const sessions = 50
	dir, err := os.MkdirTemp("", "hmb")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	b.Setenv("FAKE_CLAUDE_STEP", "1000")
	b.Setenv("HOME", dir)
	type sess struct {
		times     string
		w, in     *frame.Client
		stop      func()
		errorSeen chan time.Time
	}
	ss := make([]*sess, sessions)
	for i := range ss {
		s := &sess{times: filepath.Join(dir, fmt.Sprintf("t%d", i)), errorSeen: make(chan time.Time, 1)}
		id := fmt.Sprintf("c%d", i)
		p := startProcB(b, binPath, "--socket-dir", dir, "run", "--foreground", "--id", id, "--agent", "claude", "--classifier", "claude",
			"--", "env", "FAKE_CLAUDE_TIMES="+s.times, fakeClaudePath)
		s.stop = p.stop
		defer p.stop()
		sock := filepath.Join(dir, id+".sock")
		for range 400 {
			if s.w, err = frame.Dial(sock, time.Second); err == nil {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		if s.w == nil {
			b.Fatalf("no session on %s", sock)
		}
		defer s.w.Close()
		s.w.Send(frame.WatchState, nil)
		if s.in, err = frame.Dial(sock, time.Second); err != nil {
			b.Fatal(err)
		}
		defer s.in.Close()
		ss[i] = s
	}
	// Every core busy, as builds beside the agents keep it: four spinning
	// processes a core.
	var burners []*exec.Cmd
	for range 4 * runtime.NumCPU() {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		burners = append(burners, c)
	}
	defer func() {
		for _, c := range burners {
			c.Process.Kill()
			c.Wait()
		}
	}()
	for _, s := range ss {
		go func() {
			s.w.Conn().SetReadDeadline(time.Now().Add(30 * time.Second))
			for {
				f, err := s.w.Next()
				if err != nil {
					return
				}
				var si frame.StateInfo
				if f.Type == frame.StateEvent && si.UnmarshalBinary(f.Payload) == nil && si.Error != "" {
					s.errorSeen <- time.Now()
					return
				}
			}
		}()
		s.in.Input([]byte("ratelimit\r"))
	}
	var delays []time.Duration
	within := 0
	for i, s := range ss {
		select {
		case at := <-s.errorSeen:
			d := at.Sub(lastMark(b, s.times, "hook StopFailure"))
			delays = append(delays, d)
			if d <= 2*time.Second {
				within++
			}
		case <-time.After(30 * time.Second):
			b.Logf("session %d never read Error", i)
		}
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(within), "within_2s")
	b.ReportMetric(sessions, "sessions")
	if len(delays) > 0 {
		slices.Sort(delays)
		b.ReportMetric(float64(delays[len(delays)/2])/1e6, "p50_ms")
		b.ReportMetric(float64(delays[len(delays)-1])/1e6, "max_ms")
	}
	if within != sessions {
		b.Errorf("%d of %d sessions read Error within 2 s of their StopFailure", within, sessions)
	}
}
