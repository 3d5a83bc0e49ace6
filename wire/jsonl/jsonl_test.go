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

func FuzzReadLine(f *testing.F) {
	f.Add([]byte("{}\n{\"a\":[1,2]}\r\n"), 8)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		max = max%64 + 1
		r := NewReader(strings.NewReader(string(in)), max)
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
