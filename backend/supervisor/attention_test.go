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

// Attention ends with the prompt: answered (the screen leaves the prompt,
// then stands still: the verdict changes only after the debounce, with no
// output to read it again), or seen by a user while it still waits.
func TestAttentionEnds(t *testing.T) {
	c := needsInputCase(t)
	for _, how := range []string{"answered", "seen"} {
		cls, err := classify.New("claude", 0, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		g := newGate(t)
		s := startSession(t, Config{
			Argv: []string{"sh", "-c", g.Wait() + "\n" + strings.TrimSuffix(c.script(), "exec sleep 30\n") +
				"read x; printf '\\033[2J\\033[Hdone\\r\\n'; exec sleep 30"},
			Cols: 120, Rows: classifytest.Rows, Classifier: cls,
		})
		g.Open(t)
		waitFor(t, "attention", 10*time.Second, func() bool { return s.Attention() })
		if how == "seen" {
			s.Seen()
			if s.Attention() || !s.NeedsInput() {
				t.Fatalf("seen: Attention %v, NeedsInput %v", s.Attention(), s.NeedsInput())
			}
			continue
		}
		s.Write([]byte("\r"))
		waitFor(t, "the prompt answered", 10*time.Second, func() bool { return !s.NeedsInput() })
		waitFor(t, "no attention after the prompt went", 10*time.Second, func() bool { return !s.Attention() })
	}
}
