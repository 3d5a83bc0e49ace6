// Package frametrace times the dashboard's messages and frames, for
// finding where the time between a keypress and the frame that shows it
// goes (HEIMDALL_FRAMETRACE, read by heimdall-loadcheck's busy scenario).
// It wraps the root model (Update, View) and the terminal output (the
// renderer's writes), so Bubble Tea needs nothing for it. It writes a line
// per message and per write to the terminal, with wall-clock times in
// nanoseconds (comparable with another process's on the same machine):
//
//	msg KIND RECEIVED UPDATED VIEWED GCS
//	draw START WRITTEN INPUT GCS
//
// KIND is "key" for the user's input (a key, a click, a paste), else the
// message's Go type; RECEIVED is when Update was called, UPDATED when it
// returned, VIEWED when the View after it returned; a draw is one write of
// the renderer to the terminal, INPUT 1 when input was handled since the
// last one. GCS is the number of garbage collections finished so far.
package frametrace

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"time"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"
)

// Tracer writes the lines of one program's model and output.
type Tracer struct {
	mu      sync.Mutex
	w       io.Writer
	gc      debug.GCStats
	pending *msgTimes // an Update whose View has not come yet
	input   bool      // input handled since the last draw
}

type msgTimes struct {
	kind              string
	received, updated int64
}

// New writes to w.
func New(w io.Writer) *Tracer { return &Tracer{w: w} }

func now() int64 { return time.Now().UnixNano() }

// Model returns m timed: the program must run the model Model returns.
func (t *Tracer) Model(m tea.Model) tea.Model { return model{m, t} }

type model struct {
	m tea.Model
	t *Tracer
}

func (m model) Init() tea.Cmd { return m.m.Init() }

// Unwrap is the model timed, as the program left it.
func (m model) Unwrap() tea.Model { return m.m }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	received := now()
	next, cmd := m.m.Update(msg)
	updated := now()
	kind := fmt.Sprintf("%T", msg)
	if isInput(msg) {
		kind = "key"
	}
	m.t.mu.Lock()
	m.t.pending = &msgTimes{kind, received, updated}
	m.t.input = m.t.input || kind == "key"
	m.t.mu.Unlock()
	return model{next, m.t}, cmd
}

func (m model) View() tea.View {
	v := m.m.View()
	viewed := now()
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	if p := m.t.pending; p != nil {
		m.t.pending = nil
		m.t.line("msg %s %d %d %d", p.kind, p.received, p.updated, viewed)
	}
	return v
}

// isInput reports whether msg is the user's input, whose frame the
// renderer draws at once (motion of the mouse is not).
func isInput(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.KeyReleaseMsg, tea.PasteMsg, tea.MouseClickMsg, tea.MouseReleaseMsg, tea.MouseWheelMsg:
		return true
	}
	return false
}

// Output returns f timed: the program must write to what Output returns,
// which is still f's terminal (its descriptor, reads and close are f's).
func (t *Tracer) Output(f *os.File) io.Writer { return output{f, t} }

type output struct {
	*os.File
	t *Tracer
}

func (o output) Write(p []byte) (int, error) {
	start := now()
	n, err := o.File.Write(p)
	written := now()
	o.t.mu.Lock()
	defer o.t.mu.Unlock()
	in := 0
	if o.t.input {
		in = 1
	}
	o.t.input = false
	o.t.line("draw %d %d %d", start, written, in)
	return n, err
}

// line writes one line with the GC count; t.mu is held.
func (t *Tracer) line(format string, args ...any) {
	debug.ReadGCStats(&t.gc)
	fmt.Fprintf(t.w, format+" %d\n", append(args, t.gc.NumGC)...)
}
