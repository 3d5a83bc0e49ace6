package app

import (
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// transcriptBuf is what the dashboard has of a session's transcript.
type transcriptBuf struct {
	entries []session.Entry // the latest, at most maxEntries, by Seq
	// stale: entries were added since the last pull; pulling: a pull is
	// under way (in a Cmd).
	stale, pulling bool
}

// transcriptMsg carries the entries a Cmd pulled.
type transcriptMsg struct {
	id      string
	entries []session.Entry
}

// showsTranscript reports whether the pane of in shows its transcript: it
// keeps one and has no screen.
func showsTranscript(in session.Info) bool {
	return in.Caps.Has(session.CapTranscript) && !in.Caps.Has(session.CapScreen)
}

func (m *Model) showsTranscript(id string) bool {
	in, ok := m.list.Find(id)
	return ok && showsTranscript(in)
}

// lastSeq is the Seq of the last entry the dashboard has of id (0: none).
func (m *Model) lastSeq(id string) uint64 {
	if t := m.transcripts[id]; t != nil && len(t.entries) > 0 {
		return t.entries[len(t.entries)-1].Seq
	}
	return 0
}

// pullTranscript returns the Cmd that pulls id's entries after the last
// it has, unless they are current (or being pulled) and not forced.
func (m *Model) pullTranscript(id string, force bool) tea.Cmd {
	t := m.transcripts[id]
	if t == nil {
		t = &transcriptBuf{stale: true}
		m.transcripts[id] = t
	}
	if t.pulling || !(t.stale || force) {
		return nil
	}
	t.pulling, t.stale = true, false
	b, after := m.opt.Backend, m.lastSeq(id)
	return m.run(func() tea.Msg { return transcriptMsg{id: id, entries: b.Transcript(id, after)} })
}

// onTranscript adds pulled entries; those of a session gone meanwhile are
// dropped.
func (m *Model) onTranscript(msg transcriptMsg) {
	t := m.transcripts[msg.id]
	if t == nil || !m.showsTranscript(msg.id) {
		delete(m.transcripts, msg.id)
		return
	}
	t.pulling = false
	m.addEntries(msg.id, msg.entries)
}

// addEntries appends the entries newer than the last one kept (a pull and
// an event batch may bring the same ones), keeping at most maxEntries.
func (m *Model) addEntries(id string, es []session.Entry) {
	t := m.transcripts[id]
	if t == nil {
		if !m.showsTranscript(id) {
			return
		}
		t = &transcriptBuf{}
		m.transcripts[id] = t
	}
	last := m.lastSeq(id)
	for _, e := range es {
		if e.Seq > last {
			t.entries = append(t.entries, e)
			last = e.Seq
		}
	}
	if n := len(t.entries); n > maxEntries {
		t.entries = append(t.entries[:0:0], t.entries[n-maxEntries:]...)
	}
}
