package app

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// frameModel counts the updates it gets and shows the last key typed.
type frameModel struct {
	updates int
	key     string
}

type bumpMsg struct{}

func (m frameModel) Init() tea.Cmd { return nil }

func (m frameModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case bumpMsg:
		m.updates++
	case tea.KeyPressMsg:
		m.key = msg.String()
	}
	return m, nil
}

func (m frameModel) View() tea.View {
	return tea.NewView("updates=" + strconv.Itoa(m.updates) + " key=" + m.key + ".")
}

// terminal is the program's terminal: an emulator (the renderer writes
// changes, not whole screens).
type terminal struct{ *vt.Emulator }

func (term terminal) has(sub string) bool {
	return strings.Contains(term.Snapshot().Text(), sub)
}

// waitOutput waits (bounded) until the screen shows sub and returns how
// long it took.
func waitOutput(t *testing.T, out terminal, sub string) time.Duration {
	t.Helper()
	begin := time.Now()
	for !out.has(sub) {
		if time.Since(begin) > 10*time.Second {
			t.Fatalf("the program never drew %q", sub)
		}
		time.Sleep(time.Millisecond)
	}
	return time.Since(begin)
}

// The patched renderer (tui/bubbletea) draws the frame that
// shows a key at once, even right after another frame, when other updates
// wait for the end of the frame interval: at 1 FPS, a key typed after an
// update that is held back for the interval is on the terminal long before
// that second is over, and the update is drawn with it.
func TestKeyFrameSkipsTheFrameInterval(t *testing.T) {
	in, typeIn := io.Pipe()
	defer typeIn.Close()
	out := terminal{vt.New(60, 5, vt.Options{})}
	p := tea.NewProgram(frameModel{}, tea.WithInput(in), tea.WithOutput(out),
		tea.WithWindowSize(60, 5), tea.WithFPS(1), tea.WithoutSignalHandler())
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	defer func() {
		p.Quit()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()

	waitOutput(t, out, "updates=0 key=.") // the first frame, drawn at once
	// Within the interval of that frame: held back until it ends.
	p.Send(bumpMsg{})
	if _, err := typeIn.Write([]byte("k")); err != nil {
		t.Fatal(err)
	}
	took := waitOutput(t, out, "key=k.")
	if took > 500*time.Millisecond {
		t.Fatalf("the key's frame took %v: it waited for the 1 s frame interval", took)
	}
	if !out.has("updates=1 key=k.") {
		t.Error("the key's frame does not show the update before it")
	}
}
