package planning

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// MaxCapsuleLines is the cap on a capsule file's length, front matter
// included. A capsule that would be longer is rejected: the cap forces real
// compaction.
const MaxCapsuleLines = 10

// ErrTooLong is the error of a capsule over MaxCapsuleLines (it also wraps
// ErrInvalid); the CLI exits 2 for it, as the bash implementation does.
var ErrTooLong = errors.New("capsule over the line cap")

// Capsule is a ≤10-line summary of completed work, stored as
// protocol/capsules/<id>.md:
//
//	---
//	id: w2
//	depends: w1
//	ts: 2026-06-11T12:07:27Z
//	---
//	WHAT: added book diff
//	WHERE: F13
//
// Only the WHAT/WHERE/DECISION/GOTCHA lines that were given are written.
type Capsule struct {
	ID                            string
	Depends                       []string
	TS                            string
	What, Where, Decision, Gotcha string
	// Text is the file's content as stored (for a capsule read from disk).
	Text string
}

// capsuleID is what a capsule id may look like: it is a file name.
// Compiled on first use, not before main.
var capsuleID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`) })

func checkCapsuleID(id string) error {
	if !capsuleID().MatchString(id) {
		return invalidf("capsule id %q (want letters, digits, '.', '_', '-')", id)
	}
	return nil
}

// Capsules is the capsule store (protocol/capsules/).
type Capsules struct{ s *Store }

// Capsules returns the Store's capsules.
func (s *Store) Capsules() Capsules { return Capsules{s} }

func (c Capsules) path(id string) string { return filepath.Join(c.s.CapsuleDir(), id+".md") }

// Render returns a capsule's file content.
func (cp Capsule) Render() string {
	var b strings.Builder
	b.WriteString("---\nid: " + cp.ID + "\ndepends: " + strings.Join(cp.Depends, ",") + "\nts: " + cp.TS + "\n---\n")
	for _, f := range []struct{ k, v string }{{"WHAT", cp.What}, {"WHERE", cp.Where}, {"DECISION", cp.Decision}, {"GOTCHA", cp.Gotcha}} {
		if f.v != "" {
			b.WriteString(f.k + ": " + f.v + "\n")
		}
	}
	return b.String()
}

// Write stores cp (TS defaults to now). It is ErrInvalid if the id is bad,
// no WHAT is given, the file would exceed MaxCapsuleLines, or a dependency
// would close a cycle; ErrNotFound if a dependency does not exist.
func (c Capsules) Write(cp Capsule) error {
	if err := checkCapsuleID(cp.ID); err != nil {
		return err
	}
	if cp.What == "" {
		return invalidf("capsule %s has no WHAT", cp.ID)
	}
	var deps []string
	seen := map[string]bool{}
	for _, d := range cp.Depends {
		d = strings.TrimSpace(d)
		if d == "" || seen[d] {
			continue
		}
		if err := checkCapsuleID(d); err != nil {
			return err
		}
		if d == cp.ID {
			return invalidf("capsule %s depends on itself", cp.ID)
		}
		seen[d] = true
		deps = append(deps, d)
	}
	cp.Depends = deps
	if cp.TS == "" {
		cp.TS = c.s.timestamp()
	}
	text := cp.Render()
	if n := strings.Count(text, "\n"); n > MaxCapsuleLines {
		return kindErr([]error{ErrInvalid, ErrTooLong}, "capsule %s would be %d lines; the cap is %d — compact it", cp.ID, n, MaxCapsuleLines)
	}
	path := c.path(cp.ID)
	err := withLock(filepath.Join(c.s.CapsuleDir(), "capsules"), func() error {
		// Dependencies must exist, and must not reach back to cp.ID.
		for _, d := range deps {
			order, err := c.closure([]string{d})
			if err != nil {
				return err
			}
			for _, x := range order {
				if x.ID == cp.ID {
					return invalidf("capsule %s depends on %s, which depends on %s: a cycle", cp.ID, d, cp.ID)
				}
			}
		}
		return writeAtomic(path, []byte(text))
	})
	if err != nil {
		return err
	}
	return c.s.Log("capsule", "write", cp.ID+" depends="+strings.Join(deps, ","))
}

// Read loads one capsule; a missing one is ErrNotFound.
func (c Capsules) Read(id string) (Capsule, error) {
	if err := checkCapsuleID(id); err != nil {
		return Capsule{}, err
	}
	path := c.path(id)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Capsule{}, fmt.Errorf("capsule %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Capsule{}, fmt.Errorf("read %s: %w", path, err)
	}
	return parseCapsule(path, id, b)
}

func parseCapsule(path, id string, b []byte) (Capsule, error) {
	cp := Capsule{ID: id, Text: string(b)}
	corrupt := func(line int, format string, args ...any) error { return corruptf(path, line, format, args...) }
	sc := bufio.NewScanner(bytes.NewReader(b))
	state := 0 // 0 before front matter, 1 in it, 2 body
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch state {
		case 0:
			if line != "---" {
				return Capsule{}, corrupt(n, "want front matter (---)")
			}
			state = 1
		case 1:
			if line == "---" {
				state = 2
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				return Capsule{}, corrupt(n, "front matter line without key")
			}
			v = strings.TrimSpace(v)
			switch k {
			case "id":
				if v != id {
					return Capsule{}, corrupt(n, "id %q does not match the file name", v)
				}
			case "depends":
				cp.Depends = SplitList(v)
			case "ts":
				cp.TS = v
			}
		case 2:
			k, v, _ := strings.Cut(line, ": ")
			switch k {
			case "WHAT":
				cp.What = v
			case "WHERE":
				cp.Where = v
			case "DECISION":
				cp.Decision = v
			case "GOTCHA":
				cp.Gotcha = v
			}
		}
	}
	if state != 2 {
		return Capsule{}, corrupt(0, "unterminated front matter")
	}
	return cp, nil
}

// List returns the ids of all capsules, sorted.
func (c Capsules) List() ([]string, error) {
	entries, err := os.ReadDir(c.s.CapsuleDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list capsules: %w", err)
	}
	var ids []string
	for _, e := range entries {
		name := e.Name()
		if id, ok := strings.CutSuffix(name, ".md"); ok && !e.IsDir() && capsuleID().MatchString(id) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// Closure returns the transitive depends closure of ids: every capsule
// once, dependencies before dependents (depth-first, in the order the ids
// and their depends lines name them), nothing else. A missing capsule is
// ErrNotFound; a cycle is ErrInvalid naming the cycle.
func (c Capsules) Closure(ids ...string) ([]Capsule, error) {
	return c.closure(ids)
}

func (c Capsules) closure(ids []string) ([]Capsule, error) {
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var order []Capsule
	var stack []string
	var visit func(id, from string) error
	visit = func(id, from string) error {
		switch state[id] {
		case done:
			return nil
		case visiting:
			i := len(stack) - 1
			for i > 0 && stack[i] != id {
				i--
			}
			cycle := append(append([]string(nil), stack[i:]...), id)
			return invalidf("capsule dependency cycle %s", strings.Join(cycle, " -> "))
		}
		cp, err := c.Read(id)
		if err != nil {
			if from != "" && errors.Is(err, ErrNotFound) {
				return fmt.Errorf("capsule %s depends on %q: %w", from, id, ErrNotFound)
			}
			return err
		}
		state[id] = visiting
		stack = append(stack, id)
		for _, d := range cp.Depends {
			if err := visit(d, id); err != nil {
				return err
			}
		}
		stack = stack[:len(stack)-1]
		state[id] = done
		order = append(order, cp)
		return nil
	}
	for _, id := range ids {
		if err := visit(id, ""); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// Hydrate returns the texts of the closure of ids, concatenated in order:
// what a brief carries instead of re-explained prior work.
func (c Capsules) Hydrate(ids ...string) (string, error) {
	order, err := c.closure(ids)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, cp := range order {
		b.WriteString(cp.Text)
		if !strings.HasSuffix(cp.Text, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String(), nil
}
