package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dropCodePages unmaps most of the test binary's resident code and
// read-only data from this process, and the process goes on running it
// (the pages come back from the page cache as it runs).
func TestDropCodePagesShrinksTheMappedBinary(t *testing.T) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Skip(err)
	}
	before := readOnlyRss(t, exe)
	if before < 256 {
		t.Skipf("only %d KiB of the binary resident", before)
	}
	if err := dropCodePages(); err != nil {
		t.Fatal(err)
	}
	after := readOnlyRss(t, exe)
	if after > before/2 {
		t.Fatalf("read-only mappings of %s: %d KiB resident before, %d KiB after", exe, before, after)
	}
	// Still runs: code not run since comes back.
	if got := strings.Repeat("ab", 3); got != "ababab" {
		t.Fatal(got)
	}
	t.Logf("resident read-only mappings of the binary: %d KiB → %d KiB", before, after)
}

// readOnlyRss sums the resident KiB of path's mappings that are not
// writable (/proc/self/smaps).
func readOnlyRss(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sum, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) >= 5 && strings.Contains(fs[0], "-"):
			in = len(fs) >= 6 && fs[5] == path && fs[1][1] != 'w'
		case in && len(fs) >= 2 && fs[0] == "Rss:":
			kb, _ := strconv.Atoi(fs[1])
			sum += kb
		}
	}
	return sum
}

// A read-only mapping that was written before it was made read-only (as a
// position-independent build's relocated data is) keeps its bytes; a
// clean one of the same file is dropped.
func TestDropCleanMappingsKeepsPrivateCopies(t *testing.T) {
	path := t.TempDir() + "/f"
	page := os.Getpagesize()
	if err := os.WriteFile(path, make([]byte, 2*page), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	written, err := unix.Mmap(int(f.Fd()), 0, page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(written)
	written[0] = 42 // a private copy, as a relocation makes
	if err := unix.Mprotect(written, unix.PROT_READ); err != nil {
		t.Fatal(err)
	}
	clean, err := unix.Mmap(int(f.Fd()), int64(page), page, unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(clean)
	_ = clean[0] // resident

	maps, err := readMappings()
	if err != nil {
		t.Fatal(err)
	}
	file := ""
	for _, m := range maps {
		if m.start == uint64(uintptr(unsafe.Pointer(&written[0]))) {
			file = m.file
			if !m.anon {
				t.Fatal("smaps: the written mapping has no anonymous pages")
			}
		}
	}
	if file == "" {
		t.Fatal("the test's mapping is not in /proc/self/smaps")
	}
	if err := dropCleanMappings(maps, file); err != nil {
		t.Fatal(err)
	}
	if written[0] != 42 {
		t.Fatalf("the written mapping's private copy was dropped: %d", written[0])
	}
	if kb := mappingRss(t, uintptr(unsafe.Pointer(&clean[0]))); kb != 0 {
		t.Fatalf("the clean mapping still has %d KiB resident", kb)
	}
}

// mappingRss is the resident KiB of the mapping that starts at addr.
func mappingRss(t *testing.T, addr uintptr) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		fs := strings.Fields(l)
		switch {
		case len(fs) >= 5 && strings.Contains(fs[0], "-"):
			start, _ := strconv.ParseUint(strings.SplitN(fs[0], "-", 2)[0], 16, 64)
			in = uintptr(start) == addr
		case in && len(fs) >= 2 && fs[0] == "Rss:":
			kb, _ := strconv.Atoi(fs[1])
			return kb
		}
	}
	t.Fatalf("no mapping at %#x", addr)
	return 0
}
