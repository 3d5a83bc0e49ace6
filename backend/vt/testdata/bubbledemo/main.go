// bubbledemo is a small Bubble Tea v2 program recorded for the emulator's
// tmux oracle (see ../../record_test.go): alt screen, a styled list with a
// moving cursor, a progress bar and a status line, redrawn by Bubble Tea's
// own renderer (cursor motion, erase, SGR with 256 and true colours).
package main

import (
	"fmt"
	"os"
	"strings"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"
)

type model struct {
	items  []string
	cursor int
	done   int
}

func (m model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "q", "ctrl+c":
			return m, tea.Quit
		case "j", "down":
			m.cursor = min(m.cursor+1, len(m.items)-1)
		case "k", "up":
			m.cursor = max(m.cursor-1, 0)
		case "space":
			m.done = min(m.done+1, len(m.items))
		}
	}
	return m, nil
}

func (m model) View() tea.View {
	var b strings.Builder
	b.WriteString("\x1b[1;38;5;212mHeimdall demo\x1b[0m  \x1b[3mpick an agent\x1b[0m\n\n")
	for i, it := range m.items {
		if i == m.cursor {
			fmt.Fprintf(&b, "\x1b[38;2;255;135;0m> \x1b[7m %-12s \x1b[0m 日本\n", it)
		} else {
			fmt.Fprintf(&b, "    %-12s\n", it)
		}
	}
	bar := strings.Repeat("█", m.done*4) + strings.Repeat("░", (len(m.items)-m.done)*4)
	fmt.Fprintf(&b, "\n\x1b[32m%s\x1b[0m %d/%d\n\n\x1b[2mj/k move · space mark · q quit\x1b[0m", bar, m.done, len(m.items))
	v := tea.NewView(b.String())
	v.AltScreen = true
	return v
}

func main() {
	m := model{items: []string{"claude", "codex", "aider", "gemini", "shell"}}
	if _, err := tea.NewProgram(m).Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
