package supervisor

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/classify/classifytest"
)

// needsInputCase is a corpus case whose last screen blocks on the user.
func needsInputCase(t *testing.T) ptyCase {
	t.Helper()
	for _, c := range loadPtyCorpus(t) {
		if c.Profile == "claude" && c.Expect == "NeedsInput" && c.cols == 120 && strings.HasPrefix(c.Name, "needs-bash") {
			return c
		}
	}
	t.Fatal("no claude needs-input case at 120 columns in the corpus")
	return ptyCase{}
}

// A session that starts needing input while nobody watches it asks for
// attention (once); one that is watched then does not.
func TestAttentionWhenUnwatched(t *testing.T) {
	c := needsInputCase(t)
	for _, watched := range []bool{false, true} {
		cls, err := classify.New("claude", 0, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var calls atomic.Int32
		g := newGate(t)
		s := startSession(t, Config{
			Argv: []string{"sh", "-c", g.Wait() + "\n" + c.script()},
			Cols: 120, Rows: classifytest.Rows, Classifier: cls,
			OnAttention: func() { calls.Add(1) },
		})
		if watched {
			_, remove := s.Listen(func([]byte) {})
			defer remove()
		}
		g.Open(t)
		waitFor(t, "the prompt to be classified", 10*time.Second, func() bool { return s.NeedsInput() })
		if watched {
			// The re-check is not armed while watched: give the
			// verdict the time it would have taken.
			time.Sleep(attentionRecheck + 100*time.Millisecond)
			if s.Attention() || calls.Load() != 0 {
				t.Fatalf("watched session: Attention %v, OnAttention calls %d", s.Attention(), calls.Load())
			}
			continue
		}
		waitFor(t, "attention", 5*time.Second, func() bool { return s.Attention() })
		if n := calls.Load(); n != 1 {
			t.Fatalf("OnAttention called %d times, want 1", n)
		}
		if !s.screenInfo(false).Attention {
			t.Fatal("SCREEN does not report the attention")
		}
	}
}
