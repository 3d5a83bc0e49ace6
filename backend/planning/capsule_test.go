package planning

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func ids(cs []Capsule) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return strings.Join(out, ",")
}

func TestCapsuleWriteAndFormat(t *testing.T) {
	s := newStore(t)
	c := s.Capsules()
	must(t, c.Write(Capsule{ID: "w1", What: "added LOB engine", Where: "F12", Gotcha: "seed must be fixed"}))
	must(t, c.Write(Capsule{ID: "w2", What: "added book diff", Where: "F13", Decision: "two sorted maps", Depends: []string{"w1"}}))
	b, err := os.ReadFile(filepath.Join(s.CapsuleDir(), "w2.md"))
	must(t, err)
	want := "---\nid: w2\ndepends: w1\nts: 2026-06-11T12:07:27Z\n---\nWHAT: added book diff\nWHERE: F13\nDECISION: two sorted maps\n"
	if string(b) != want {
		t.Errorf("w2.md =\n%s\nwant\n%s", b, want)
	}
	cp, err := c.Read("w1")
	must(t, err)
	if cp.What != "added LOB engine" || cp.Where != "F12" || cp.Gotcha != "seed must be fixed" || cp.Decision != "" || len(cp.Depends) != 0 || cp.TS != "2026-06-11T12:07:27Z" {
		t.Errorf("Read(w1) = %+v", cp)
	}
	list, err := c.List()
	must(t, err)
	if strings.Join(list, ",") != "w1,w2" {
		t.Errorf("List = %q", list)
	}
}

func TestCapsuleLineCap(t *testing.T) {
	s := newStore(t)
	c := s.Capsules()
	// 5 front-matter lines + 4 fields + one continuation line = 10: allowed.
	must(t, c.Write(Capsule{ID: "ok", What: "a\nb", Where: "w", Decision: "d", Gotcha: "g"}))
	// 11 lines: rejected, nothing written.
	err := c.Write(Capsule{ID: "long", What: "a\nb\nc", Where: "w", Decision: "d", Gotcha: "g"})
	if !errors.Is(err, ErrTooLong) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("11-line capsule: %v, want ErrTooLong", err)
	}
	if _, err := c.Read("long"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a rejected capsule was written: %v", err)
	}
	for _, bad := range []Capsule{{ID: "../x", What: "w"}, {ID: "", What: "w"}, {ID: ".hidden", What: "w"}, {ID: "nowhat"}, {ID: "self", What: "w", Depends: []string{"self"}}} {
		if err := c.Write(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Write(%+v): %v, want ErrInvalid", bad, err)
		}
	}
	if err := c.Write(Capsule{ID: "orphan", What: "w", Depends: []string{"ghost"}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing dependency at write: %v, want ErrNotFound", err)
	}
}

func TestCapsuleClosure(t *testing.T) {
	s := newStore(t)
	c := s.Capsules()
	must(t, c.Write(Capsule{ID: "w1", What: "added LOB engine", Where: "F12"}))
	must(t, c.Write(Capsule{ID: "w2", What: "added book diff", Where: "F13", Depends: []string{"w1"}}))
	must(t, c.Write(Capsule{ID: "w3", What: "unrelated docs", Where: "README"}))
	must(t, c.Write(Capsule{ID: "w4", What: "feed", Where: "F14", Depends: []string{"w2", "w1"}}))
	must(t, c.Write(Capsule{ID: "w5", What: "clearing", Where: "F15", Depends: []string{"w1"}}))
	cases := map[string]string{
		"w2":    "w1,w2",
		"w1":    "w1",
		"w3":    "w3",
		"w4":    "w1,w2,w4",
		"w4,w5": "w1,w2,w4,w5",
		"w5,w2": "w1,w5,w2",
		"w2,w2": "w1,w2",
	}
	for in, want := range cases {
		got, err := c.Closure(strings.Split(in, ",")...)
		must(t, err)
		if ids(got) != want {
			t.Errorf("Closure(%s) = %s, want %s", in, ids(got), want)
		}
	}
	h, err := c.Hydrate("w2")
	must(t, err)
	if !strings.Contains(h, "WHAT: added LOB engine") || !strings.Contains(h, "WHAT: added book diff") || strings.Contains(h, "unrelated") {
		t.Errorf("Hydrate(w2) =\n%s", h)
	}
	if strings.Index(h, "id: w1") > strings.Index(h, "id: w2") {
		t.Errorf("Hydrate(w2): dependency after dependent:\n%s", h)
	}
	if _, err := c.Closure("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Closure(nope): %v", err)
	}
}

