// Package appendfile appends to a file (a log, a JSONL history) each
// write whole or not at all: a write the disk could take only part of
// (it filled) is cut off again, so a full disk never leaves a torn line
// behind for the next line to be glued onto.
package appendfile

import (
	"os"
	"sync"
)

// Writer appends each Write whole or not at all. Its writes are
// serialised; the file must be opened with O_APPEND and written only
// through it (by this process).
type Writer struct {
	mu sync.Mutex
	f  *os.File
}

// New returns a Writer appending to f.
func New(f *os.File) *Writer { return &Writer{f: f} }

// Open opens (creating with perm) path for appending through a Writer;
// closing the returned file closes it.
func Open(path string, perm os.FileMode) (*Writer, *os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, perm)
	if err != nil {
		return nil, nil, err
	}
	return New(f), f, nil
}

// Write appends p. If only part of it could be written, the file is cut
// back to where it ended before, and the error returned.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fi, err := w.f.Stat()
	if err != nil {
		return 0, err
	}
	n, err := w.f.Write(p)
	if err != nil && n > 0 {
		w.f.Truncate(fi.Size())
	}
	return n, err
}
