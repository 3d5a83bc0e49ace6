package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dropCodePages unmaps, from this process only, the pages of its own
// executable that are mapped read-only and hold nothing of their own
// (code, read-only data, the function tables): the kernel maps them back
// from the page cache, a minor fault each, when the process next runs
// that code. It is how an idle supervisor stops being charged for the
// ~12 MB of the binary that starting up touched (its PSS share of them;
// the pages stay cached for the dashboard and the other supervisors).
//
// A mapping with private copies in it is never touched: MADV_DONTNEED
// would discard them and the file's bytes would come back. Writable
// mappings have them, and so do read-only ones that were written before
// they were made read-only: the relocated data of a position-independent
// build (-buildmode=pie, GNU_RELRO: a supervisor built so crashed at its
// first idle spell), a debugger's breakpoints in the code. /proc/self/smaps
// tells them apart: their "Anonymous:" is not 0.
func dropCodePages() error {
	maps, err := readMappings()
	if err != nil {
		return err
	}
	self := uint64(reflect.ValueOf(dropCodePages).Pointer())
	exe := ""
	for _, m := range maps {
		if m.start <= self && self < m.end {
			exe = m.file
		}
	}
	if exe == "" || strings.HasSuffix(exe, " 0") { // not found, or not a file
		return errors.New("no mapping of the executable found in /proc/self/smaps")
	}
	return dropCleanMappings(maps, exe)
}

// mapping is one line of /proc/self/maps, with what smaps adds.
type mapping struct {
	start, end uint64
	file       string // "dev inode" ("00:00 0": none)
	writable   bool
	anon       bool // holds private copies ("Anonymous:" not 0)
}

func readMappings() ([]mapping, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var maps []mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := bytes.Fields(sc.Bytes())
		if len(fs) >= 2 && string(fs[0]) == "Anonymous:" && len(maps) > 0 {
			maps[len(maps)-1].anon = string(fs[1]) != "0"
			continue
		}
		// A mapping's header: start-end perms offset dev inode [path]
		if len(fs) < 5 {
			continue
		}
		addr := bytes.SplitN(fs[0], []byte("-"), 2)
		if len(addr) != 2 {
			continue
		}
		start, err1 := strconv.ParseUint(string(addr[0]), 16, 64)
		end, err2 := strconv.ParseUint(string(addr[1]), 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		maps = append(maps, mapping{start: start, end: end, file: string(fs[3]) + " " + string(fs[4]), writable: fs[1][1] == 'w'})
	}
	return maps, sc.Err()
}

// dropCleanMappings drops the pages of file's read-only mappings that
// hold no private copies.
func dropCleanMappings(maps []mapping, file string) error {
	for _, m := range maps {
		if m.file == file && !m.writable && !m.anon {
			if _, _, e := unix.Syscall(unix.SYS_MADVISE, uintptr(m.start), uintptr(m.end-m.start), unix.MADV_DONTNEED); e != 0 {
				return e
			}
		}
	}
	return nil
}
