package supervisor

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/classify/classifytest"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// The classifier corpus (backend/classify/testdata/<profile>/*.txt) replayed
// as pty recordings: a fake agent draws each case's screens into a real pty
// at each of classifytest.Widths, coloured (title, clear, rows with SGR; 100
// ms apart), the session's emulator turns the bytes into screens and the
// profile's classifier reads them. This checks the whole path the dashboard
// relies on, not only the rules. (The classify tests replay every width and
// style in-process; here the colours alternate between widths.)

// ptyCase is a corpus case replayed through a pty at one width and style.
type ptyCase struct {
	classifytest.Case
	cols  int
	style classifytest.Style
}

func loadPtyCorpus(t *testing.T) []ptyCase {
	t.Helper()
	cs, err := classifytest.Load("../classify/testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []ptyCase
	for _, c := range cs {
		for i, w := range classifytest.Widths {
			st := classifytest.TrueColour
			if i%2 == 1 {
				st = classifytest.Colour256
			}
			out = append(out, ptyCase{c, w, st})
		}
	}
	return out
}

// script is the fake agent: it draws the frames, then sleeps.
func (c ptyCase) script() string {
	var sb strings.Builder
	for i := range c.Frames {
		if i > 0 {
			sb.WriteString("sleep 0.1\n")
		}
		out := string(c.Draw(i, c.cols, c.style))
		fmt.Fprintf(&sb, "printf '%%s' '%s'\n", strings.ReplaceAll(out, "'", `'\''`))
	}
	sb.WriteString("exec sleep 30\n")
	return sb.String()
}

func TestPtyCorpus(t *testing.T) {
	cases := loadPtyCorpus(t)
	type key struct{ profile, state string }
	total, right := map[key]int{}, map[key]int{}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/%d", c.Profile, c.Name, c.cols), func(t *testing.T) {
			t.Parallel()
			// One run: the state the classifier gives the last frame.
			run := func() (got, screen string) {
				cls, err := classify.New(c.Profile, 0, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				var seen atomic.Uint64 // the Seq the classifier last saw (OnScreen runs after it)
				s := startSession(t, Config{
					Argv: []string{"sh", "-c", c.script()},
					Cols: uint16(c.cols), Rows: classifytest.Rows, Classifier: cls,
					OnScreen: func(seq uint64) { seen.Store(seq) },
				})
				// The last frame as the emulator shows it, drawn in-process.
				shown := c.Replay(c.cols, c.style)
				last := shown[len(shown)-1]
				want := strings.TrimRight(strings.Join(last.Lines, "\n"), "\n")
				// Bounded generously: once, in a full -race CI run, two cases
				// running side by side waited 10 s here (without saying what
				// they saw; now the failure does).
				for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
					sn := s.Screen()
					if sn.Title == last.Title && sn.Text() == want && seen.Load() >= sn.Seq {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("timed out after 20s waiting for the classifier to see the last frame: "+
							"title %q (want %q), seen seq %d of %d, screen (want it %v):\n%s",
							sn.Title, last.Title, seen.Load(), sn.Seq, sn.Text() == want, sn.Text())
					}
				}
				// The classifier saw the last screen no later than now: ask for
				// the state once the debounce has settled, at a fixed offset from
				// here, so a slow machine cannot age a Streaming verdict.
				at := time.Now().Add(350 * time.Millisecond)
				s.mu.Lock()
				st, _ := s.cls.State(at)
				needs := s.cls.NeedsInput(at)
				s.mu.Unlock()
				got = st.String()
				if needs {
					if st != session.Idle {
						t.Errorf("NeedsInput with state %v, want Idle", st)
					}
					got = "NeedsInput"
				}
				return got, s.Screen().Text()
			}
			got, screen := run()
			if got != c.Expect {
				// Under load the screen can be observed mid-frame (a
				// frame's printf split across reads): text above the
				// status line then reads as growing, Streaming for the
				// profile's StreamHold. A case is run once more; a rule
				// that is wrong fails both runs.
				t.Logf("state %s, want %s; running the case again", got, c.Expect)
				got, screen = run()
			}
			if got != c.Expect {
				t.Errorf("state %s, want %s; screen:\n%s", got, c.Expect, screen)
			}
			t.Cleanup(func() {
				corpusMu.Lock()
				defer corpusMu.Unlock()
				total[key{c.Profile, c.Expect}]++
				if got == c.Expect {
					right[key{c.Profile, c.Expect}]++
				}
			})
		})
	}
	t.Cleanup(func() {
		corpusMu.Lock()
		defer corpusMu.Unlock()
		keys := make([]key, 0, len(total))
		for k := range total {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return keys[i].profile+keys[i].state < keys[j].profile+keys[j].state
		})
		var tab strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&tab, "%-7s %-10s %3d/%3d\n", k.profile, k.state, right[k], total[k])
		}
		t.Logf("accuracy over pty recordings (each case at %v columns):\n%s", classifytest.Widths, tab.String())
	})
}

var corpusMu sync.Mutex // guards TestPtyCorpus's tallies
