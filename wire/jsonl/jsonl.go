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

// Reader reads lines of at most Max bytes (without the newline).
type Reader struct {
	br  *bufio.Reader
	max int
	buf []byte
	bad bool
}

// NewReader reads lines from r, refusing lines longer than max bytes (0:
// DefaultMaxLine).
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &Reader{br: bufio.NewReaderSize(r, min(max+1, 64<<10)), max: max}
}

// ReadLine returns the next non-blank line without its newline (and
// without a trailing carriage return). The slice is valid until the next
// call. At the end of the input it returns io.EOF; a last line without a
// newline is returned first. A line longer than the maximum returns a
// *TooLongError, and so does every later call.
func (r *Reader) ReadLine() ([]byte, error) {
	if r.bad {
		return nil, &TooLongError{Max: r.max}
	}
	for {
		r.buf = r.buf[:0]
		var err error
		for {
			var frag []byte
			frag, err = r.br.ReadSlice('\n')
			if len(r.buf)+len(frag) > r.max+1 { // +1: the newline
				r.bad = true
				return nil, &TooLongError{Max: r.max}
			}
			r.buf = append(r.buf, frag...)
			if err != bufio.ErrBufferFull {
				break
			}
		}
		line := bytes.TrimRight(r.buf, "\r\n")
		if len(line) > r.max {
			r.bad = true
			return nil, &TooLongError{Max: r.max}
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
