package frametrace

import (
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"
)

// keyModel shows the last key typed.
type keyModel struct{ key string }

func (m keyModel) Init() tea.Cmd { return nil }

func (m keyModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		m.key = k.String()
	}
	return m, nil
}

func (m keyModel) View() tea.View { return tea.NewView("key=" + m.key + ".") }

// screen is the program's terminal (behind a pipe): an emulator, as the
// renderer writes changes, not whole screens.
type screen struct {
	mu  sync.Mutex
	emu *vt.Emulator
}

func (s *screen) has(sub string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Contains(s.emu.Snapshot().Text(), sub)
}

func (s *screen) wait(t *testing.T, sub string) {
	t.Helper()
	for begin := time.Now(); !s.has(sub); time.Sleep(time.Millisecond) {
		if time.Since(begin) > 10*time.Second {
			t.Fatalf("the program never wrote %q", sub)
		}
	}
}

// A key is timed from Update to the write of the frame that shows it: a
// "msg key" line with received ≤ updated ≤ viewed, then a "draw" line
// marked as showing input, written after that; the program's final model
// is the one timed, unwrapped.
func TestTimesKeyAndItsFrame(t *testing.T) {
	in, typeIn := io.Pipe()
	defer typeIn.Close()
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	out := screen{emu: vt.New(60, 5, vt.Options{})}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := rd.Read(b)
			out.mu.Lock()
			out.emu.Write(b[:n])
			out.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	var trace strings.Builder // written by the program's loops, read after Run
	tr := New(&trace)
	p := tea.NewProgram(tr.Model(keyModel{}), tea.WithInput(in), tea.WithOutput(tr.Output(wr)),
		tea.WithWindowSize(60, 5), tea.WithoutSignalHandler())
	done := make(chan error, 1)
	var final tea.Model
	go func() {
		var err error
		final, err = p.Run()
		done <- err
	}()
	out.wait(t, "key=.")
	if _, err := typeIn.Write([]byte("k")); err != nil {
		t.Fatal(err)
	}
	out.wait(t, "key=k.")
	p.Quit()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	wr.Close()
	if m, ok := final.(interface{ Unwrap() tea.Model }); !ok || m.Unwrap().(keyModel).key != "k" {
		t.Errorf("final model %#v", final)
	}
	var viewed int64
	for _, line := range strings.Split(trace.String(), "\n") {
		f := strings.Fields(line)
		n := func(i int) int64 {
			v, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			return v
		}
		switch {
		case len(f) == 6 && f[0] == "msg" && f[1] == "key" && viewed == 0:
			if !(n(2) <= n(3) && n(3) <= n(4)) {
				t.Fatalf("key's times out of order: %q", line)
			}
			viewed = n(4)
		case len(f) == 5 && f[0] == "draw" && viewed != 0 && f[3] == "1":
			if n(2) < viewed || n(1) > n(2) {
				t.Fatalf("key's frame %q: written before the key's view (%d) or before it started", line, viewed)
			}
			return
		}
	}
	t.Fatalf("no key and no input frame after it in the trace:\n%s", trace.String())
}
