// Package jsonl reads newline-delimited JSON (NDJSON): one JSON value per
// line, lines at most a maximum size. It does not parse the values; callers
// decode each line as they need. A line longer than the maximum is an
// ErrLineTooLong (wrapped in a *TooLongError): the reader has then consumed
// an unknown part of it and must not be used again — what a protocol does
// next (the blemees/1 protocol closes the connection) is its business.
//
// It imports only the standard library.
package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
)

// DefaultMaxLine is the blemees/1 default maximum line size (16 MiB).
const DefaultMaxLine = 16 << 20

// ErrLineTooLong is wrapped by the error ReadLine returns for a line longer
// than the reader's maximum.
var ErrLineTooLong = errors.New("jsonl: line too long")

// TooLongError says how long a line the reader refused.
type TooLongError struct{ Max int }

func (e *TooLongError) Error() string {
	return fmt.Sprintf("jsonl: line longer than %d bytes", e.Max)
}

// Unwrap returns ErrLineTooLong.
func (e *TooLongError) Unwrap() error { return ErrLineTooLong }

// ErrBudget is ReadLine's error when the line being read would take the
// readers sharing a Budget over it. Like a line too long, it leaves the
// reader unusable.
var ErrBudget = errors.New("jsonl: the readers' memory budget is spent")

// Budget is a number of bytes that the Readers sharing it may hold
// together for the lines they assemble (beyond each one's fixed read
// buffer): many connections each sending a long line cannot take more.
type Budget struct{ left atomic.Int64 }

// NewBudget returns a budget of n bytes.
func NewBudget(n int64) *Budget {
	b := &Budget{}
	b.left.Store(n)
	return b
}

// take takes n bytes if that many are left.
func (b *Budget) take(n int64) bool {
	if b.left.Add(-n) < 0 {
		b.left.Add(n)
		return false
	}
	return true
}

// Left is what is left of the budget.
func (b *Budget) Left() int64 { return b.left.Load() }

// keep is the most a reader keeps for its next line: a longer line's
// buffer is given back (to the budget, and the garbage collector) once
// the line has been used.
const keep = 64 << 10

// Reader reads lines of at most Max bytes (without the newline).
type Reader struct {
	br     *bufio.Reader
	max    int
	buf    []byte
	bad    error // a line too long or over the budget: every later call
	budget *Budget
}

// NewReader reads lines from r, refusing lines longer than max bytes (0:
// DefaultMaxLine).
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &Reader{br: bufio.NewReaderSize(r, min(max+1, 64<<10)), max: max}
}

// SetBudget has the reader take what it holds for lines from b (nil: no
// budget). Call it before the first ReadLine, and Release when done.
func (r *Reader) SetBudget(b *Budget) { r.budget = b }

// Release gives back what the reader holds; it may be read again after.
func (r *Reader) Release() { r.setBuf(nil) }

// setBuf makes b the line buffer, taking its capacity from the budget in
// place of the old one's; false if the budget does not have it.
func (r *Reader) setBuf(b []byte) bool {
	if r.budget != nil {
		if grow := int64(cap(b) - cap(r.buf)); grow > 0 && !r.budget.take(grow) {
			return false
		} else if grow < 0 {
			r.budget.left.Add(-grow)
		}
	}
	r.buf = b
	return true
}

// appendLine appends frag to the line buffer, growing it within the
// budget.
func (r *Reader) appendLine(frag []byte) bool {
	if n := len(r.buf) + len(frag); n > cap(r.buf) {
		b := make([]byte, len(r.buf), min(max(n+n/4, 512), r.max+1))
		copy(b, r.buf)
		if !r.setBuf(b) {
			return false
		}
	}
	r.buf = append(r.buf, frag...)
	return true
}

// ReadLine returns the next non-blank line without its newline (and
// without a trailing carriage return). The slice is valid until the next
// call. At the end of the input it returns io.EOF; a last line without a
// newline is returned first. A line longer than the maximum returns a
// *TooLongError, and so does every later call; so does ErrBudget.
func (r *Reader) ReadLine() ([]byte, error) {
	if r.bad != nil {
		return nil, r.bad
	}
	for {
		if cap(r.buf) > keep {
			r.setBuf(nil)
		}
		r.buf = r.buf[:0]
		var err error
		for {
			var frag []byte
			frag, err = r.br.ReadSlice('\n')
			if len(r.buf)+len(frag) > r.max+1 { // +1: the newline
				r.bad = &TooLongError{Max: r.max}
				return nil, r.bad
			}
			if !r.appendLine(frag) {
				r.bad = ErrBudget
				return nil, r.bad
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		line := bytes.TrimRight(r.buf, "\r\n")
		if len(line) > r.max {
			r.bad = &TooLongError{Max: r.max}
			return nil, r.bad
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
		if err != nil {
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, err
		}
	}
}
