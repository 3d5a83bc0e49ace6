package jsonl

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadLines(t *testing.T) {
	r := NewReader(strings.NewReader("{\"a\":1}\n\n  \r\n{\"b\":\"\\u0000 é 😀\"}\r\nlast"), 64)
	var got []string
	for {
		l, err := r.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(l))
	}
	want := []string{`{"a":1}`, `{"b":"\u0000 é 😀"}`, "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestTooLong(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, max := range []int{10, 99} {
		r := NewReader(strings.NewReader("ok\n"+long+"\nafter\n"), max)
		if l, err := r.ReadLine(); err != nil || string(l) != "ok" {
			t.Fatalf("first line: %q %v", l, err)
		}
		_, err := r.ReadLine()
		var tl *TooLongError
		if !errors.Is(err, ErrLineTooLong) || !errors.As(err, &tl) || tl.Max != max {
			t.Fatalf("max %d: err = %v", max, err)
		}
		if _, err := r.ReadLine(); !errors.Is(err, ErrLineTooLong) {
			t.Fatalf("after a too long line: %v", err)
		}
	}
	// Exactly max bytes is fine.
	r := NewReader(strings.NewReader(long+"\n"), 100)
	if l, err := r.ReadLine(); err != nil || len(l) != 100 {
		t.Fatalf("max-size line: %d %v", len(l), err)
	}
}

// Readers sharing a budget hold no more than it together: the one whose
// line would go over it gets ErrBudget; a line's buffer goes back to the
// budget once a short line follows, and everything at Release.
func TestBudget(t *testing.T) {
	const budget = 200 << 10
	b := NewBudget(budget)
	long := strings.Repeat("x", 150<<10)
	pr1, pw1 := io.Pipe()
	r1 := NewReader(pr1, 1<<20)
	r1.SetBudget(b)
	go pw1.Write([]byte(long + "\nshort\n"))
	if l, err := r1.ReadLine(); err != nil || len(l) != len(long) {
		t.Fatalf("first long line: %d %v", len(l), err)
	}
	if b.Left() >= budget-int64(len(long)) {
		t.Fatalf("a long line held %d of the budget", budget-b.Left())
	}
	r2 := NewReader(strings.NewReader(long+"\n"), 1<<20)
	r2.SetBudget(b)
	if _, err := r2.ReadLine(); !errors.Is(err, ErrBudget) {
		t.Fatalf("a second long line at once: %v", err)
	}
	if _, err := r2.ReadLine(); !errors.Is(err, ErrBudget) {
		t.Fatalf("after: %v", err)
	}
	r2.Release()
	if l, err := r1.ReadLine(); err != nil || string(l) != "short" {
		t.Fatalf("%q %v", l, err)
	}
	if budget-b.Left() > 1024 {
		t.Fatalf("after a short line, %d held", budget-b.Left())
	}
	r3 := NewReader(strings.NewReader(long+"\n"), 1<<20)
	r3.SetBudget(b)
	if l, err := r3.ReadLine(); err != nil || len(l) != len(long) {
		t.Fatalf("once given back: %d %v", len(l), err)
	}
	r3.Release()
	r1.Release()
	if b.Left() != budget {
		t.Fatalf("after Release, %d held", budget-b.Left())
	}
}

func FuzzReadLine(f *testing.F) {
	f.Add([]byte("{}\n{\"a\":[1,2]}\r\n"), 8)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		max = int(uint(max)%64) + 1 // 1..64, whatever the sign
		r := NewReader(strings.NewReader(string(in)), max)
		b := NewBudget(int64(max) * 4)
		r.SetBudget(b)
		defer func() {
			if r.Release(); b.Left() != int64(max)*4 {
				t.Fatalf("budget left %d of %d after Release", b.Left(), max*4)
			}
		}()
		for range len(in) + 2 {
			l, err := r.ReadLine()
			if err != nil {
				return
			}
			if len(l) > max || strings.ContainsRune(string(l), '\n') {
				t.Fatalf("line %q (max %d)", l, max)
			}
		}
		t.Fatal("no end")
	})
}
