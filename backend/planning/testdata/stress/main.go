// Command stress is the child of planning's concurrency test: it does N
// write operations on the planning root in $HEIMDALL_PLANNING_DIR through
// the package's API, each in its own lock/rewrite cycle as a CLI call
// would, cycling through ledger log, blackboard set and resolve set.
//
// The worker's fact "wW" and symbol "SW" are its history: each set appends
// the operation number to the value it reads back (get, then set — only
// this worker writes that key). If another process ever rewrote the file
// from a stale read, the worker's last value would be reverted, its next
// set would build on the reverted one, and the final history would miss
// an entry: every lost update shows.
//
//	stress WORKER N
package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: stress WORKER N")
		os.Exit(2)
	}
	w := os.Args[1]
	n, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s := planning.Open(planning.DefaultRoot())
	for i := 0; i < n; i++ {
		var err error
		switch i % 3 {
		case 0:
			err = s.Ledger().Log(planning.LedgerEntry{Role: "w" + w, Kind: "op", Tokens: int64(i), MsgID: w + "-" + strconv.Itoa(i)})
		case 1:
			var v string
			v, err = s.Blackboard().Get("w" + w)
			if err == nil || errors.Is(err, planning.ErrNotFound) {
				err = s.Blackboard().Set("w"+w, v+" "+strconv.Itoa(i))
			}
		case 2:
			var v string
			v, err = s.Symbols().Get("S" + w)
			if err == nil || errors.Is(err, planning.ErrNotFound) {
				err = s.Symbols().Set("S"+w, v+" "+strconv.Itoa(i))
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "worker %s op %d: %v\n", w, i, err)
			os.Exit(1)
		}
	}
}
