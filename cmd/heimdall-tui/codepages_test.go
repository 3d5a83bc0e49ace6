package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
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
