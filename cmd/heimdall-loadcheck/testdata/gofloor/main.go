// Command gofloor is the memory scenario's floor: the least a Go
// supervisor of one session does, written plainly — its program in a pty
// whose output it reads, a unix socket it serves, SIGTERM and SIGCHLD
// handled — and nothing else (no emulator, no records, no config).
//
//	gofloor SOCKET SCRIPT
//
// runs `sh -c SCRIPT` in a 120×35 pty and serves SOCKET until SIGTERM,
// which kills the program and exits.
package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/creack/pty"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gofloor SOCKET SCRIPT")
		os.Exit(2)
	}
	cmd := exec.Command("sh", "-c", os.Args[2])
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 35})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gofloor:", err)
		os.Exit(1)
	}
	go func() {
		buf := make([]byte, 64<<10) // as the supervisor's reader
		for {
			if _, err := f.Read(buf); err != nil {
				return
			}
		}
	}()
	l, err := net.Listen("unix", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gofloor:", err)
		cmd.Process.Kill()
		os.Exit(1)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGCHLD)
	go cmd.Wait()
	for s := range sigs {
		if s == syscall.SIGTERM {
			cmd.Process.Kill()
			l.Close()
			os.Exit(0)
		}
	}
}
