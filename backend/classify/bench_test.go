package classify

import (
	"fmt"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify/classifytest"
)

// floodScreen is 24×80 of log lines: no prompt, every row 79 printable
// characters — the worst case for rules that look at whole regions.
func floodScreen() Screen {
	s := Screen{Title: "⠂ build"}
	for i := 0; i < 24; i++ {
		l := fmt.Sprintf("2026-01-02T15:04:05.%06dZ INFO server: handled request id=%d path=/api/v1/items", i*1371, i)
		for len(l) < 79 {
			l += "x"
		}
		s.Lines = append(s.Lines, l[:79])
	}
	return s
}

// busyScreen is a typical busy Claude screen from the corpus, as the
// emulator shows it at 80 columns.
func busyScreen(b *testing.B) Screen {
	cs, err := classifytest.Load("testdata")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range cs {
		if c.Profile == "claude" && c.Name == "thinking-long-todo-list" {
			sh := c.Replay(80, classifytest.Plain)
			last := sh[len(sh)-1]
			return Screen{Title: last.Title, Lines: last.Lines}
		}
	}
	b.Fatal("no corpus case claude/thinking-long-todo-list")
	return Screen{}
}

// BenchmarkClassifyClaude is the cost of one Screen call of the claude
// classifier (the supervisor makes one at most every 10 ms while output
// flows, under the session's lock).
func BenchmarkClassifyClaude(b *testing.B) {
	for _, bc := range []struct {
		name string
		s    func(*testing.B) Screen
	}{
		{"flood", func(*testing.B) Screen { return floodScreen() }},
		{"busy", busyScreen},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := bc.s(b)
			t0 := time.Unix(1_000, 0)
			c := NewRules(Claude, t0)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Screen(t0.Add(time.Duration(i)*time.Millisecond), s)
			}
		})
	}
}
