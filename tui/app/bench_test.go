package app

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
)

// benchStub is the stub with n busy sessions.
func benchStub(n int) *stub {
	b := newStub()
	b.infos = nil
	for i := range n {
		b.infos = append(b.infos, session.Info{ID: fmt.Sprintf("busy-%d", i+1), Agent: "busy", Owned: true, Alive: true,
			State: session.Active, Started: t0.Add(time.Duration(i) * time.Second), StateSince: t0, LastOutput: t0, Cols: 80, Rows: 24})
	}
	return b
}

// BenchmarkRender is one frame of the dashboard at 120×35: the split view,
// and the grid with every pane changed (the worst case for a frame); the
// flood cases with every screen full of base64, as in heimdall-loadcheck's
// busy scenario.
func BenchmarkRender(b *testing.B) {
	for _, mode := range []string{"split", "grid", "split-flood", "grid-flood"} {
		b.Run(mode, func(b *testing.B) {
			st := benchStub(16)
			st.flood = strings.HasSuffix(mode, "-flood")
			m := New(Options{Backend: st, Theme: themes.Dark(), Now: func() time.Time { return t0 }})
			defer m.cancel()
			m.w, m.h = 120, 35
			if strings.HasPrefix(mode, "grid") {
				m.mode = 1
			}
			m.reload()
			m.pullVisible(true)
			b.ResetTimer()
			for range b.N {
				_ = m.Render()
			}
		})
	}
}
