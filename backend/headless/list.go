package headless

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Summary is one session of a project directory, as List gives it.
type Summary struct {
	ID       string
	Attached bool // open here with an owner
	Modified time.Time
	Size     int64
	Preview  string // the first user message's text, shortened
}

// previewRunes bounds a Summary's Preview.
const previewRunes = 120

// List lists the sessions of project directory cwd: Claude Code's
// transcripts (HOME/.claude/projects/<cwd, "/" → "-">/*.jsonl) merged with
// this Manager's sessions in cwd, newest first.
func (m *Manager) List(cwd string) ([]Summary, error) {
	dir := m.projectDir(filepath.Clean(cwd))
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	byID := map[string]int{}
	var out []Summary
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		id := strings.TrimSuffix(name, ".jsonl")
		byID[id] = len(out)
		out = append(out, Summary{ID: id, Modified: fi.ModTime(), Size: fi.Size(), Preview: preview(filepath.Join(dir, name))})
	}
	for _, s := range m.Sessions() {
		inf := s.Info()
		d := inf.Dir
		if d == "" {
			d, _ = os.Getwd()
		}
		if filepath.Clean(d) != filepath.Clean(cwd) {
			continue
		}
		if i, ok := byID[inf.ID]; ok {
			out[i].Attached = inf.Attached
			continue
		}
		out = append(out, Summary{ID: inf.ID, Attached: inf.Attached, Modified: inf.LastActive})
	}
	slices.SortStableFunc(out, func(a, b Summary) int { return b.Modified.Compare(a.Modified) })
	return out, nil
}

// preview is the text of the first user message of a transcript (its
// first 64 KiB), shortened.
func preview(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<10)
	for sc.Scan() {
		var l struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Type != "user" {
			continue
		}
		var s string
		if json.Unmarshal(l.Message.Content, &s) != nil {
			var blocks []struct{ Type, Text string }
			json.Unmarshal(l.Message.Content, &blocks)
			for _, b := range blocks {
				if b.Type == "text" {
					s = b.Text
					break
				}
			}
		}
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			if r := []rune(s); len(r) > previewRunes {
				s = string(r[:previewRunes-1]) + "…"
			}
			return s
		}
	}
	return ""
}