func TestCapsuleCycleAndMissingOnDisk(t *testing.T) {
	s := newStore(t)
	c := s.Capsules()
	must(t, c.Write(Capsule{ID: "a", What: "a"}))
	must(t, c.Write(Capsule{ID: "b", What: "b", Depends: []string{"a"}}))
	// Rewriting a to depend on b would close a cycle: refused.
	err := c.Write(Capsule{ID: "a", What: "a", Depends: []string{"b"}})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("cycle at write: %v", err)
	}
	// A cycle made by hand (or by another tool) is an error naming it.
	must(t, os.WriteFile(filepath.Join(s.CapsuleDir(), "a.md"), []byte("---\nid: a\ndepends: b\nts: x\n---\nWHAT: a\n"), 0o644))
	_, err = c.Closure("b")
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "b -> a -> b") {
		t.Errorf("cycle on disk: %v", err)
	}
	// A dependency deleted after the fact.
	must(t, os.WriteFile(filepath.Join(s.CapsuleDir(), "a.md"), []byte("---\nid: a\ndepends: gone\nts: x\n---\nWHAT: a\n"), 0o644))
	_, err = c.Closure("b")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `capsule a depends on "gone"`) {
		t.Errorf("missing dependency: %v", err)
	}
	// A capsule file that is not one.
	must(t, os.WriteFile(filepath.Join(s.CapsuleDir(), "bad.md"), []byte("WHAT: no front matter\n"), 0o644))
	var fe *FileError
	if _, err := c.Read("bad"); !errors.Is(err, ErrCorrupt) || !errors.As(err, &fe) {
		t.Errorf("corrupt capsule: %v", err)
	}
}

func TestBuildBriefExcludesThePlan(t *testing.T) {
	s := newStore(t)
	must(t, s.Init())
	must(t, s.Symbols().Set("F12", "src/matching/engine.ts"))
	must(t, s.Symbols().Set("C3", "balances sum to zero"))
	must(t, s.Symbols().Set("F99", "src/unrelated.ts"))
	must(t, s.Capsules().Write(Capsule{ID: "w1", What: "added LOB engine", Where: "F12", Gotcha: "seed must be fixed"}))
	must(t, s.Capsules().Write(Capsule{ID: "w2", What: "added book diff", Where: "F13", Depends: []string{"w1"}}))
	must(t, s.Capsules().Write(Capsule{ID: "w3", What: "unrelated docs", Where: "README"}))
	const secret = "PLANTED-PLAN-BODY restated criteria 1..9"
	must(t, os.WriteFile(filepath.Join(s.Root(), "PLAN-3.md"), []byte(secret), 0o644))
	must(t, os.WriteFile(filepath.Join(s.ProtocolDir(), "PLAN-x.md"), []byte(secret), 0o644))
	must(t, os.WriteFile(filepath.Join(s.Root(), "INVARIANTS.md"), []byte("INVARIANT-BODY"), 0o644))
	brief, err := s.BuildBrief(BriefSpec{Task: "3.2", Spec: "implement book diff", Symbols: []string{"F12", "C3"}, Capsules: []string{"w2"}, Invariants: "INVARIANTS.md"})
	must(t, err)
	w1, _ := s.Capsules().Read("w1")
	w2, _ := s.Capsules().Read("w2")
	want := "TASK 3.2: implement book diff\nSYMBOLS:\nF12 = src/matching/engine.ts\nC3 = balances sum to zero\nCAPSULES:\n" +
		w1.Text + w2.Text + "INVARIANTS: see INVARIANTS.md (reference, not inlined)\n"
	if brief != want {
		t.Errorf("brief =\n%s\nwant\n%s", brief, want)
	}
	for _, leak := range []string{"PLANTED", "INVARIANT-BODY", "unrelated", "F99"} {
		if strings.Contains(brief, leak) {
			t.Errorf("brief leaks %q", leak)
		}
	}
	if _, err := s.BuildBrief(BriefSpec{Task: "1", Spec: "s", Symbols: []string{"NOPE"}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown symbol: %v", err)
	}
	if _, err := s.BuildBrief(BriefSpec{Task: "1", Spec: "s", Capsules: []string{"nope"}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown capsule: %v", err)
	}
}
