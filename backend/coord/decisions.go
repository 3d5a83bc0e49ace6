package coord

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
)

// DecisionsPath is the append-only decision log.
func (l *Ledger) DecisionsPath() string { return filepath.Join(l.dir, "decisions.md") }

// ConflictsDir holds the conflict PRs raise_conflict_pr writes.
func (l *Ledger) ConflictsDir() string { return filepath.Join(l.dir, "conflicts") }

// appendText appends text to path under its lock (append-only: the file
// is never rewritten).
func appendText(path, text string) error {
	return planning.WithLock(path, func() error {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// Decision is one entry of decisions.md.
type Decision struct {
	HAID  string `json:"haid"`
	At    string `json:"at"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

func (d Decision) render() string {
	return fmt.Sprintf("\n## %s — %s\n- by: %s\n\n%s\n", d.At, oneLine(d.Title), d.HAID, strings.TrimRight(d.Body, "\n"))
}

// oneLine folds newlines so a title stays a heading.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// AppendDecision appends a HAID-attributed, timestamped entry to
// decisions.md.
func (l *Ledger) AppendDecision(h, title, body string) (Decision, error) {
	if _, _, err := ParseHAID(h); err != nil {
		return Decision{}, err
	}
	if strings.TrimSpace(title) == "" {
		return Decision{}, fmt.Errorf("%w: empty title", ErrInvalid)
	}
	d := Decision{HAID: h, At: l.stamp(), Title: oneLine(title), Body: body}
	return d, appendText(l.DecisionsPath(), d.render())
}

// Conflict is a conflict PR: one claim displacing another.
type Conflict struct {
	ID, Title        string
	Surfaces         []string
	DisplacedHAID    string
	OverridingIntent string
	DisplacedIntent  string
}

// RaiseConflict writes conflicts/<YYYY-MM-DD>-<slug(id)>.md for h and
// cross-links it from decisions.md; it returns the PR's path.
func (l *Ledger) RaiseConflict(h string, c Conflict) (string, error) {
	if _, _, err := ParseHAID(h); err != nil {
		return "", err
	}
	switch {
	case strings.TrimSpace(c.ID) == "":
		return "", fmt.Errorf("%w: empty id", ErrInvalid)
	case strings.TrimSpace(c.Title) == "":
		return "", fmt.Errorf("%w: empty title", ErrInvalid)
	case len(c.Surfaces) == 0:
		return "", fmt.Errorf("%w: no surfaces", ErrInvalid)
	}
	now := l.now().UTC()
	name := now.Format("2006-01-02") + "-" + Slugify(c.ID) + ".md"
	path := filepath.Join(l.ConflictsDir(), name)
	or := func(s string) string {
		if strings.TrimSpace(s) == "" {
			return "(not stated)"
		}
		return strings.TrimRight(s, "\n")
	}
	displaced := c.DisplacedHAID
	if displaced == "" {
		displaced = "(unknown)"
	}
	doc := fmt.Sprintf("# Conflict %s: %s\n\n- raised_by: %s\n- raised_at: %s\n- displaced_haid: %s\n- surfaces: %s\n\n## Overriding intent\n\n%s\n\n## Displaced intent\n\n%s\n",
		oneLine(c.ID), oneLine(c.Title), h, l.stamp(), displaced, strings.Join(c.Surfaces, ", "), or(c.OverridingIntent), or(c.DisplacedIntent))
	err := planning.WithLock(path, func() error { return planning.WriteAtomic(path, []byte(doc)) })
	if err != nil {
		return "", err
	}
	d := Decision{HAID: h, At: l.stamp(), Title: "conflict " + oneLine(c.ID) + ": " + oneLine(c.Title),
		Body: fmt.Sprintf("Conflict PR: [conflicts/%s](conflicts/%s) — surfaces %s, displaced %s.", name, name, strings.Join(c.Surfaces, ", "), displaced)}
	if err := appendText(l.DecisionsPath(), d.render()); err != nil {
		return "", err
	}
	return path, nil
}

// CapsuleDoc is a capsule file as read_capsules returns it.
type CapsuleDoc struct {
	ID     string `json:"id"`
	Source string `json:"source"` // "completed" or "capsules"
	Path   string `json:"path"`
	Body   string `json:"body"`
}

// CapsuleDocs reads ledger/completed/*.md and protocol/capsules/*.md of
// the planning root (all of them, or those whose id is id).
func (l *Ledger) CapsuleDocs(id string) ([]CapsuleDoc, error) {
	root := filepath.Dir(l.dir)
	var out []CapsuleDoc
	for _, src := range []struct{ name, dir string }{
		{"completed", filepath.Join(l.dir, "completed")},
		{"capsules", filepath.Join(root, "protocol", "capsules")},
	} {
		paths, err := filepath.Glob(filepath.Join(src.dir, "*.md"))
		if err != nil {
			return nil, err
		}
		sort.Strings(paths)
		for _, p := range paths {
			cid := strings.TrimSuffix(filepath.Base(p), ".md")
			if id != "" && cid != id {
				continue
			}
			b, err := os.ReadFile(p)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out = append(out, CapsuleDoc{ID: cid, Source: src.name, Path: p, Body: string(b)})
		}
	}
	return out, nil
}

// Decisions returns the last n entries of decisions.md (all with n <= 0),
// oldest first, parsed from the headings AppendDecision writes ("## AT —
// TITLE", "- by: HAID", the body). A missing file has none; text that is
// not an entry (a hand-written preamble) is skipped.
func (l *Ledger) Decisions(n int) ([]Decision, error) {
	b, err := os.ReadFile(l.DecisionsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Decision
	var cur *Decision
	for _, line := range strings.Split(string(b), "\n") {
		if head, ok := strings.CutPrefix(line, "## "); ok {
			at, title, _ := strings.Cut(head, " — ")
			out = append(out, Decision{At: at, Title: title})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			continue
		}
		if h, ok := strings.CutPrefix(line, "- by: "); ok && cur.HAID == "" {
			cur.HAID = h
			continue
		}
		cur.Body += line + "\n"
	}
	for i := range out {
		out[i].Body = strings.TrimSpace(out[i].Body)
	}
	if n > 0 && len(out) > n {
		out = out[len(out)-n:]
	}
	return out, nil
}
