package sessions

import (
	"fmt"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// benchInfos is n sessions cycling through the fixture's kinds (every
// state, needs input, dead), with distinct names.
func benchInfos(n int) []session.Info {
	base := fixture()
	infos := make([]session.Info, n)
	for i := range infos {
		in := base[i%len(base)]
		in.ID = fmt.Sprintf("%s-%d", in.ID, i)
		infos[i] = in
	}
	return infos
}

// BenchmarkList is one frame of a full list: 30 sessions, 120 cells wide
// (every column), dark theme, the selection in the middle.
func BenchmarkList(b *testing.B) {
	infos := benchInfos(30)
	b.ReportAllocs()
	for b.Loop() {
		View(dark, infos, 15, 0, now, 120, 31)
	}
}
