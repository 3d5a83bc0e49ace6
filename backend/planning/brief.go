package planning

import (
	"fmt"
	"strings"
)

// BriefSpec is what a spawned agent's brief is built from.
type BriefSpec struct {
	Task       string   // task id, e.g. "3.2"
	Spec       string   // the task spec, one or a few lines
	Symbols    []string // symbol ids to resolve into the brief
	Capsules   []string // capsule ids whose closure is hydrated
	Invariants string   // a reference (path or id), echoed, never read
}

// BuildBrief renders a delta brief: the task spec, each named symbol as
// `ID = value`, the hydrated capsule closure, and the invariants reference.
// Nothing else from the planning tree is read: not the plan, not other
// capsules, not the invariants file — the brief is built only from its
// arguments, symbols.json and the named capsules' closure. An unknown
// symbol or capsule is ErrNotFound. It logs `brief build <task>`.
func (s *Store) BuildBrief(b BriefSpec) (string, error) {
	if strings.TrimSpace(b.Task) == "" || strings.TrimSpace(b.Spec) == "" {
		return "", invalidf("a brief needs a task and a spec")
	}
	var out strings.Builder
	fmt.Fprintf(&out, "TASK %s: %s\n", b.Task, b.Spec)
	if len(b.Symbols) > 0 {
		table, _, err := s.Symbols().Load()
		if err != nil {
			return "", err
		}
		out.WriteString("SYMBOLS:\n")
		for _, id := range b.Symbols {
			v, ok := table[id]
			if !ok {
				return "", s.Symbols().table().notFound(id)
			}
			fmt.Fprintf(&out, "%s = %s\n", id, v)
		}
	}
	if len(b.Capsules) > 0 {
		h, err := s.Capsules().Hydrate(b.Capsules...)
		if err != nil {
			return "", err
		}
		out.WriteString("CAPSULES:\n")
		out.WriteString(h)
	}
	if b.Invariants != "" {
		fmt.Fprintf(&out, "INVARIANTS: see %s (reference, not inlined)\n", b.Invariants)
	}
	detail := b.Task
	if len(b.Symbols) > 0 {
		detail += " symbols=" + strings.Join(b.Symbols, ",")
	}
	if len(b.Capsules) > 0 {
		detail += " capsules=" + strings.Join(b.Capsules, ",")
	}
	return out.String(), s.Log("brief", "build", detail)
}

// SplitList splits a comma-separated flag value (--symbols A,B), trimming
// spaces and dropping empty items.
func SplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
