package appendfile

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// A log line the disk can take only part of is cut off again: the log
// ends with whole lines (here the disk is a small tmpfs, filled; a line
// crossing into a page that is not there is written only in part).
func TestWholeLinesOnFullDisk(t *testing.T) {
	dir, err := os.MkdirTemp("", "wl")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", dir).Run(); err != nil {
		t.Skipf("no tmpfs to fill (needs root): %v", err)
	}
	defer exec.Command("umount", "-l", dir).Run()
	f, err := os.OpenFile(filepath.Join(dir, "log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := New(f)
	line := append(bytes.Repeat([]byte("x"), 999), '\n')
	written := 0
	for {
		n, err := w.Write(line)
		if err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			if n == 0 {
				t.Fatal("no partial write: nothing was tested")
			}
			break
		}
		written++
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != written*len(line) {
		t.Fatalf("%d bytes in the log after %d whole lines of %d", len(b), written, len(line))
	}
}
