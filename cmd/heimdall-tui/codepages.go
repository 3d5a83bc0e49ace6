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
// executable that are mapped read-only (code, read-only data, the
// function tables): the kernel maps them back from the page cache, a
// minor fault each, when the process next runs that code. It is how an
// idle supervisor stops being charged for the ~12 MB of the binary that
// starting up touched (its PSS share of them; the pages stay cached for
// the dashboard and the other supervisors). Writable mappings are never
// touched: MADV_DONTNEED would discard their private copies (so would it
// a debugger's breakpoints in the code, which are such copies).
func dropCodePages() error {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return err
	}
	defer f.Close()
	self := uint64(reflect.ValueOf(dropCodePages).Pointer())
	type mapping struct {
		start, end uint64
		file       string // "dev inode"
		writable   bool
	}
	var maps []mapping
	var exe string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fs := bytes.Fields(sc.Bytes())
		if len(fs) < 6 {
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
		m := mapping{start, end, string(fs[3]) + " " + string(fs[4]), fs[1][1] == 'w'}
		if start <= self && self < end {
			exe = m.file
		}
		maps = append(maps, m)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if exe == "" || strings.HasSuffix(exe, " 0") { // not found, or not a file
		return errors.New("no mapping of the executable found in /proc/self/maps")
	}
	for _, m := range maps {
		if m.file == exe && !m.writable {
			if _, _, e := unix.Syscall(unix.SYS_MADVISE, uintptr(m.start), uintptr(m.end-m.start), unix.MADV_DONTNEED); e != 0 {
				return e
			}
		}
	}
	return nil
}
